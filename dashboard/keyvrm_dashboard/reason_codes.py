"""A short heading of each reason code KeyVRM's API serves, as the panels title a reason (the API's text stays English).

The codes are the server's ``keyvrm.planning.reasons`` and ``keyvrm.scheduling.capacity``
constants; the dashboard keeps its own copy (it talks only to the REST API) and a test
of the server (``tests/unit/planning/test_dashboard_reason_headings.py``) checks that
every code has a heading and that no heading names a code the server lacks. This module
imports nothing, so that test reads it without Django; ``N_`` only marks a heading for
the message catalog, ``labels.reason_heading`` translates it when it is shown.
"""


def N_(message):
    """``message`` as it is, marked for the catalog (pybabel extracts N_ calls)."""
    return message


HEADINGS = {
    # the cycle or the aggregate did not run
    'disabled': N_("KeyVRM is disabled"),
    'noop': N_("Aggregate in NOOP"),
    'no_marker': N_("No processing mode (marker)"),
    'storage_undeclared': N_("Storage mode undeclared: HA off"),
    # nothing to do
    'no_failure': N_("No failed host"),
    'already_handled': N_("Host already handled"),
    'no_overload': N_("No overload"),
    'lb_too_early': N_("LB started too early"),
    'metrics_settling': N_("Metrics settling after a move"),
    'lb_imbalance_pending': N_("Overload not persistent yet"),
    'ha_acted': N_("HA acted: LB skipped"),
    'source_failed': N_("A source failed: LB skipped"),
    # errors
    'no_fencer': N_("No fencing mechanism enabled"),
    'fencing_impossible': N_("HA cannot fence the host"),
    'mass_failure_guard': N_("Mass failure: HA stopped"),
    'mixed_hugepages': N_("Ordinary and HugePages VMs mixed"),
    # alerts
    'host_alive_service_down': N_("Host alive, compute service down"),
    'heartbeat_path_broken': N_("Heartbeat path broken"),
    'insufficient_evidence': N_("Not enough evidence to fence"),
    'engine_lost_database': N_("Engine lost its database"),
    'lb_no_target': N_("No target host for LB"),
    'insufficient_failover_capacity': N_("Failover reserve not met"),
    # what a run found
    'overloaded': N_("Overloaded hosts"),
    'no_target': N_("No suitable target host"),
    'not_improving': N_("No move improves the load"),
    'no_metrics': N_("No metrics"),
    'excluded_by_metadata': N_("VM excluded by its metadata"),
    'local_disk': N_("VM on local disk"),
    'vms_remain': N_("VMs remain on the host"),
    'busy': N_("Busy with another recommendation"),
    'cooldown': N_("VM moved recently"),
    'not_migratable': N_("VM cannot be migrated"),
    'recommendations_final': N_("Recommendations ended"),
    # an operator's drain and failback
    'drain': N_("Host drain"),
    'drained': N_("Host drained"),
    'drain_incomplete': N_("Drain incomplete"),
    'failback': N_("Failback"),
    'failback_skipped': N_("VM not brought back"),
    # notes on how a run planned
    'no_filters': N_("No Nova filters configured"),
    'filter_input_unknown': N_("Filter input unknown"),
    # capacity refusals of a target
    'cpu_depleted': N_("Not enough CPU"),
    'ram_depleted': N_("Not enough RAM"),
    'hugepages_depleted': N_("Not enough HugePages"),
    'no_inventory': N_("No Placement inventory"),
    'quota_exceeded': N_("Quota exceeded"),
    'no_online_hypervisor': N_("No hypervisor online"),
    'vm_not_on_expected_host': N_("VM not on the expected host"),
}
