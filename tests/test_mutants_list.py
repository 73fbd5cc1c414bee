"""The hand-written mutants (tests/mutants/mutants.toml, run by scripts/mutants) cannot rot: each
one's original text occurs exactly once in its module, the mutated module still compiles, and
every test it names exists."""
from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import pytest

if sys.version_info < (3, 11):
    pytest.importorskip("tomli", reason="reading tests/mutants/mutants.toml needs tomllib (3.11) or tomli")

ROOT = Path(__file__).resolve().parents[1]
MUTANTS_SCRIPT = ROOT / "scripts" / "mutants"


def _script() -> Any:
    from importlib.machinery import SourceFileLoader

    loader = SourceFileLoader("scripts_mutants", str(MUTANTS_SCRIPT))
    spec = importlib.util.spec_from_loader("scripts_mutants", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


SCRIPT = _script()
MUTANTS = SCRIPT.load()
FIELDS = {"id", "module", "original", "replacement", "bug", "tests"}


def test_the_list_is_long_and_its_ids_are_unique() -> None:
    ids = [m["id"] for m in MUTANTS]
    assert len(ids) >= 30
    assert len(set(ids)) == len(ids), sorted(i for i in ids if ids.count(i) > 1)
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9-]*", i) for i in ids), ids


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["id"] for m in MUTANTS])
def test_each_mutant_applies_once_and_still_compiles(mutant: dict[str, Any]) -> None:
    assert set(mutant) == FIELDS, set(mutant) ^ FIELDS
    assert mutant["bug"].strip() and "\n" not in mutant["bug"]
    assert mutant["original"] != mutant["replacement"]
    source = (ROOT / "python" / mutant["module"]).read_text(encoding="utf-8")
    assert source.count(mutant["original"]) == 1, f"{mutant['module']}: the original text must occur exactly once"
    ast.parse(source.replace(mutant["original"], mutant["replacement"]), filename=mutant["module"])


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["id"] for m in MUTANTS])
def test_each_named_test_exists(mutant: dict[str, Any]) -> None:
    assert mutant["tests"], "a mutant names the tests that kill it"
    for node in mutant["tests"]:
        path, _, name = node.partition("::")
        file = ROOT / path
        assert file.is_file() and file.name.startswith("test_") and file.suffix == ".py", node
        if name:
            defined = {n.name for n in ast.walk(ast.parse(file.read_text(encoding="utf-8")))
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            assert name.split("[", 1)[0] in defined, node


def test_the_script_refuses_an_original_not_found_once(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("x = 1\nx = 1\n", encoding="utf-8")
    for text in ("x = 1", "y = 2"):  # twice, then never
        with pytest.raises(SystemExit, match="occurs (2|0) times"):
            SCRIPT.apply(tmp_path, {"id": "t", "module": "m.py", "original": text, "replacement": "z"})
    SCRIPT.apply(tmp_path, {"id": "t", "module": "m.py", "original": "x = 1\nx", "replacement": "x = 1\ny"})
    assert module.read_text(encoding="utf-8") == "x = 1\ny = 1\n"
