"""tools/side_by_side.py: commands run at once, each output printed whole, a failure's status kept."""

import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "tools" / "side_by_side.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def test_both_commands_run_at_once_each_output_whole_and_the_failure_s_status_is_returned():
    slow = [sys.executable, "-c", "import time; print('slow-1'); time.sleep(1.5); print('slow-2')"]
    failing = [sys.executable, "-c", "import sys; print('fails'); sys.exit(3)"]
    result = _run("--", *slow, "--", *failing)
    assert result.returncode == 3
    out = result.stdout
    # the failing one ended first and is printed first; the slow one's lines stay together
    assert out.index("fails") < out.index("slow-1") < out.index("slow-2")
    assert "exit 3" in out and "exit 0" in out


def test_a_missing_command_is_refused():
    result = _run("--")
    assert result.returncode != 0
    assert "each after '--'" in result.stderr
