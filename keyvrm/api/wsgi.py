"""WSGI entry point for mod_wsgi / uWSGI: ``application``, configured like every KeyVRM command.

Config files: ``KEYVRM_CONFIG_FILE`` if set, else oslo.config's defaults for project
``keyvrm`` (``/etc/keyvrm/keyvrm.conf``). The command line belongs to the server.
"""

from keyvrm import noeventlet  # noqa: F401  (before anything that would import eventlet)

from keyvrm.api import app as api_app
from keyvrm import service


def init_application():
    """Parse the config and build the app."""
    return api_app.build_app(service.prepare([]))


application = init_application()
