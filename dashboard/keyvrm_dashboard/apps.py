"""The Django app of keyvrm-dashboard: registers KeyVRM's policy files with Horizon when it starts."""

import os

from django.apps import AppConfig
from django.conf import settings

from keyvrm_dashboard import access

DEFAULT_POLICY_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'conf', 'default_policies',
                                   'keyvrm.yaml')
OVERRIDE_POLICY_FILE = 'keyvrm_policy.yaml'


def register_policy_files(config):
    """Add KeyVRM's service to Horizon's policy settings unless ``config`` already names it.

    DEFAULT_POLICY_FILES gets the shipped defaults (an absolute path: Horizon joins it to
    POLICY_FILES_PATH, which leaves an absolute path as it is); POLICY_FILES gets
    ``keyvrm_policy.yaml`` in POLICY_FILES_PATH, the operator's overrides, which may be absent.
    """
    config.DEFAULT_POLICY_FILES.setdefault(access.SERVICE, DEFAULT_POLICY_FILE)
    config.POLICY_FILES.setdefault(access.SERVICE, OVERRIDE_POLICY_FILE)


class KeyvrmDashboardConfig(AppConfig):
    """keyvrm-dashboard as Django knows it (Horizon adds it through ADD_INSTALLED_APPS of _4000)."""

    name = 'keyvrm_dashboard'

    def ready(self):
        """Horizon reads its policy settings at the first check, after every app is ready."""
        register_policy_files(settings)
