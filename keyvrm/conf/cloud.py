"""[cloud] options: how the OpenStack cloud driver reaches Keystone, Nova, Placement and the rest.

The keystoneauth auth plugin (``auth_type`` and the plugin's own options, e.g.
``password``'s ``auth_url``/``username``/...) and session options (``cafile``,
``insecure``, ``timeout``, ...) are keystoneauth's own, registered through
``keystoneauth1.loading``; ``auth_type = none`` with endpoint overrides reaches a
Keystone-less cloud (a test cloud).
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "cloud"

_own_opts = [
    cfg.StrOpt("region_name", default="", help="Keystone region of the endpoints (empty: any)."),
    cfg.StrOpt("interface", default="internal", choices=["public", "internal", "admin"],
               help="Endpoint interface taken from the service catalog."),
    cfg.StrOpt("compute_endpoint_override", default="", help="Nova URL instead of the catalog's."),
    cfg.StrOpt("placement_endpoint_override", default="",
               help="Placement URL instead of the catalog's."),
    cfg.StrOpt("image_endpoint_override", default="", help="Glance URL instead of the catalog's."),
    cfg.StrOpt("network_endpoint_override", default="", help="Neutron URL instead of the catalog's."),
    cfg.StrOpt("block_storage_endpoint_override", default="",
               help="Cinder URL instead of the catalog's."),
    cfg.FloatOpt("migration_record_wait", default=30.0, min=1.0,
                 help="Seconds an accepted evacuation or live migration may take to show its "
                      "migration record (Nova's conductor writes it after the API answers)."),
]

opts = (_own_opts + ks_loading.get_session_conf_options()
        + ks_loading.get_auth_common_conf_options()
        + ks_loading.get_auth_plugin_conf_options("password"))


def register_opts(conf):
    conf.register_opts(_own_opts, group=GROUP)
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)
