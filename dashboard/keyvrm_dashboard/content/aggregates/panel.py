"""The Aggregates panel, shown when the catalog has KeyVRM's service."""

from django.utils.translation import gettext_lazy as _
import horizon


class Aggregates(horizon.Panel):
    name = _("Aggregates")
    slug = 'keyvrm_aggregates'
    permissions = ('openstack.services.vm-resource-manager',)
