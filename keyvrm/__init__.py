"""KeyVRM: availability and load balancing of an OpenStack region's VMs.

KeyVRM's services use native threads: oslo.service (imported by oslo.messaging) is told
to use its threading backend before anything asks for one, so eventlet is never imported.
The client alone installs without oslo.service, and then there is nothing to choose.
"""

try:
    from oslo_service import backend as _service_backend
except ImportError:  # the client and CLI plugin alone
    pass
else:
    _service_backend.register_backend_default_hook(lambda: _service_backend.BackendType.THREADING)
