"""Nova scheduler filter emulations, one module per filter, registered by Nova's names.

``build_filters(names, options)`` returns the filter instances of a configured list,
in order; an empty list means no filtering. ``options`` maps a filter name to the
keyword arguments of its constructor (its nova.conf options).
"""

from keyvrm.scheduling.filters import (  # noqa: F401  (registration by import)
    aggregate_image_properties_isolation,
    aggregate_instance_extra_specs,
    aggregate_multitenancy_isolation,
    aggregate_type_affinity,
    compute,
    compute_capabilities,
    image_props,
    isolated_hosts,
    num_instances,
    numa_topology,
    server_group,
    same_different_host,
)
from keyvrm.scheduling.filters.base import HostFilter, registered


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
