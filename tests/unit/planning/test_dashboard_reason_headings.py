"""The dashboard titles every reason code the planners and the capacity checks give, and only those.

The dashboard must not import KeyVRM, so ``keyvrm_dashboard/reason_codes.py`` keeps its
own copy of the codes with a heading each (translated there); this test reads it from its
file (it imports nothing) and the codes from the server's modules, as the ``NAME = "code"``
constants they define (a code added to either module without a heading fails here).
"""

import ast
import inspect

from keyvrm.planning import reasons
from keyvrm.scheduling import capacity
from tests.unit import dashboard_files


def _codes_defined_in(module):
    """The values of the module's own top-level ``UPPER_NAME = "text"`` assignments (not imported names)."""
    tree = ast.parse(inspect.getsource(module))
    return {node.value.value for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.isupper() and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)}


def test_every_reason_code_has_a_dashboard_heading_and_no_heading_names_an_unknown_code():
    codes = _codes_defined_in(reasons) | _codes_defined_in(capacity)
    assert {reasons.NO_TARGET, reasons.METRICS_SETTLING, capacity.CPU_DEPLETED} <= codes
    headings = dashboard_files.dashboard_module("reason_codes").HEADINGS
    assert sorted(codes - set(headings)) == []
    assert sorted(set(headings) - codes) == []
    assert all(heading.strip() for heading in headings.values())
