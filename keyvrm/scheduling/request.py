"""What a planner asks the filters about: one VM to place, with everything they read."""

from __future__ import annotations

import dataclasses
from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.scheduling.capacity import ResourceRequest


@dataclasses.dataclass(frozen=True, slots=True)
class PlacementRequest:
    """One VM looking for a host.

    ``group_hosts`` are the hosts where the other members of the VM's server group are
    counted now (hosts being evacuated excluded); ``hints`` are its scheduler hints.
    """

    vm: m.VM
    resources: ResourceRequest
    image: Optional[m.Image] = None
    server_group: Optional[m.ServerGroup] = None
    group_hosts: frozenset = frozenset()

    @property
    def hints(self) -> dict:
        return self.vm.scheduler_hints

    @property
    def image_properties(self) -> dict:
        return self.image.properties if self.image is not None else {}
