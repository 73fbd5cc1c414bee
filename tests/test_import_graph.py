"""The package's imports, read from the source: no circle, and no module imports a higher layer.

Every ``import ubunye...`` and ``from ubunye... import`` (relative ones resolved) counts, wherever
it stands: at module level, under ``if TYPE_CHECKING:``, or inside a function (a late import that
hides a circle is still a circle), and so does ``import_module("ubunye....")`` with a literal name.
``from package import name`` is an edge to ``package.name`` when that is a module, else to the
package (its ``__init__``). Nothing is imported or run: the graph comes from :mod:`ast`.

Layers, lowest first (docs/architecture.md): the basics (masking, names, user files, output
locations) -> hashing -> io -> spark -> lineage -> engine -> cli -> the public faces (the
``ubunye`` package itself, ``ubunye.api``, ``ubunye.notebook``, ``ubunye.core``,
``ubunye.testing``, ``python -m ubunye``). An import may stay in its layer or go down.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Iterable, Optional

ROOT = Path(__file__).resolve().parents[1] / "python"
PACKAGE = "ubunye"

LAYERS = {
    # basics: import nothing above them
    "_lazy": 0, "_legacy": 0, "_names": 0, "_version": 0, "masking": 0, "locations": 0,
    "userfiles": 0, "userwrites": 0,
    "hashing": 1,
    "io": 2,
    "spark": 3,
    "lineage": 4,
    "engine": 5,
    "cli": 6,
    # the public faces, above everything they hand on
    "": 7, "__main__": 7, "api": 7, "notebook": 7, "core": 7, "testing": 7,
    # a module below its folder's layer (the longest dotted prefix decides): the shared rows-v1
    # fixtures' loader imports only hashing, and Spark's selfcheck loads them
    "testing.fixtures": 1,
}

# Imports that run up a layer today, each named with its reason. This list may only shrink:
# an entry that no longer occurs fails the test, so a mend removes its line.
UPWARD = {
    # the one name check raises the store's InvalidName (lineage/errors.py imports only masking)
    ("ubunye._names", "ubunye.lineage.errors"),
}


def modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: its dotted name -> (file, whether it is a package's __init__)."""
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _imported(node: ast.AST, base: list[str], known: dict[str, tuple[Path, bool]]) -> Iterable[str]:
    """The dotted names one AST node imports (unresolved to modules yet)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            parent = base[: len(base) - node.level + 1]
            module = ".".join(parent + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        for alias in node.names:
            yield f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
    elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
            "import_module", "__import__"):
        if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            yield node.args[0].value


def _owner(name: str, known: dict[str, tuple[Path, bool]]) -> Optional[str]:
    """The module of the package a dotted name falls in (``a.b.func`` -> ``a.b``); None outside it."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


@functools.lru_cache(maxsize=1)
def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (read once per session; not to be changed)."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in known.items():
        base = name.split(".") if is_package else name.split(".")[:-1]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for imported in _imported(node, base, known):
                owner = _owner(imported, known) if imported.split(".")[0] == PACKAGE else None
                if owner is not None and owner != name:
                    targets.add(owner)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each strongly connected group of modules (Tarjan, iterative), as
    ``[a, b, ..., a]``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    return [_circle(graph, group) for group in groups]


def _circle(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    first = min(group)
    paths = {first: [first]}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & group):
                if child == first:
                    return paths[node] + [first]
                if child not in paths:
                    paths[child] = paths[node] + [child]
                    following.append(child)
        frontier = following
    raise AssertionError(f"no circle in {sorted(group)}")


def layer(module: str) -> int:
    """The layer of the longest prefix of ``module`` (``ubunye`` left out) that :data:`LAYERS` names."""
    parts = module.split(".")[1:]
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in LAYERS:
            return LAYERS[".".join(parts[:end])]
    return LAYERS[""]


def upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(a, b) for a, targets in graph.items() for b in targets if layer(b) > layer(a)}


def test_the_graph_is_read_whole():
    """Not vacuous: every module is read and known imports are seen, late and type-only ones too."""
    graph = import_graph()
    assert len(graph) > 150 and sum(map(len, graph.values())) > 500
    assert "ubunye.lineage.store.blobs" in graph["ubunye.lineage.store.records"]  # module level
    assert "ubunye.lineage.attestation.envelopes" in graph["ubunye.lineage.store.records"]  # in a method
    assert "ubunye.spark.facts" in graph["ubunye.lineage.evidence"]  # import_module("...")
    assert "ubunye.cli.commands.lineage_diff" in graph["ubunye.cli.commands.lineage"]  # one command, one file


def test_every_top_level_module_has_a_layer():
    tops = {name.split(".")[1] if "." in name else "" for name in modules()}
    folders = {name for name in LAYERS if "." not in name}
    assert tops == folders, f"give these a layer in LAYERS: {sorted(tops - folders)}, or drop {sorted(folders - tops)}"
    assert all(f"ubunye.{name}" in modules() for name in set(LAYERS) - folders)  # an override names a module


def test_the_circle_finder_finds_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e2"}, "e2": {"e"}}
    assert sorted(cycles(graph)) == [["a", "b", "c", "a"], ["e", "e2", "e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_layer_check_finds_an_import_up():
    graph = {"ubunye.hashing.digest": {"ubunye.cli.app", "ubunye._names"}, "ubunye.spark.selfcheck":
             {"ubunye.testing.fixtures", "ubunye.testing"}, "ubunye.testing": {"ubunye.engine.runner"}}
    assert upward(graph) == {("ubunye.hashing.digest", "ubunye.cli.app"), ("ubunye.spark.selfcheck", "ubunye.testing")}


def test_no_import_circles():
    found = cycles(import_graph())
    assert not found, f"{len(found)} import circle(s), one shown per group of modules tied in a loop:\n" + \
        "\n".join(" -> ".join(c) for c in found)


def test_no_module_imports_a_higher_layer():
    found = upward(import_graph())
    new = sorted(found - UPWARD)
    assert not new, "imports up a layer:\n" + "\n".join(f"{a} -> {b}" for a, b in new)
    gone = sorted(UPWARD - found)
    assert not gone, "no longer imported: remove from UPWARD:\n" + "\n".join(f"{a} -> {b}" for a, b in gone)


# One command per file: a command's file imports shared helpers (cli/*.py), not another command's
# file. A group's file imports the files of its subcommands to attach them (GROUPS).
COMMANDS = "ubunye.cli.commands."
GROUPS = {"ubunye.cli.commands.lineage"}
COMMAND_TO_COMMAND: set[tuple[str, str]] = set()  # named exceptions, if one is ever needed: may only shrink


def test_no_command_file_imports_another():
    graph = import_graph()
    found = {(a, b) for a, targets in graph.items() if a.startswith(COMMANDS) and a not in GROUPS
             for b in targets if b.startswith(COMMANDS)}
    assert ("ubunye.cli.commands.lineage", "ubunye.cli.commands.lineage_diff") in \
        {(a, b) for a, targets in graph.items() for b in targets}  # a group's import is seen, and allowed
    new = sorted(found - COMMAND_TO_COMMAND)
    assert not new, "a command file imports another (share a helper in cli/ instead):\n" + \
        "\n".join(f"{a} -> {b}" for a, b in new)
    gone = sorted(COMMAND_TO_COMMAND - found)
    assert not gone, "no longer imported: remove from COMMAND_TO_COMMAND:\n" + "\n".join(f"{a} -> {b}" for a, b in gone)
