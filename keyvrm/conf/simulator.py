"""[simulator] options: the embedded simulated region (demo, benchmarks, tests)."""

from oslo_config import cfg

GROUP = "simulator"

opts = [
    cfg.StrOpt("scenario", default="demo-small",
               help="Scenario run by the embedded default: a name under etc/keyvrm/scenarios/ "
                    "or a path to a YAML file."),
    cfg.FloatOpt("speed", default=60.0, min=0.0,
                 help="Simulated seconds per real second (0: as fast as possible)."),
    cfg.IntOpt("seed", default=42, help="Seed of the region's random generators."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
