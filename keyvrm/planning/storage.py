"""Where an aggregate's instance disks live, and what an evacuation does to them.

Nova decides at evacuation time whether the instance's storage is shared (API >= 2.14
has no ``onSharedStorage``): on shared storage (Ceph RBD ephemeral disks, NFS instance
paths) the evacuated VM keeps its disk; on a hypervisor's local disk Nova rebuilds it
from its image and the disk's data is lost. No Nova API says which one a cloud uses, so
the operator declares it per aggregate (``storage_mode``); until then HA does not run
there (``storage_undeclared``). Volume-backed VMs keep their root volume either way.
"""

from __future__ import annotations

from typing import Optional

from keyvrm.model import settings


def evacuation_loses_disk(vm, storage_mode: Optional[str]) -> bool:
    """Whether evacuating ``vm`` would rebuild its root disk from the image (losing its data).

    An undeclared storage mode counts as local: KeyVRM never assumes a disk survives.
    """
    return vm.image_backed and storage_mode != settings.STORAGE_SHARED
