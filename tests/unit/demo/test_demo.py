"""keyvrm-demo end to end on a small region: the JSON summary reports the evacuation and the plot exists."""

import io
import json
import os

from keyvrm.cmd import demo


def test_demo_json_summary_reports_the_dead_host_recovered(tmp_path):
    out = io.StringIO()
    state = "/dev/shm" if os.path.isdir("/dev/shm") else str(tmp_path)
    state = os.path.join(state, "keyvrm-demo-test-%d" % os.getpid())
    plot_path = str(tmp_path / "demo.png")
    assert demo.main(["--json", "--hosts", "10", "--speed", "120", "--duration", "660",
                      "--state-path", state, "--plot", plot_path], out=out) == 0
    summary = json.loads(out.getvalue().strip().splitlines()[-1])
    assert summary["cycles"] >= 3
    assert summary["vms_evacuated"] >= 1 and summary["vms_left_behind"] == 0
    assert summary["time_to_recovery_s"]["cmp-00002"] > 0
    assert summary["recommendations_by_status"].get("succeeded", 0) >= summary["vms_evacuated"]
    assert set(summary["events_by_state"]) <= {"healthy", "warning", "error", "executing", "generating",
                                               "generated", "manual_action", "created"}
    assert os.path.getsize(plot_path) > 1000


def test_demo_refuses_a_region_too_small_for_its_scenario(tmp_path):
    assert demo.main(["--json", "--hosts", "4", "--state-path", str(tmp_path)], out=io.StringIO()) == 2
