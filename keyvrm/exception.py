"""Errors KeyVRM raises: each has a machine-readable code and an operator-facing message.

This module imports nothing of KeyVRM, so every layer (model included) may use it.
The API maps ``http_status`` and ``code`` to an OpenStack-style error body.
"""


class KeyVRMError(Exception):
    """Base error: ``code`` is stable and machine-readable, ``message`` is for people."""

    code = "keyvrm_error"
    http_status = 500

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self):
        return self.message


class InvalidField(KeyVRMError):
    """A value was refused; ``field`` names the field that was wrong."""

    code = "invalid_field"
    http_status = 400

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


class RequestTooLarge(KeyVRMError):
    """A request body beyond ``[oslo_middleware] max_request_body_size``."""

    code = "request_too_large"
    http_status = 413
    field = "body"


class MicroversionNotAcceptable(KeyVRMError):
    """A well-formed API microversion this server does not serve (older than its minimum or newer than its maximum)."""

    code = "microversion_not_acceptable"
    http_status = 406
    field = "OpenStack-API-Version"


class NotFound(KeyVRMError):
    code = "not_found"
    http_status = 404


class Conflict(KeyVRMError):
    code = "conflict"
    http_status = 409


class VMLocked(Conflict):
    """Another action holds the VM's lock."""

    code = "vm_locked"

    def __init__(self, vm_id, owner=None):
        detail = f" (held by {owner})" if owner else ""
        super().__init__(f"VM is locked: {vm_id}{detail}")
        self.vm_id = vm_id
        self.owner = owner


class SnapshotFormatError(KeyVRMError):
    """A stored snapshot cannot be read by this version of KeyVRM."""

    code = "snapshot_format"


class InvalidTransition(Conflict):
    """A status or state may not move from its value to the one asked for (``keyvrm.model.states``)."""

    code = "invalid_transition"

    def __init__(self, field, old, new, ident=None):
        of = f" of {ident}" if ident is not None else ""
        super().__init__(f"{field}{of} cannot move from {old} to {new}")
        self.field = field
        self.old = old
        self.new = new
