"""Django settings of Horizon with the KeyVRM plugin for the browser tests and tools/horizon-demo.sh.

Horizon's own settings, then: Keystone from $KEYVRM_HORIZON_KEYSTONE_URL, every file
Horizon writes inside $KEYVRM_HORIZON_DIR, sessions in a LocMem cache large enough not
to evict them, stylesheets compiled at request time (DEBUG with offline compression fails).
The regions come from the Keystone catalog (Horizon's region selector). The reader role is
one of Horizon's admin roles (dashboard/README.rst), and identity's admin_required policy
honours those roles (horizon-policy/identity/admin-roles.yaml says why it must be told so): a
reader sees Admin -> KeyVRM in the navigation, without change buttons.
"""

import os

from openstack_dashboard import enabled as horizon_enabled
from openstack_dashboard.settings import *  # noqa: F401,F403
from openstack_dashboard.settings import HORIZON_CONFIG
from openstack_dashboard.settings import POLICY_DIRS
from openstack_dashboard.utils import settings as settings_utils

import keyvrm_dashboard.enabled

WORKDIR = os.environ["KEYVRM_HORIZON_DIR"]
OPENSTACK_KEYSTONE_URL = os.environ["KEYVRM_HORIZON_KEYSTONE_URL"]
SECRET_KEY = "keyvrm-browser-tests-%s" % os.path.basename(WORKDIR)
DEBUG = True
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
OPENSTACK_ENDPOINT_TYPE = "publicURL"
OPENSTACK_KEYSTONE_ADMIN_ROLES = ["admin", "reader"]
POLICY_DIRS = dict(POLICY_DIRS, identity=[os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "horizon-policy", "identity")])
SESSION_ENGINE = "django.contrib.sessions.backends.cache"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                      "OPTIONS": {"MAX_ENTRIES": 100000}}}
COMPRESS_ENABLED = False
COMPRESS_OFFLINE = False
COMPRESS_ROOT = os.path.join(WORKDIR, "static")
STATIC_ROOT = COMPRESS_ROOT
MEDIA_ROOT = os.path.join(WORKDIR, "media")

INSTALLED_APPS = list(INSTALLED_APPS)  # noqa: F405
settings_utils.update_dashboards([horizon_enabled, keyvrm_dashboard.enabled], HORIZON_CONFIG, INSTALLED_APPS)
INSTALLED_APPS = list(dict.fromkeys(INSTALLED_APPS))  # Horizon's own enabled files were read twice
