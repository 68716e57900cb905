"""The scenario machinery: KeyVRM's engine and API run on a simulated region and judged.

``scenario`` (the YAML files; ``shipped/`` holds KeyVRM's own), ``harness`` (the run on
the driven clock), ``acts`` (operator calls and config changes), ``expect`` (what the
operator must see), ``invariants`` (safety rules checked every cycle), ``timeline`` (what
a failure prints) and ``check`` (``keyvrm-sim check`` and the scenario tests). The one
package allowed to compose the engine, the API, the demo's embedded region and the
simulator.
"""
