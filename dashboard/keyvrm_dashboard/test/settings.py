"""Horizon's test settings with the KeyVRM panel group enabled under Admin."""

from openstack_dashboard.test.settings import *  # noqa: F403,H303

from openstack_dashboard.utils import settings as settings_utils

import keyvrm_dashboard.enabled

# Horizon's settings already read its own enabled files; read ours into fresh structures
# and add what they register (reading Horizon's twice would list its apps twice).
_keyvrm_config = {}
_keyvrm_apps = []
settings_utils.update_dashboards([keyvrm_dashboard.enabled], _keyvrm_config, _keyvrm_apps)
HORIZON_CONFIG['panel_customization'] += _keyvrm_config['panel_customization']  # noqa: F405
HORIZON_CONFIG['plugins'] += _keyvrm_config['plugins']  # noqa: F405
INSTALLED_APPS[0:0] = _keyvrm_apps  # noqa: F405

# Memcached is Horizon's default; LocMem with room enough that sessions are never evicted.
CACHES = {'default': {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache',
                      'OPTIONS': {'MAX_ENTRIES': 100000}}}
COMPRESS_ENABLED = False
COMPRESS_OFFLINE = False

# Horizon's Admin dashboard admits these roles; KeyVRM's policy (keyvrm_dashboard.access)
# offers changes to admins only, so a reader is let in to see and cannot change.
OPENSTACK_KEYSTONE_ADMIN_ROLES = ['admin', 'reader']

# Horizon's tests switch policy checks off; these check KeyVRM's rules as a deployment does.
# KeyVRM's is the only service with policy files (its app registers them): Keystone's and
# Nova's, which decide who sees the Admin dashboard, are not what these tests are about, and
# Horizon allows what a service without policy files would decide.
POLICY_CHECK_FUNCTION = 'openstack_auth.policy.check'
POLICY_FILES = {}
