"""Who may change things through the panels: the role KeyVRM's API asks for changes (``admin``).

Horizon's admin roles (OPENSTACK_KEYSTONE_ADMIN_ROLES) decide who sees the Admin dashboard;
a reader let in there sees KeyVRM's tables without edit buttons, and the API refuses anyway.
"""

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from horizon import exceptions

DEFAULT_CHANGE_ROLE = 'admin'


def may_change(request):
    """Whether the user holds the role that KeyVRM's API requires for changes (setting KEYVRM_CHANGE_ROLE)."""
    wanted = getattr(settings, 'KEYVRM_CHANGE_ROLE', DEFAULT_CHANGE_ROLE).lower()
    return any(role['name'].lower() == wanted for role in request.user.roles)


class ChangersOnly(object):
    """View mixin: a user without the change role gets Horizon's NotAuthorized, not the form."""

    refused_message = _("Only administrators change things in KeyVRM.")

    def dispatch(self, request, *args, **kwargs):
        if not may_change(request):
            raise exceptions.NotAuthorized(self.refused_message)
        return super().dispatch(request, *args, **kwargs)
