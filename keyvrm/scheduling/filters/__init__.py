"""Nova scheduler filter emulations, one module per filter, registered by Nova's names.

``build_filters(names, options)`` returns the filter instances of a configured list,
in order; an empty list means no filtering. ``options`` maps a filter name to the
keyword arguments of its constructor (its nova.conf options).
"""

# Importing a filter module registers its filters.
from keyvrm.scheduling.filters import aggregate_image_properties_isolation  # noqa: F401
from keyvrm.scheduling.filters import aggregate_instance_extra_specs  # noqa: F401
from keyvrm.scheduling.filters import aggregate_multitenancy_isolation  # noqa: F401
from keyvrm.scheduling.filters import aggregate_type_affinity  # noqa: F401
from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import registered
from keyvrm.scheduling.filters import compute  # noqa: F401
from keyvrm.scheduling.filters import compute_capabilities  # noqa: F401
from keyvrm.scheduling.filters import image_props  # noqa: F401
from keyvrm.scheduling.filters import isolated_hosts  # noqa: F401
from keyvrm.scheduling.filters import num_instances  # noqa: F401
from keyvrm.scheduling.filters import numa_topology  # noqa: F401
from keyvrm.scheduling.filters import same_different_host  # noqa: F401
from keyvrm.scheduling.filters import server_group  # noqa: F401


def filter_names() -> tuple:
    """Names of every filter KeyVRM emulates, sorted."""
    return tuple(sorted(registered()))


def build_filters(names, options=None) -> tuple:
    """Instantiate the filters named in ``names`` (order kept), with per-filter options.

    Raises KeyError naming an unknown filter.
    """
    options = options or {}
    classes = registered()
    filters = []
    for name in names:
        if name not in classes:
            raise KeyError("unknown Nova filter %r" % (name,))
        filters.append(classes[name](**options.get(name, {})))
    return tuple(filters)


__all__ = ["HostFilter", "build_filters", "filter_names"]
