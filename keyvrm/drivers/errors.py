"""Errors raised by every driver, shaped so the executor can classify them.

``DriverUnavailable``: the backend did not answer (timeout, connection refused, 503 burst
seen as an outage); worth retrying later. ``CloudError``: the cloud answered with an
HTTP error; ``status_code`` and ``message`` are Nova's (or Neutron's/Cinder's) own, so
a caller can tell "refused, do not insist" (4xx) from "try again" (5xx).
``FencingError``: a fencer answered but refused to fence.
"""

from __future__ import annotations

from typing import Optional

from keyvrm.exception import KeyVRMError


class DriverError(KeyVRMError):
    """Base of driver errors; ``retryable`` says whether trying again may help."""

    code = "driver_error"
    http_status = 502
    retryable = False


class DriverUnavailable(DriverError):
    """The backend could not be reached or did not answer in time."""

    code = "driver_unavailable"
    http_status = 503
    retryable = True


class CloudError(DriverError):
    """An HTTP error answer of a cloud API (Nova, Neutron, Cinder, Placement).

    ``status_code`` is the HTTP status the API returned (400, 404, 409, 503, ...);
    ``cloud_code`` an optional machine code of ours naming the case (e.g.
    ``service_in_use``) so callers do not parse messages.
    """

    code = "cloud_error"

    def __init__(self, status_code: int, message: str, cloud_code: Optional[str] = None):
        super().__init__(message)
        self.status_code = status_code
        self.cloud_code = cloud_code

    @property
    def retryable(self) -> bool:
        """5xx and 409 (a transient state conflict) may pass on a later try; 4xx do not."""
        return self.status_code >= 500 or self.status_code == 409

    def __repr__(self):
        return f"CloudError({self.status_code}, {self.message!r}, {self.cloud_code!r})"


class NotFoundInCloud(CloudError):
    """The cloud does not know the named server, host, migration, port or attachment."""

    def __init__(self, message: str, cloud_code: Optional[str] = "not_found"):
        super().__init__(404, message, cloud_code)


class FencingError(DriverError):
    """A fencer (BMC, Ceph) answered and refused the fencing request."""

    code = "fencing_failed"
