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
    cfg.IntOpt("max_json_depth", default=32, min=2, max=256,
               help="Deepest nesting of objects and lists a JSON request body may have "
                    "(KeyVRM's own documents nest at most 4 levels); deeper bodies get 400."),
    cfg.IntOpt("retry_after", default=5, min=1, max=3600,
               help="Seconds the Retry-After header of a 503 asks a client to wait while "
                    "the database is unavailable."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
