"""Who is calling: keystonemiddleware ``auth_token``, or ``noauth`` for the embedded default.

Either way the identity reaches the application as keystonemiddleware's headers, from
which oslo.context builds the request context the policy rules check.
"""

from keystonemiddleware import auth_token
from oslo_context import context as oslo_context

NOAUTH_USER = "noauth-admin"


class NoAuth:
    """Trust every caller as a system-scoped admin (single-user embedded deployments only).

    ``X-User-Name`` / ``X-User-Id`` of the request, if given, name the caller in the audit.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        for header in ("HTTP_X_IDENTITY_STATUS", "HTTP_X_ROLES", "HTTP_OPENSTACK_SYSTEM_SCOPE",
                       "HTTP_X_PROJECT_ID", "HTTP_X_PROJECT_NAME", "HTTP_X_IS_ADMIN_PROJECT"):
            environ.pop(header, None)
        environ.setdefault("HTTP_X_USER_NAME", environ.get("HTTP_X_USER_ID", NOAUTH_USER))
        environ.update(HTTP_X_IDENTITY_STATUS="Confirmed", HTTP_X_ROLES="admin,member,reader",
                       HTTP_OPENSTACK_SYSTEM_SCOPE="all")
        return self.application(environ, start_response)


def protect(application, conf):
    """``application`` behind the authentication ``[api] auth_strategy`` selects."""
    if conf.api.auth_strategy == "noauth":
        return NoAuth(application)
    return auth_token.AuthProtocol(application, {"oslo_config_config": conf})


def request_context(environ):
    """The oslo.context of a request that passed authentication."""
    return oslo_context.RequestContext.from_environ(environ)
