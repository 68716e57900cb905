"""Business-config rules: defaults of SPEC section 2, and bad values refused naming the field."""

import pytest

from keyvrm import exception
from keyvrm.model import settings


def test_global_defaults_are_those_of_the_spec():
    config = settings.AppConfig()
    assert config.enabled is False and config.period == 60
    assert (config.ha_fence_ceph, config.ha_fence_bmc, config.ha_fence_nova) == (False, False, True)
    assert config.ha_power_check_timeout == 60 and config.ha_vm_reset_state_timeout == 300
    assert config.executor_max_attempts == 3 and config.executor_max_repeated_errors == 2
    assert config.executor_manual_action_timeout == 30
    assert config.lb_recommendations_auto_run is False
    assert "ComputeFilter" in config.nova_filters


def test_new_aggregate_is_noop_with_spec_lb_defaults():
    config = settings.AggregateConfig("agg1")
    assert config.no_op_mode is True and config.marker == ""
    assert config.lb_weights == {"cpu": 1.0, "ram": 1.0, "net": 0.5, "hugepages": 0.0}
    assert (config.lb_period, config.lb_overload_threshold, config.lb_target_max_load) == (600, 80, 70)
    assert config.lb_ceilings == {"cpu": 85.0, "ram": 95.0, "net": 90.0, "hugepages": None}
    assert config.lb_target_ceiling("cpu") == 75.0 and config.lb_target_ceiling("hugepages") is None
    assert not config.runs_ha and not config.runs_lb
    assert config.ha_failover_reserve == 1


@pytest.mark.parametrize("changes, field", [
    ({"period": -1}, "period"),
    ({"period": "soon"}, "period"),
    ({"period": 2147483647}, "period"),  # a cycle in 68 years: HA that never runs
    ({"enabled": "maybe"}, "enabled"),
    ({"nova_filters": ["ComputeFilter", "NoSuchFilter"]}, "nova_filters"),
    ({"executor_max_attempts": 0}, "executor_max_attempts"),
    ({"no_such_field": 1}, "no_such_field"),
])
def test_bad_global_value_is_refused_naming_the_field(changes, field):
    with pytest.raises(exception.InvalidField) as caught:
        settings.validate_app_config(settings.AppConfig(), changes)
    assert caught.value.field == field
    assert str(caught.value).startswith(field + ":")


def test_empty_filter_list_is_allowed_and_means_no_filtering():
    assert settings.validate_app_config(settings.AppConfig(), {"nova_filters": ""}).nova_filters == ()


def test_values_from_the_command_line_are_coerced():
    updated = settings.validate_app_config(
        settings.AppConfig(), {"enabled": "true", "period": "120",
                               "ha_fence_interfaces": "bond0, eth1"})
    assert updated.enabled is True and updated.period == 120
    assert updated.ha_fence_interfaces == ("bond0", "eth1")


@pytest.mark.parametrize("changes, field", [
    ({"marker": "HB"}, "marker"),
    ({"lb_overload_threshold": 120}, "lb_overload_threshold"),
    ({"lb_target_max_load": -1}, "lb_target_max_load"),
    ({"lb_target_max_load": 85}, "lb_target_max_load"),
    ({"lb_overload_threshold": 60}, "lb_overload_threshold"),
    ({"lb_period": -5}, "lb_period"),
    ({"lb_weights": {"disk": 1}}, "lb_weights"),
    ({"lb_weights": {"cpu": "x"}}, "lb_weights.cpu"),
    ({"lb_ceilings": {"disk": 90}}, "lb_ceilings"),
    ({"lb_ceilings": {"cpu": 0}}, "lb_ceilings.cpu"),
    ({"lb_ceilings": {"ram": 101}}, "lb_ceilings.ram"),
    ({"lb_ceilings": {"net": 10}}, "lb_ceilings.net"),  # within the 10-point hysteresis
    ({"lb_ceilings": "[90]"}, "lb_ceilings"),
    ({"lb_target_max_load": 10, "lb_ceilings": {"cpu": 50}}, "lb_ceilings.cpu"),
    ({"ha_failover_reserve": -1}, "ha_failover_reserve"),
    ({"ha_failover_reserve": 3}, "ha_failover_reserve"),  # the analysis searches at most 2 hosts
    ({"ha_failover_reserve": "one"}, "ha_failover_reserve"),
    ({"lb_level": 0}, "lb_level"),
    ({"lb_level": 6}, "lb_level"),
    ({"lb_level": "x"}, "lb_level"),
    ({"lb_level": True}, "lb_level"),
])
def test_bad_aggregate_value_is_refused_naming_the_field(changes, field):
    current = settings.AggregateConfig("agg1")
    with pytest.raises(exception.InvalidField) as caught:
        settings.validate_aggregate_config(current, changes)
    assert caught.value.field == field


def test_turning_noop_on_needs_a_reason():
    active = settings.AggregateConfig("agg1", marker="HA", no_op_mode=False, no_op_reason=None)
    with pytest.raises(exception.InvalidField) as caught:
        settings.validate_aggregate_config(active, {"no_op_mode": True})
    assert caught.value.field == "no_op_reason"
    noop = settings.validate_aggregate_config(active, {"no_op_mode": True,
                                                       "no_op_reason": "rack maintenance"})
    assert noop.no_op_reason == "rack maintenance" and not noop.runs_ha


def test_turning_noop_off_clears_the_reason_and_enables_the_marker():
    updated = settings.validate_aggregate_config(settings.AggregateConfig("agg1"),
                                                 {"no_op_mode": False, "marker": "HA+LB"})
    assert updated.no_op_reason is None and updated.runs_ha and updated.runs_lb


def test_partial_weights_keep_the_other_defaults():
    updated = settings.validate_aggregate_config(settings.AggregateConfig("a"),
                                                 {"lb_weights": {"hugepages": 2}})
    assert updated.lb_weights == {"cpu": 1.0, "ram": 1.0, "net": 0.5, "hugepages": 2.0}


def test_ceilings_are_validated_per_resource_and_null_means_none():
    updated = settings.validate_aggregate_config(settings.AggregateConfig("agg1"),
                                                 {"lb_ceilings": {"cpu": "90", "net": None}})
    assert updated.lb_ceilings == {"cpu": 90.0, "ram": 95.0, "net": None, "hugepages": None}


def test_a_wider_hysteresis_that_swallows_a_ceiling_is_refused_naming_the_threshold():
    current = settings.AggregateConfig("agg1", lb_ceilings={"cpu": 30.0, "ram": None,
                                                            "net": None, "hugepages": None})
    with pytest.raises(exception.InvalidField) as caught:
        settings.validate_aggregate_config(current, {"lb_overload_threshold": 100})
    assert caught.value.field == "lb_overload_threshold"


def test_failover_reserve_from_the_command_line_is_coerced_and_zero_turns_it_off():
    current = settings.AggregateConfig("agg1")
    assert settings.validate_aggregate_config(current, {"ha_failover_reserve": "2"}).ha_failover_reserve == 2
    assert settings.validate_aggregate_config(current, {"ha_failover_reserve": 0}).ha_failover_reserve == 0


def test_the_default_thresholds_are_those_of_the_default_lb_level():
    config = settings.AggregateConfig("agg1")
    assert config.lb_level == settings.DEFAULT_LB_LEVEL == 3 and config.lb_level_overridden == ()


@pytest.mark.parametrize("level", sorted(settings.LB_LEVELS))
def test_choosing_an_lb_level_writes_its_thresholds_and_overrides_nothing(level):
    tuned = settings.validate_aggregate_config(settings.AggregateConfig("agg1"), {"lb_overload_threshold": 85})
    chosen = settings.validate_aggregate_config(tuned, {"lb_level": level})
    assert {name: getattr(chosen, name) for name in settings.LB_LEVELS[level]} == settings.LB_LEVELS[level]
    assert chosen.lb_level == level and chosen.lb_level_overridden == ()


def test_a_threshold_given_with_the_level_wins_and_shows_as_overridden():
    chosen = settings.validate_aggregate_config(settings.AggregateConfig("agg1"),
                                                {"lb_level": "2", "lb_target_max_load": 75})
    assert (chosen.lb_level, chosen.lb_overload_threshold, chosen.lb_target_max_load) == (2, 90.0, 75.0)
    assert chosen.lb_level_overridden == ("lb_target_max_load",)


def test_choosing_a_level_leaves_the_presets_unshared():
    chosen = settings.validate_aggregate_config(settings.AggregateConfig("agg1"), {"lb_level": 4})
    assert chosen.lb_ceilings == settings.LB_LEVELS[4]["lb_ceilings"]
    assert chosen.lb_ceilings is not settings.LB_LEVELS[4]["lb_ceilings"]
