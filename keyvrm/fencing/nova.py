"""Nova fencer: forces the host's compute service down, disables it with a reason, confirms.

The cloud driver passed in needs three methods (the CloudDriver of keyvrm.drivers.cloud
has the first two; ``get_service`` is what the confirmation reads):
``force_down_service(host)``, ``disable_service(host, reason)`` and ``get_service(host)``,
each returning a ``keyvrm.model.snapshot.ComputeService`` (or anything with ``forced_down``,
``status`` and ``disabled_reason``). Both calls are idempotent in Nova, so a repeat is harmless.
"""

import time

from keyvrm.fencing import base
from keyvrm.model import snapshot

DEFAULT_REASON = "KeyVRM HA: host fenced"


class NovaFencer(base.Fencer):
    """Fences in Nova; confirmed only when a fresh read shows forced down and disabled."""

    name = "nova"

    def __init__(self, cloud, reason: str = DEFAULT_REASON, clock: base.Clock = time.time,
                 sleep: base.Sleep = time.sleep):
        super().__init__(clock, sleep)
        self._cloud = cloud
        self._reason = reason

    def _fence(self, host):
        self._cloud.force_down_service(host)
        self._cloud.disable_service(host, self._reason)
        service = self._cloud.get_service(host)
        if not service.forced_down:
            return False, "compute service is not forced down"
        if service.status != snapshot.SERVICE_DISABLED:
            return False, f"compute service status is {service.status}"
        return True, f"compute service forced down and disabled ({service.disabled_reason})"
