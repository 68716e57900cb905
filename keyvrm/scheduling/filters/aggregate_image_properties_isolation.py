"""AggregateImagePropertiesIsolation: image properties match the aggregate's same-named keys."""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register


@register
class AggregateImagePropertiesIsolation(HostFilter):
    """Image properties named like aggregate keys must take one of the aggregate's values.

    ``namespace``/``separator`` restrict the keys considered, as Nova's
    ``aggregate_image_properties_isolation_namespace``/``_separator``.
    """

    def __init__(self, namespace=None, separator="."):
        self.prefix = (namespace + separator) if namespace else None

    def rejection(self, host_state, request):
        props = request.image_properties
        for key, options in host_state.aggregate_metadata.items():
            if self.prefix and not key.startswith(self.prefix):
                continue
            value = props.get(key)
            if value and str(value) not in options:
                return "image %s=%s, aggregate allows %s" % (
                    key, value, ",".join(sorted(options)))
        return None
