"""docs/api.md: every public name a user calls has an entry and an example, the examples that need
no Spark run (the code blocks after ``<!-- example -->``, in order, in one namespace, in an empty
folder; ``<!-- example: jar -->`` ones when the package carries its jars), and the Sphinx roles of
the docstrings are rendered (scripts/mkdocs_roles.py, the site's hook)."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

import ubunye
import ubunye.lineage

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "api.md"
_EXAMPLE = re.compile(r"<!-- example(?:: (?P<needs>\w+))? -->\n```python\n(?P<code>.*?)\n```", re.S)
# each public name a user calls (issue 40) and the reference entry that documents it
PUBLIC = {
    "ubunye.fingerprint": "ubunye.hashing.fingerprint.fingerprint",
    "ubunye.Fingerprint": "ubunye.hashing.fingerprint.Fingerprint",
    "ubunye.canonical_kinds": "ubunye.hashing.debug.canonical_kinds",
    "ubunye.canonical_line": "ubunye.hashing.debug.canonical_line",
    "ubunye.Task": "ubunye.engine.task.Task",
    "ubunye.run_task": "ubunye.engine.runner.run_task",
    "ubunye.run_pipeline": "ubunye.engine.runner.run_pipeline",
    "ubunye.notebook": "ubunye.engine.runner.notebook",
    "ubunye.UbunyeError": "ubunye.engine.errors.EngineError",
    "ubunye.lineage.run": "ubunye.lineage.api.run",
    "ubunye.lineage.view": "ubunye.lineage.view.view",
    "ubunye.spark.jar_path": "ubunye.spark.jar.jar_path",
    "ubunye.spark.configure": "ubunye.spark.jar.configure",
    "ubunye.spark.install": "ubunye.spark.jar.install",
    "ubunye.spark.status": "ubunye.spark.status.status",
    "ubunye.spark.fingerprint_spark": "ubunye.spark.fingerprint.fingerprint_spark",
    "ubunye.spark.observations.attach": "ubunye.spark.observations.attach",
    "ubunye.spark.observations.read": "ubunye.spark.observations.read",
}


def examples(needs: str | None) -> list[str]:
    return [m.group("code") for m in _EXAMPLE.finditer(PAGE.read_text(encoding="utf-8")) if m.group("needs") == needs]


def test_every_public_name_has_an_entry_and_an_example() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert set(ubunye.__all__) - {"__version__"} <= {n.split(".")[-1] for n in PUBLIC}
    for name, entry in PUBLIC.items():
        assert f"\n::: {entry}\n" in text, f"{name}: no reference entry ::: {entry}"
        short = name.split(".")[-1]
        blocks = re.findall(r"```python\n(.*?)\n```", text, re.S)
        assert any(re.search(rf"\b{short}\b", b) for b in blocks), f"{name}: no example calls it"


def test_the_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = examples(None)
    assert len(blocks) >= 10, len(blocks)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for i, code in enumerate(blocks):
        exec(compile(code, f"docs/api.md example {i + 1}", "exec"), namespace)  # noqa: S102 - our own page
    records = list((tmp_path / ".ubunye" / "lineage" / "shop" / "sales").rglob("*.json"))
    assert {p.parent.name for p in records} >= {"daily", "by_hand"}  # the examples wrote records


def load_hook():
    spec = importlib.util.spec_from_file_location("mkdocs_roles", ROOT / "scripts" / "mkdocs_roles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sphinx_roles_are_rendered_as_code() -> None:
    hook = load_hook()
    html = ('<p>See :class:<code>Fingerprint</code>, :func:<code>~ubunye.spark.jar.configure</code>, '
            ':mod:<code>ubunye.lineage</code> and :class:<code>the record &lt;ubunye.lineage.record.RunRecord&gt;</code>'
            '; :meth:<code>.read</code></p><pre><code>x = ":class:`kept`"</code></pre>')
    out = hook.on_page_content(html)
    assert out == ('<p>See <code>Fingerprint</code>, <code>configure</code>, <code>ubunye.lineage</code> and '
                   '<code>the record</code>; <code>read</code></p><pre><code>x = ":class:`kept`"</code></pre>')
    assert "mkdocs_roles.py" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
