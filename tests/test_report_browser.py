"""The lineage report opened in a real browser (Debian's Chromium, headless, driven by Playwright):
the demo pipeline's report and a 200-task generated store, checked through the DOM; a filter,
a sort, a click on the graph and the drill-down work; no console errors. Screenshots are saved
under target/screens/ (look at them; the README's picture is the demo's own page, `bash scripts/demo`).

The browser comes from ``scripts/browser`` (``bash scripts/test`` runs it first); without one
these tests fail naming that script."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.lineage.report_html import render_page
from ubunye.lineage.report_model import build_report
from ubunye.testing.records import pipeline_store

REPO = Path(__file__).resolve().parents[1]
SCREENS = REPO / "target" / "screens"


def chromium() -> str:
    found = os.environ.get("UBUNYE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.fail("no Chromium: run `bash scripts/browser` (installs Debian's chromium) or set UBUNYE_CHROMIUM")
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


class Page:
    """A page with its console errors collected."""

    def __init__(self, browser: object, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(path.as_uri())
        self.page.wait_for_selector(".ubunye-report[data-ready='1']", timeout=30_000)

    def count(self, selector: str) -> int:
        return self.page.locator(selector).count()

    def texts(self, selector: str) -> list[str]:
        return self.page.locator(selector).all_inner_texts()

    def shot(self, name: str) -> Path:
        SCREENS.mkdir(parents=True, exist_ok=True)
        path = SCREENS / name
        self.page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example pipeline (examples/shop/orders) run twice on pandas, the second time with a
    changed input, then `ubunye lineage report`."""
    root = tmp_path_factory.mktemp("demo")
    shutil.copytree(REPO / "examples" / "shop", root / "shop")
    data, out = root / "work" / "data", root / "work" / "out"
    subprocess.run([sys.executable, str(REPO / "examples" / "generate_data.py"), str(data)], check=True,
                   capture_output=True)
    args = ["run", "-d", str(root), "-u", "shop", "-p", "orders", "--all", "--backend", "pandas", "--lineage",
            "--var", f"data={data}", "--var", f"out={out}"]
    for _ in range(2):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        orders = data / "orders.csv"
        lines = orders.read_text(encoding="utf-8").splitlines(keepends=True)
        orders.write_text("".join(lines[:-1]), encoding="utf-8")  # one order fewer next time
    page = root / "report.html"
    result = CliRunner().invoke(cli, ["lineage", "report", "-d", str(root), "-o", str(page)])
    assert result.exit_code == 0, result.output
    return page


def test_demo_report_shows_tasks_datasets_runs_and_charts(browser: object, demo_report: Path) -> None:
    page = Page(browser, demo_report)
    assert page.count("svg.graph g.task") == 3
    assert page.count("svg.graph g.dataset") == 6  # two csv/json inputs, four parquet outputs
    assert page.count("svg.graph path.edge") >= 7
    assert page.texts(".tasklist li") == ["shop/orders/ingest (2)", "shop/orders/clean (2)", "shop/orders/summarise (2)"]
    assert page.count("table.runs tbody tr.run") == 2
    assert page.count(".charts svg.history") == 2 and page.count(".charts polyline") >= 2
    verdicts = page.texts("table.runs tbody tr.run td:last-child")
    assert sorted(verdicts) == ["2 changed, 2 same", "first run"]  # orders changed, customers did not
    page.shot("demo-report.png")
    assert page.errors == []


def test_drill_down_filter_sort_and_graph_click(browser: object, tmp_path: Path) -> None:
    store = pipeline_store(tmp_path / "lineage", tasks=200, runs=5)
    path = tmp_path / "big.html"
    path.write_text(render_page(build_report(store)), encoding="utf-8")
    page = Page(browser, path)
    p = page.page
    assert page.count("svg.graph g.task") == 200
    assert page.count("svg.graph g.dataset") == 240  # 40 pipelines of 5 tasks: 6 stages each
    assert page.count(".tasklist li") == 200
    # a click on a graph node selects that task
    node = p.locator("svg.graph g.task").nth(57)
    task_id = node.get_attribute("data-task")
    node.click()
    selected = p.locator(".tasklist li.selected")
    assert selected.count() == 1 and selected.get_attribute("data-task") == task_id
    assert page.count("table.runs tbody tr.run") == 5
    # the status filter keeps only runs of that status
    statuses = page.texts("table.runs tbody tr.run td:first-child")
    p.select_option("select.status-filter", "success")
    assert page.count("table.runs tbody tr.run") == statuses.count("success")
    p.select_option("select.status-filter", "")
    # the text filter: a run id prefix finds that run only
    first_id = p.locator("table.runs tbody tr.run td.hash").first.get_attribute("title")
    p.fill("input.run-filter", first_id)
    assert page.count("table.runs tbody tr.run") == 1
    p.fill("input.run-filter", "")
    # sorting by duration, both ways
    p.click("table.runs th[data-key='duration_sec']")
    up = [float(t.split()[0]) for t in page.texts("table.runs tbody tr.run td:nth-child(4)")]
    p.click("table.runs th[data-key='duration_sec']")
    down = [float(t.split()[0]) for t in page.texts("table.runs tbody tr.run td:nth-child(4)")]
    assert up == sorted(up) and down == sorted(up, reverse=True) and len(up) == 5
    # the drill-down shows the run's record
    p.locator("table.runs tbody tr.run").first.click()
    assert p.locator(".drill").is_visible()
    record = p.locator(".drill pre").inner_text()
    assert '"run_id"' in record and '"data_hash"' in record
    # the task list's search narrows the list
    p.fill(".tasklist input", "p007/")
    assert sum(1 for li in p.locator(".tasklist li").all() if li.is_visible()) == 5
    page.shot("generated-200-tasks.png")
    assert page.errors == []
