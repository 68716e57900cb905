"""The dashboard's modules that import nothing, read from their files by the server's tests (no Django here)."""

import importlib.util
import os

DASHBOARD_PACKAGE = os.path.join(os.path.dirname(__file__), "..", "..", "dashboard", "keyvrm_dashboard")


def dashboard_module(name):
    """The module ``keyvrm_dashboard/<name>.py`` loaded from its file, without importing the package."""
    spec = importlib.util.spec_from_file_location("keyvrm_dashboard_" + name,
                                                  os.path.join(DASHBOARD_PACKAGE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
