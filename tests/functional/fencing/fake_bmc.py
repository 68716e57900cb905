"""A fake IPMI BMC on pyghmi's server (a test peer), bound to 127.0.0.1.

Usage: ``fake_bmc.py PORT USER PASSWORD POWER_STATE OFF_MODE``; ``OFF_MODE`` is
``immediate`` (power off applies at once) or ``never`` (the BMC acknowledges power off
but keeps reporting on). Its open-session response refuses non-SHA-1 authentication
algorithms (RMCP+ status 0x11) so that clients asking for SHA-256 fall back to SHA-1,
the only one pyghmi's server implements.
"""

import sys

from pyghmi.ipmi import bmc
from pyghmi.ipmi.private import serversession

RMCP_INVALID_AUTH_ALGORITHM = 0x11
AUTH_ALGORITHM_HMAC_SHA1 = 1


class Sha1OnlySession(serversession.ServerSession):
    """Server session that says 0x11 to any authentication algorithm but HMAC-SHA1."""

    def create_open_session_response(self, request):
        auth_algorithm = request[12] if len(request) > 12 else None
        if auth_algorithm != AUTH_ALGORITHM_HMAC_SHA1:
            return bytearray([request[0], RMCP_INVALID_AUTH_ALGORITHM, 0, 0]) + request[4:8]
        return super().create_open_session_response(request)


class FakeBmc(bmc.Bmc):
    """Holds a power state in memory; power off follows ``off_mode``."""

    def __init__(self, authdata, port, power_state, off_mode):
        super().__init__(authdata, port=port, address="127.0.0.1")
        self.power_state = power_state
        self.off_mode = off_mode

    def get_power_state(self):
        return self.power_state

    def power_off(self):
        if self.off_mode == "immediate":
            self.power_state = "off"

    def power_on(self):
        self.power_state = "on"


def main(argv):
    port, user, password, power_state, off_mode = argv
    serversession.ServerSession = Sha1OnlySession
    fake = FakeBmc({user: password}, int(port), power_state, off_mode)
    print("ready", flush=True)
    fake.listen()


if __name__ == "__main__":
    main(sys.argv[1:])
