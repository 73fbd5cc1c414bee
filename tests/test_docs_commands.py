"""The platform guides (docs/*.md) against the package: every `ubunye spark ...` command they
show runs, and every jar they name for a runtime is one the package carries."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.spark import jar as jarmod

DOCS = Path(__file__).resolve().parents[1] / "docs"
GUIDES = sorted(DOCS.glob("*.md"))


def packaged_lines() -> set[str]:
    """``3.5_2.12`` ... for the jars in the package (built by scripts/build-jar)."""
    names = [p.name for p in jarmod.jars_dir().glob("ubunye-spark_*.jar")]
    return {m.group(1) for n in names if (m := re.match(r"ubunye-spark_(\d+\.\d+_\d+\.\d+)-", n))}


def bash_lines(text: str) -> list[str]:
    """The command lines of the guide's ```bash blocks (comments dropped)."""
    out, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            inside = stripped == "```bash"
            continue
        if inside and stripped and not stripped.startswith("#"):
            out.append(stripped.split(" #")[0].strip())
    return out


def spark_commands() -> list[tuple[str, str]]:
    return [(guide.name, line) for guide in GUIDES for line in bash_lines(guide.read_text(encoding="utf-8"))
            if line.startswith("ubunye spark ")]


def test_the_guides_show_the_jar_commands() -> None:
    assert {line.split(" --")[0] for _, line in spark_commands()} >= {"ubunye spark jar", "ubunye spark jars"}


@pytest.mark.parametrize("guide, line", spark_commands())
def test_every_spark_command_in_the_guides_runs(guide: str, line: str, tmp_path: Path) -> None:
    if not packaged_lines():
        pytest.fail("no plugin jar in the package: run scripts/build-jar --all")
    args = shlex.split(line)[1:]
    if "--to" in args:  # into a folder of the test's own
        args[args.index("--to") + 1] = str(tmp_path / "jars")
    if "--volume" in args:  # a volume folder of the test's own
        args[args.index("--volume") + 1] = str(tmp_path / "volume")
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, f"{guide}: {line}: {result.output}"
    if args[:2] == ["spark", "jar"] and "--spark" in args:
        want = f"ubunye-spark_{args[args.index('--spark') + 1]}_{args[args.index('--scala') + 1]}-"
        assert Path(result.output.strip()).name.startswith(want), result.output
        assert Path(result.output.strip()).is_file()
    if "--to" in args:
        copied = {p.name for p in (tmp_path / "jars").iterdir()}
        for packaged in packaged_lines():
            assert any(n.startswith(f"ubunye-spark_{packaged}-") and n.endswith(".jar") for n in copied), packaged


def test_every_jar_the_guides_name_is_packaged() -> None:
    named = {f"{m.group(1)}_{m.group(2)}" for guide in GUIDES
             for m in re.finditer(r"ubunye-spark_(\d+\.\d+)_(\d+\.\d+)", guide.read_text(encoding="utf-8"))}
    assert named, "the guides name no jar"
    missing = named - packaged_lines()
    assert not missing, f"the guides name jars the package does not carry: {sorted(missing)}"


def test_the_api_pages_jar_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/api.md's example that needs the package's jars (this file runs after they are built)."""
    from test_docs_api import examples

    assert list(jarmod.jars_dir().glob("ubunye-spark_*.jar")), "no plugin jar in the package (scripts/build-jar --all)"
    blocks = examples("jar")
    assert blocks, "docs/api.md has no jar example"
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, "docs/api.md jar example", "exec"), {"__name__": "__docs__"})  # noqa: S102 - our own page
