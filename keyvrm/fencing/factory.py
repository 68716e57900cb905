"""Builds the fencers a deployment has from its ``[fencing]`` options and the business config.

Only the fencers ``app_config`` enables are built; credentials are read from
``[fencing] credentials_file`` only when a BMC or Ceph fencer needs them, so a
Nova-only deployment needs no credentials file.
"""

import dataclasses
from typing import Callable
from typing import Optional

from keyvrm.drivers.fencing import ceph
from keyvrm.fencing import base
from keyvrm.fencing import blocklist
from keyvrm.fencing import bmc
from keyvrm.fencing import credentials as creds
from keyvrm.fencing import nova
from keyvrm.model import settings


@dataclasses.dataclass(frozen=True)
class Fencers:
    """The keyword arguments ``step.fence_host`` takes: the fencers this deployment has."""

    ceph: Optional[base.Fencer] = None
    bmc: Optional[Callable[[str], base.Fencer]] = None
    nova: Optional[base.Fencer] = None

    def as_kwargs(self) -> dict:
        return {"ceph": self.ceph, "bmc": self.bmc, "nova": self.nova}


def fencers_from_conf(conf, app_config: settings.AppConfig, cloud) -> Fencers:
    """The enabled fencers, configured from ``conf.fencing`` and ``app_config``.

    ``cloud`` is the cloud driver the Nova fencer forces services down through.
    """
    needs_credentials = app_config.ha_fence_bmc or app_config.ha_fence_ceph
    credentials = creds.load_credentials(conf.fencing.credentials_file) if needs_credentials else {}
    ceph_fencer = None
    if app_config.ha_fence_ceph:
        cluster = ceph.CephBlocklistDriver(conf.fencing.ceph_conf,
                                           client_name=conf.fencing.ceph_client_name)
        ceph_fencer = blocklist.BlocklistFencer(cluster, creds.ceph_addresses_of(credentials),
                                                expire_s=float(conf.fencing.ceph_blocklist_expire))
    bmc_fencers = None
    if app_config.ha_fence_bmc:
        bmc_fencers = bmc.BmcFencers(credentials, app_config.ha_power_check_timeout,
                                     poll_interval_s=conf.fencing.power_poll_interval,
                                     request_timeout_s=float(conf.fencing.bmc_request_timeout))
    nova_fencer = nova.NovaFencer(cloud) if app_config.ha_fence_nova else None
    return Fencers(ceph=ceph_fencer, bmc=bmc_fencers, nova=nova_fencer)
