"""The import graph of the keyvrm package, read from its source: layers only import downward, no package cycles.

``LAYERS`` lists KeyVRM's top-level packages (and top-level modules) from the bottom up.
A package may import only from strictly lower layers, so two packages of one layer never
import each other and no cycle between top-level packages can form. Below them, no
package (a directory) may take part in an import cycle with a package outside it. A new
top-level package must be placed in a layer before the test passes.
"""

import ast
import collections
import dataclasses
import os

import keyvrm

LAYERS = (
    ("foundation", ("keyvrm.exception", "keyvrm.clock", "keyvrm.noeventlet", "keyvrm.conf",
                    "keyvrm.policies", "keyvrm.notifications")),
    ("model", ("keyvrm.model",)),
    ("storage, driver interfaces and implementations, scheduling rules, process start-up",
     ("keyvrm.db", "keyvrm.drivers", "keyvrm.scheduling", "keyvrm.service")),
    ("planning, lifecycle, fencing, harvest, the simulated region, upgrade checks",
     ("keyvrm.planning", "keyvrm.lifecycle", "keyvrm.fencing", "keyvrm.harvest",
      "keyvrm.simulator", "keyvrm.upgradecheck")),
    ("executor", ("keyvrm.executor",)),
    ("flows", ("keyvrm.flows",)),
    ("engine", ("keyvrm.engine",)),
    ("API", ("keyvrm.api",)),
    ("demo (the embedded region)", ("keyvrm.demo",)),
    ("scenario machinery", ("keyvrm.scenarios",)),
    ("commands", ("keyvrm.cmd",)),
)
LAYER_OF = {package: index for index, (_, packages) in enumerate(LAYERS) for package in packages}
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(keyvrm.__file__)))


@dataclasses.dataclass(frozen=True)
class Import:
    """One import statement's target, as a module of keyvrm, and where it is written."""

    importer: str
    imported: str
    path: str
    line: int

    def __str__(self):
        return f"{self.path}:{self.line} imports {self.imported}"


def _module_name(path):
    name = os.path.relpath(path, SOURCE_ROOT)[:-len(".py")].replace(os.sep, ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


def _is_module(name):
    base = os.path.join(SOURCE_ROOT, *name.split("."))
    return os.path.isfile(base + ".py") or os.path.isfile(os.path.join(base, "__init__.py"))


def _targets(node):
    """The keyvrm modules an import node names (``from m import name``: ``m.name`` if a module, else ``m``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [f"{node.module}.{alias.name}" if _is_module(f"{node.module}.{alias.name}")
                else node.module for alias in node.names]
    return []


def keyvrm_imports():
    """Every import of a keyvrm module written in keyvrm's source (also those inside functions)."""
    found = []
    for directory, _, files in os.walk(os.path.join(SOURCE_ROOT, "keyvrm")):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as source:
                tree = ast.parse(source.read(), path)
            importer = _module_name(path)
            for node in ast.walk(tree):
                found.extend(Import(importer, target, os.path.relpath(path, SOURCE_ROOT), node.lineno)
                             for target in _targets(node)
                             if target.startswith("keyvrm.") and _is_module(target))
    return found


def _top(module):
    return ".".join(module.split(".")[:2])


def _package(module):
    """The package a module belongs to: itself for a package's ``__init__`` and for a top-level module."""
    base = os.path.join(SOURCE_ROOT, *module.split("."))
    parent = module.rpartition(".")[0]
    return module if os.path.isdir(base) or parent == "keyvrm" else parent


def _nested(one, other):
    """True when one package is the other or lies inside it (a package and its subpackages are one unit)."""
    return one == other or one.startswith(other + ".") or other.startswith(one + ".")


def layering_violations(imports):
    """One line per import that reaches a layer not strictly below its own (or a package in no layer)."""
    problems = []
    for imp in imports:
        importer, imported = _top(imp.importer), _top(imp.imported)
        if importer == imported or importer == "keyvrm":
            continue
        unplaced = [p for p in (importer, imported) if p not in LAYER_OF]
        if unplaced:
            problems.append(f"{imp}: {', '.join(unplaced)} is in no layer; place it in LAYERS")
        elif LAYER_OF[imported] >= LAYER_OF[importer]:
            problems.append(f"{imp}: {importer} (layer '{LAYERS[LAYER_OF[importer]][0]}') may not "
                            f"import {imported} (layer '{LAYERS[LAYER_OF[imported]][0]}'), "
                            f"which is not below it")
    return problems


def package_cycles(imports):
    """Each import cycle between packages, as the imports that close it (one per edge).

    A package importing its own subpackage, or a subpackage its parent's modules, is
    not an edge: a package and what it contains are one unit of its own.
    """
    edges = collections.defaultdict(dict)
    for imp in imports:
        source, target = _package(imp.importer), _package(imp.imported)
        if not _nested(source, target):
            edges[source].setdefault(target, imp)
    cycles, state = [], {}

    def visit(package, stack, via):
        # via[i] is the import that leads from stack[i] to stack[i + 1]
        state[package] = "open"
        for target, imp in sorted(edges[package].items()):
            if state.get(target) == "open":
                cycles.append(via[stack.index(target):] + [imp])
            elif target not in state:
                visit(target, stack + [target], via + [imp])
        state[package] = "done"

    for package in sorted(edges):
        if package not in state:
            visit(package, [package], [])
    return cycles


def test_every_package_imports_only_from_layers_below_it():
    problems = layering_violations(keyvrm_imports())

    assert not problems, "imports against the layering:\n" + "\n".join(problems)


def test_no_package_takes_part_in_an_import_cycle():
    cycles = package_cycles(keyvrm_imports())

    assert not cycles, "import cycles between packages:\n" + "\n".join(
        " -> ".join(str(imp) for imp in cycle) for cycle in cycles)


def test_the_simulated_region_reaches_drivers_only_through_their_interfaces():
    reached = sorted({str(imp) for imp in keyvrm_imports()
                      if _top(imp.importer) == "keyvrm.simulator" and _top(imp.imported) == "keyvrm.drivers"
                      and not (imp.imported == "keyvrm.drivers.errors" or imp.imported.endswith(".base"))})

    assert not reached, "the simulator imports driver implementations:\n" + "\n".join(reached)


def test_an_import_of_a_higher_layer_is_reported_naming_the_file_and_line():
    upward = Import("keyvrm.simulator.power", "keyvrm.demo.embedded", "keyvrm/simulator/power.py", 12)

    assert layering_violations([upward]) == [
        "keyvrm/simulator/power.py:12 imports keyvrm.demo.embedded: keyvrm.simulator (layer 'planning, "
        "lifecycle, fencing, harvest, the simulated region, upgrade checks') may not import keyvrm.demo "
        "(layer 'demo (the embedded region)'), which is not below it"]


def test_a_cycle_between_two_packages_is_reported_with_both_imports():
    there = Import("keyvrm.drivers.cloud.sim", "keyvrm.simulator.region", "keyvrm/drivers/cloud/sim.py", 3)
    back = Import("keyvrm.simulator.power", "keyvrm.drivers.cloud.base", "keyvrm/simulator/power.py", 9)

    assert package_cycles([there, back]) == [[there, back]]
