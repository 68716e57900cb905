"""The flows an engine can run, by name: ``build(name, resources, store)`` makes one.

Names are the contract between MasterFlow (which dispatches) and the engine (which
runs, persists and resumes): ``master``, ``fast``, ``harvest``, ``noop``, ``ha``, ``lb``,
``ha_lb``, ``executor``. A factory takes the resources and the flow's store values
(JSON-able) and returns a TaskFlow flow whose tasks need nothing but that store.
"""

from __future__ import annotations

import importlib

from keyvrm import exception


def _factory(module: str, function: str):
    """The flow factory ``keyvrm.flows.<module>.<function>``, imported on first use."""
    def build_flow(resources, **store):
        return getattr(importlib.import_module(f"keyvrm.flows.{module}"), function)(resources, **store)
    build_flow.__name__ = f"{module}.{function}"
    return build_flow


FLOWS = {
    "master": _factory("master", "build"),
    "fast": _factory("fast", "build"),
    "harvest": _factory("harvest", "build"),
    "noop": _factory("noop", "build"),
    "ha": _factory("ha", "build"),
    "lb": _factory("lb", "build"),
    "ha_lb": _factory("ha", "build_ha_lb"),
    "executor": _factory("executor", "build"),
}


def build(name: str, resources, store: dict):
    """The TaskFlow flow registered as ``name`` for ``store``; ``InvalidField`` for an unknown name."""
    try:
        factory = FLOWS[name]
    except KeyError:
        raise exception.InvalidField("flow", f"unknown flow {name!r}; known: {', '.join(sorted(FLOWS))}")
    return factory(resources, **store)
