"""The Hypervisors panel, shown when the catalog has KeyVRM's service."""

from django.utils.translation import gettext_lazy as _
import horizon


class Hypervisors(horizon.Panel):
    name = _("Hypervisors")
    slug = 'keyvrm_hypervisors'
    permissions = ('openstack.services.vm-resource-manager',)
