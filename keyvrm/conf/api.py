"""[api] options: the keyvrm-api WSGI service."""

from oslo_config import cfg

GROUP = "api"

opts = [
    cfg.HostAddressOpt("host", default="127.0.0.1", help="Address keyvrm-api listens on."),
    cfg.PortOpt("port", default=9877, help="TCP port keyvrm-api listens on."),
    cfg.StrOpt("auth_strategy", default="keystone", choices=["keystone", "noauth"],
               help="keystone: validate tokens with keystonemiddleware auth_token; "
                    "noauth: trust the caller (embedded single-user default only)."),
    cfg.IntOpt("max_limit", default=1000, min=1,
               help="Largest page a list call returns, whatever `limit` asks for."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
