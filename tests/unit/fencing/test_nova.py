"""NovaFencer against an in-memory cloud double: confirmed only by a fresh service read."""


from keyvrm.fencing import nova
from keyvrm.model import snapshot


class InMemoryServices:
    """Compute services in a dict; ``ignore`` lists calls that silently do nothing."""

    def __init__(self, hosts, ignore=()):
        self.services = {h: snapshot.ComputeService(host=h) for h in hosts}
        self.ignore = set(ignore)
        self.calls = []

    def _set(self, host, **changes):
        self.services[host] = snapshot.replace(self.services[host], **changes)
        return self.services[host]

    def force_down_service(self, host, forced_down=True):
        self.calls.append(("force_down", host))
        if "force_down" in self.ignore:
            return self.services[host]
        return self._set(host, forced_down=forced_down, state=snapshot.SERVICE_DOWN)

    def disable_service(self, host, reason):
        self.calls.append(("disable", host))
        if "disable" in self.ignore:
            return self.services[host]
        return self._set(host, status=snapshot.SERVICE_DISABLED, disabled_reason=reason)

    def get_service(self, host):
        return self.services[host]


def _fencer(cloud):
    return nova.NovaFencer(cloud, reason="KeyVRM HA test", clock=lambda: 5.0,
                           sleep=lambda s: None)


def test_forced_down_and_disabled_service_is_confirmed():
    cloud = InMemoryServices(["compute-1", "compute-2"])

    result = _fencer(cloud).fence("compute-1")

    assert result.confirmed, result.message
    assert cloud.services["compute-1"].disabled_reason == "KeyVRM HA test"
    assert cloud.services["compute-2"].status == snapshot.SERVICE_ENABLED


def test_repeated_fence_is_harmless():
    cloud = InMemoryServices(["compute-1"])
    fencer = _fencer(cloud)

    assert fencer.fence("compute-1").confirmed and fencer.fence("compute-1").confirmed
    assert cloud.services["compute-1"].forced_down


def test_force_down_not_applied_is_unconfirmed():
    result = _fencer(InMemoryServices(["compute-1"], ignore={"force_down"})).fence("compute-1")

    assert not result.confirmed
    assert "not forced down" in result.message


def test_disable_not_applied_is_unconfirmed():
    result = _fencer(InMemoryServices(["compute-1"], ignore={"disable"})).fence("compute-1")

    assert not result.confirmed
    assert "status is enabled" in result.message


def test_unknown_host_is_unconfirmed_not_raised():
    result = _fencer(InMemoryServices([])).fence("compute-9")

    assert not result.confirmed
    assert "KeyError" in result.message
