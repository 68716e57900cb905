"""Entry point of oslo-config-generator: every KeyVRM option, grouped as registered."""

from keyvrm.conf import database
from keyvrm.conf import GROUP_MODULES


def list_opts():
    """(group, options) pairs for the sample config; oslo.db's [database] options included."""
    result = []
    for module in GROUP_MODULES:
        if module is database:
            result.append((database.GROUP, database.list_opts()))
        else:
            result.append((module.GROUP, list(module.opts)))
    return result
