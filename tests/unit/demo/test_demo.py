"""keyvrm-demo end to end on a small region: the JSON summary reports the evacuation and the plot exists."""

import io
import json
import os
import signal
import socket
import sys
import threading
import time
import urllib.request

import webob

from keyvrm.api import auth
from keyvrm.cmd import demo
from keyvrm.db import api as db_api
from keyvrm.demo import embedded


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
    split = summary["evacuations"]["cmp-00002"]["split_s"]
    assert split["nova_verdict"] > 0 and split["keyvrm"] >= 0 and split["rebuild"] > 0
    assert abs(sum(split.values()) - summary["time_to_recovery_s"]["cmp-00002"]) <= 0.2
    assert summary["recommendations_by_status"].get("succeeded", 0) >= summary["vms_evacuated"]
    assert set(summary["events_by_state"]) <= {"healthy", "warning", "error", "executing", "generating",
                                               "generated", "manual_action", "created"}
    assert os.path.getsize(plot_path) > 1000


def test_demo_refuses_a_region_too_small_for_its_scenario(tmp_path):
    assert demo.main(["--json", "--hosts", "4", "--state-path", str(tmp_path)], out=io.StringIO()) == 2


def _state(tmp_path):
    base = "/dev/shm" if os.path.isdir("/dev/shm") else str(tmp_path)
    return os.path.join(base, "keyvrm-demo-test-%d-%s" % (os.getpid(), tmp_path.name))


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_keep_running_serves_the_api_during_the_run_and_sigterm_ends_it_with_a_summary(tmp_path):
    port = _free_port()
    answered = []

    def operator():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not answered:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/v1/cycles" % port, timeout=2) as reply:
                    answered.append(json.load(reply))
            except OSError:
                time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=operator, daemon=True).start()
    out = io.StringIO()
    assert demo.main(["--json", "--keep-running", "--api-port", str(port), "--hosts", "10", "--speed", "60",
                      "--state-path", _state(tmp_path), "--plot", str(tmp_path / "p.png")], out=out) == 0
    assert answered and "cycles" in answered[0]  # the CLI's API answered while the region ran
    summary = json.loads(out.getvalue().strip().splitlines()[-1])
    assert summary["simulated_s"] < 3600  # stopped by SIGTERM, long before the scenario's end


def test_config_file_prepares_business_config_and_a_bad_field_is_named(tmp_path, capsys):
    state = _state(tmp_path)
    good = tmp_path / "good.yaml"
    good.write_text("aggregates:\n  agg-002:\n    lb_period: 120\n    no_op_mode: true\n"
                    "    no_op_reason: maintenance window\n")
    assert demo.main(["--json", "--hosts", "10", "--speed", "600", "--duration", "120", "--config", str(good),
                      "--state-path", state, "--plot", str(tmp_path / "p.png")], out=io.StringIO()) == 0
    db = db_api.Database("sqlite:///%s/keyvrm-demo.sqlite" % state)
    agg = db_api.get_aggregate_config(db, "agg-002")
    db.dispose()
    assert (agg.lb_period, agg.no_op_mode, agg.no_op_reason) == (120, True, "maintenance window")
    bad = tmp_path / "bad.yaml"
    bad.write_text("aggregates:\n  agg-002:\n    lb_period: soon\n")
    assert demo.main(["--json", "--hosts", "10", "--config", str(bad), "--state-path", state],
                     out=io.StringIO()) == 2
    assert "lb_period" in capsys.readouterr().err


def test_without_matplotlib_the_demo_writes_no_picture_and_says_none(tmp_path, monkeypatch):
    from keyvrm.demo import plot
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if keyvrm[demo] were not installed
    assert plot.write_plot(str(tmp_path / "demo.png"), {}) is None
    assert not (tmp_path / "demo.png").exists()


def test_api_config_puts_the_demo_api_behind_keystone_so_a_call_without_token_is_refused(tmp_path):
    api_conf = tmp_path / "api.conf"
    api_conf.write_text("[api]\nauth_strategy = keystone\n[keystone_authtoken]\n"
                        "www_authenticate_uri = http://127.0.0.1:1/v3\nauth_url = http://127.0.0.1:1/v3\n")
    conf = embedded.engine_conf("sqlite://")
    assert conf.api.auth_strategy == "noauth"
    demo.use_api_config(conf, str(api_conf))
    protected = auth.protect(lambda environ, start: webob.Response("reached")(environ, start), conf)
    reply = webob.Request.blank("/v1/cycles").get_response(protected)
    assert reply.status_int == 401
    assert "127.0.0.1:1/v3" in reply.headers["WWW-Authenticate"]
