"""The blocklist fencer: blocklists a host's Ceph client addresses through any ``BlocklistDriver``.

One fencer for the real cluster (``ceph`` CLI) and the simulated one: the driver adds
and lists entries, this fencer decides the fence is proven only when every address of
the host is listed after adding it.
"""

import time
from typing import Callable

from keyvrm.drivers.fencing import base as driver_base
from keyvrm.fencing import base

DEFAULT_EXPIRE_S = 7 * 24 * 3600.0


class BlocklistFencer(base.Fencer):
    """Blocklists every client address ``addresses_of(host)`` gives, confirmed by listing them."""

    name = "ceph"

    def __init__(self, driver: driver_base.BlocklistDriver, addresses_of: Callable[[str], list],
                 expire_s: float = DEFAULT_EXPIRE_S, clock: base.Clock = time.time,
                 sleep: base.Sleep = time.sleep):
        super().__init__(clock, sleep)
        self._driver = driver
        self._addresses_of = addresses_of
        self._expire_s = expire_s

    def _fence(self, host):
        addresses = list(self._addresses_of(host))
        if not addresses:
            return False, "no Ceph client addresses known for the host"
        for address in addresses:
            self._driver.add(address, self._expire_s)
        listed = self._driver.list_addresses()
        missing = [a for a in addresses if a not in listed]
        if missing:
            return False, f"not in the blocklist after adding: {', '.join(missing)}"
        return True, f"blocklisted {', '.join(addresses)}"
