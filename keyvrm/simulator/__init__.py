"""The simulated region: KeyVRM's embedded default, benchmark bed and scenario engine.

``clock`` (discrete-event time), ``region`` (the mutable model), ``compute`` (Nova-like
actions), ``power`` (BMC and Ceph), ``load`` (metrics), ``faults`` (scripted faults),
``generator``/``inventory`` (topology and workload), ``scenario`` (YAML files) and
``report`` (final-state summaries). The drivers in ``keyvrm/drivers/*/sim.py`` read it.
"""
