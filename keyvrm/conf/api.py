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
    cfg.IntOpt("threads", default=16, min=1,
               help="keyvrm-api (cheroot) worker threads started at once."),
    cfg.IntOpt("max_threads", default=64, min=1,
               help="Worker threads cheroot may grow to under load."),
    cfg.IntOpt("backlog", default=256, min=1,
               help="Listen backlog: connections the kernel queues before keyvrm-api accepts "
                    "them (a burst beyond it waits for SYN retries, seconds)."),
    cfg.IntOpt("max_request_header_size", default=65536, min=1024,
               help="Largest request header block, bytes (keystone tokens fit easily); "
                    "larger requests get 413. Bodies: [oslo_middleware] max_request_body_size."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
