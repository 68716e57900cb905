"""The statuses and states the KeyVRM API serves, as the CLI offers them for filters.

The client keeps its own copy (it must not import KeyVRM's server); a test of the server
(``tests/unit/api/test_states_match_clients.py``) compares them with the ``enum`` lists of
the served OpenAPI document.
"""

EVENT_KINDS = ("HA", "LB", "drain", "failback")
EVENT_STATUSES = ("created", "generating", "generated", "manual_action", "executing", "completed")
EVENT_STATES = ("healthy", "warning", "error")
RECOMMENDATION_STATUSES = ("created", "manual_action", "running", "succeeded", "failed", "cancelled")
HYPERVISOR_STATES = ("ok", "fencing", "fenced", "evacuating", "maintenance", "error", "restoring", "draining",
                     "drain_incomplete")
CYCLE_STATUSES = ("running", "completed", "skipped", "failed", "requested")
