"""The VMs panel, shown when the catalog has KeyVRM's service."""

from django.utils.translation import gettext_lazy as _
import horizon


class VMs(horizon.Panel):
    name = _("VMs")
    slug = 'keyvrm_vms'
    permissions = ('openstack.services.vm-resource-manager',)
