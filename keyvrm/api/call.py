"""One API call as handlers see it: the request, its validated inputs and microversion, who asks, and the services."""

import dataclasses

from oslo_log import log as logging
import oslo_messaging

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Services:
    """What handlers work with: the database, the engine RPC client (or None), the config."""

    db: object
    rpc: object
    conf: object
    enforcer: object


@dataclasses.dataclass(frozen=True)
class Call:
    """One request as a handler sees it; ``version`` is the microversion it is served at."""

    request: object
    services: Services
    context: object
    query: dict
    body: object
    version: object

    @property
    def db(self):
        return self.services.db

    @property
    def conf(self):
        return self.services.conf

    @property
    def who(self):
        """Who makes the call, for audit and journals: user name (or id) and project or system."""
        ctx = self.context
        user = ctx.user_name or ctx.user_id or "anonymous"
        scope = "system" if ctx.system_scope else (ctx.project_name or ctx.project_id)
        return "%s@%s" % (user, scope) if scope else user

    def notify_engine(self, method, **kwargs):
        """Cast ``method`` to the engine; False (logged) if there is no engine client or it failed.

        Callers record the request in the database first, so a failed cast loses nothing:
        the engine finds the request there on its next pass.
        """
        rpc = self.services.rpc
        if rpc is None:
            return False
        try:
            getattr(rpc, method)(self.context, **kwargs)
        except oslo_messaging.MessagingException as exc:
            LOG.warning("engine not notified of %s %s: %s", method, kwargs, exc)
            return False
        return True
