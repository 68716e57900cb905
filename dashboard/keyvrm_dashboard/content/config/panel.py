"""The Global configuration panel, shown when the catalog has KeyVRM's service."""

from django.utils.translation import gettext_lazy as _
import horizon


class GlobalConfig(horizon.Panel):
    name = _("Global configuration")
    slug = 'keyvrm_config'
    permissions = ('openstack.services.vm-resource-manager',)
