"""Placement reads with a request count that does not grow with the number of hosts.

Placement has no list-level read of inventories, traits or usages: they are per provider
(``/resource_providers/{uuid}/inventories|traits|usages``). This reader replaces them:

- ``GET /resource_providers`` (one request) names every provider with its ``generation``;
- inventories and traits are cached per provider and re-read only when its generation
  moved (Placement bumps it on every inventory and trait write, so a cached entry with
  the same generation is exact; allocation writes bump it too: a spurious re-read);
- usages come from one ``GET /allocation_candidates?resources=VCPU:1`` whose
  ``provider_summaries`` (microversion >= 1.27) hold the ``used`` amount of every
  resource class of every provider with a free VCPU; only a provider absent from them
  (no VCPU free, or no VCPU at all) costs a ``/usages`` read.

The harvest asks for traits (with the hypervisors) and for inventories at the same time:
each lists the providers, and a provider both need is read once, by whichever asks first
(the other waits for that read). So a steady cycle costs 3 requests whatever the size
(two listings and the allocation candidates); the first cycle, 3 + 2 x providers; after
that, 2 per provider whose generation changed plus one per full provider.
Microversion 1.39 (the newest Placement 16 serves; nothing here needs more than 1.29).
"""

from __future__ import annotations

import concurrent.futures
import threading

from keyvrm.drivers.cloud import openstack_http as http
from keyvrm.model import snapshot as m

MICROVERSION = "1.39"


class PlacementReader:
    """Reads providers, inventories, traits and usages through the Placement proxy.

    ``proxy_factory()`` returns the proxy (its first call runs version discovery).
    """

    def __init__(self, proxy_factory, counter=None, workers: int = 8):
        self._proxy_factory = proxy_factory
        self._counter = counter
        self._workers = workers
        self._lock = threading.Lock()
        self._cache = {}  # uuid -> (generation, inventories body, traits tuple)
        self._reading = {}  # (uuid, generation) -> Future of (inventories body, traits tuple)

    def _get(self, path, params=None):
        return http.call(self._proxy_factory(), "GET", path, microversion=MICROVERSION, params=params,
                         counter=self._counter)

    def providers(self) -> list:
        """Every resource provider: dicts with ``uuid``, ``name``, ``generation``."""
        return self._get("/resource_providers")["resource_providers"]

    def _details(self, provider) -> tuple:
        """(inventories body, traits) at the listed generation: cached, being read, or read now."""
        uuid, generation = provider["uuid"], provider["generation"]
        key = (uuid, generation)
        with self._lock:
            cached = self._cache.get(uuid)
            if cached and cached[0] == generation:
                return cached[1], cached[2]
            reading = self._reading.get(key)
            if reading is None:
                reading = self._reading[key] = concurrent.futures.Future()
                mine = True
            else:
                mine = False
        if not mine:
            return reading.result()
        try:
            inventories = self._get(f"/resource_providers/{uuid}/inventories")["inventories"]
            traits = tuple(sorted(self._get(f"/resource_providers/{uuid}/traits")["traits"]))
        except BaseException as exc:  # the waiters get it too
            with self._lock:
                del self._reading[key]
            reading.set_exception(exc)
            raise
        with self._lock:
            self._cache[uuid] = (generation, inventories, traits)
            del self._reading[key]
        reading.set_result((inventories, traits))
        return inventories, traits

    def details(self, providers) -> dict:
        """uuid -> (inventories body, traits), re-reading only moved providers (in parallel)."""
        with concurrent.futures.ThreadPoolExecutor(self._workers) as pool:
            return dict(zip((p["uuid"] for p in providers), pool.map(self._details, providers)))

    def usages(self, providers) -> dict:
        """uuid -> {resource class: used}, from allocation candidates plus misses."""
        body = self._get("/allocation_candidates", {"resources": f"{m.VCPU}:1"})
        summaries = body.get("provider_summaries", {})
        out = {uuid: {rc: int(v.get("used", 0)) for rc, v in s.get("resources", {}).items()}
               for uuid, s in summaries.items()}
        missing = [p["uuid"] for p in providers if p["uuid"] not in out]

        def read(uuid):
            return self._get(f"/resource_providers/{uuid}/usages")["usages"]

        with concurrent.futures.ThreadPoolExecutor(self._workers) as pool:
            out.update(zip(missing, pool.map(read, missing)))
        return out

    def inventories(self) -> dict:
        """Provider name -> resource class -> ``Inventory`` with its usage."""
        providers = self.providers()
        details = self.details(providers)
        usages = self.usages(providers)
        return {p["name"]: _inventories(details[p["uuid"]][0], usages.get(p["uuid"], {}))
                for p in providers}

    def host_inventories(self, name: str) -> dict:
        """Resource class -> ``Inventory`` of the provider named ``name`` ({} if none).

        Two requests (the provider by name, its usages) when its inventories are cached at
        its generation, four otherwise (its inventories and traits too): never a region read.
        """
        found = self._get("/resource_providers", {"name": name})["resource_providers"]
        if not found:
            return {}
        inventories, _traits = self._details(found[0])
        return _inventories(inventories, self._get(f"/resource_providers/{found[0]['uuid']}/usages")["usages"])

    def traits(self) -> dict:
        """Provider name -> sorted traits."""
        providers = self.providers()
        details = self.details(providers)
        return {p["name"]: details[p["uuid"]][1] for p in providers}


def _inventories(inventories: dict, used: dict) -> dict:
    """Placement inventory records and usages -> resource class -> ``Inventory``."""
    return {rc: m.Inventory(total=int(inv["total"]), reserved=int(inv.get("reserved", 0)),
                            allocation_ratio=float(inv.get("allocation_ratio", 1.0)),
                            max_unit=inv.get("max_unit"), used=int(used.get(rc, 0)),
                            min_unit=int(inv.get("min_unit", 1)), step_size=int(inv.get("step_size", 1)))
            for rc, inv in inventories.items()}
