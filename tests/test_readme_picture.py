"""The README's picture (docs/images/lineage-report.png) is the page `bash scripts/demo` writes, and
the README states its counts (tasks, datasets, runs): those counts are checked here against what
the demo's runs produce, so the sentence (the one place the counts are written) cannot drift from
the demo.

The demo's steps are read from scripts/demo itself (its `run_pipeline BACKEND "$WORK/DIR"` calls and
its `generate_data.py` calls, in order) and replayed on pandas: a dataset is its location and a run is
one per task per pipeline run, so the Spark run, replayed on pandas into the same folder, makes the
same tasks, datasets and runs. The counts are read from the report page as the picture shows them."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from ubunye.cli.app import cli

REPO = Path(__file__).resolve().parents[1]
COUNTS = re.compile(r"(\d+) tasks, (\d+) datasets, (\d+) runs")
STEP = re.compile(r'^(?:run_pipeline (\w+) "\$WORK/([\w.-]+)"|.*examples/generate_data\.py "\$WORK/data"(?: (--change))?)\s*$')


def readme_counts() -> tuple[int, int, int]:
    """The counts the README states for its picture (the sentence above the image)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    before = text[: text.index("docs/images/lineage-report.png")]
    paragraphs = [p for p in before.split("\n\n") if p.strip()]  # the last is the image's own
    found = COUNTS.findall(paragraphs[-2])
    assert len(found) == 1, "the README's sentence above its picture states no (or several) counts"
    return tuple(int(n) for n in found[0])  # type: ignore[return-value]


def demo_steps() -> list[tuple[str, ...]]:
    """scripts/demo's data and pipeline steps, in order: ("data", "--change" or "") or ("run", backend, dir)."""
    steps: list[tuple[str, ...]] = []
    for line in (REPO / "scripts" / "demo").read_text(encoding="utf-8").splitlines():
        m = STEP.match(line.strip())
        if m and m.group(1):
            steps.append(("run", m.group(1), m.group(2)))
        elif m:
            steps.append(("data", m.group(3) or ""))
    return steps


def page_counts(page: str) -> tuple[int, int, int]:
    """The counts the report page shows (its counts bar, as in the picture)."""
    m = re.search(r'<div class="counts"><span>(\d+) tasks</span><span>(\d+) datasets</span><span>(\d+) runs</span>',
                  page)
    assert m, "the report page has no counts bar"
    return tuple(int(n) for n in m.groups())  # type: ignore[return-value]


def test_demo_steps_are_read_from_the_script() -> None:
    steps = demo_steps()
    assert steps[0] == ("data", "")
    assert [s[1] for s in steps if s[0] == "run"] == ["spark", "pandas", "pandas"]
    assert ("data", "--change") in steps


def test_readme_picture_counts_are_what_the_demo_makes(tmp_path: Path) -> None:
    root, work = tmp_path / "examples", tmp_path / "work"
    shutil.copytree(REPO / "examples" / "shop", root / "shop")
    runs = 0
    for step in demo_steps():
        if step[0] == "data":
            subprocess.run([sys.executable, str(REPO / "examples" / "generate_data.py"), str(work / "data"),
                            *([step[1]] if step[1] else [])], check=True, capture_output=True)
            continue
        result = CliRunner().invoke(cli, [
            "run", "-d", str(root), "-u", "shop", "-p", "orders", "--all", "--backend", "pandas", "--lineage",
            "--var", f"data={work / 'data'}", "--var", f"out={work / step[2]}"])
        assert result.exit_code == 0, result.output
        runs += 1
    assert runs >= 1
    page = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["lineage", "report", "-d", str(root), "-o", str(page)])
    assert result.exit_code == 0, result.output
    assert page_counts(page.read_text(encoding="utf-8")) == readme_counts()
