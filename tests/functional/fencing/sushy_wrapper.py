"""Runs the sushy-tools emulator with a deterministic fake power delay (a test peer).

``KEYVRM_SUSHY_POWER_DELAY_S`` replaces the fake driver's random 1-11 s delay;
``KEYVRM_SUSHY_FAIL_RESET=1`` makes every power change raise, so the reset action
answers HTTP 500. ``KEYVRM_SUSHY_SESSIONS=1`` adds a Redfish SessionService
(``redfish_sessions.py``); ``=only`` also refuses basic auth. Any other arguments go to
``sushy-emulator``.
"""

import os
import sys
import types

from sushy_tools.emulator import main as emulator_main
from sushy_tools.emulator.resources.systems import fakedriver

import redfish_sessions


def _patch():
    delay_s = int(os.environ.get("KEYVRM_SUSHY_POWER_DELAY_S", "0"))
    fakedriver.random = types.SimpleNamespace(randint=lambda low, high: delay_s)
    if os.environ.get("KEYVRM_SUSHY_FAIL_RESET") == "1":
        def broken_set_power_state(self, identity, state):
            raise RuntimeError("BMC firmware fault (injected)")
        fakedriver.FakeDriver.set_power_state = broken_set_power_state
    sessions = os.environ.get("KEYVRM_SUSHY_SESSIONS", "0")
    if sessions in ("1", "only"):
        configure = emulator_main.Application.configure

        def configure_with_sessions(app, config_file=None, extra_config=None):
            configure(app, config_file, extra_config)
            app.wsgi_app = redfish_sessions.SessionServiceMiddleware(
                app.wsgi_app, app.config["SUSHY_EMULATOR_AUTH_FILE"],
                sessions_only=sessions == "only")
        emulator_main.Application.configure = configure_with_sessions


if __name__ == "__main__":
    _patch()
    sys.exit(emulator_main.main())
