"""The lineage report at scale: 10,000 runs over 200 tasks (targets: written in under 5 s,
open in a browser in under 2 s).

Generates the store once (``ubunye.testing.records.pipeline_store``: 40 pipelines of 5
tasks, 50 runs each), then measures side by side in one run:

- ``ubunye lineage report`` as a fresh process (read every record, compare each run with the
  one before, lay out the graph, write the page), median of ``--repeat`` runs;
- ``ubunye lineage list`` of one task and ``ubunye lineage search --status error`` over the
  same store, as fresh processes, for scale (search reads every record too);
- opening the page in headless Chromium (scripts/browser) through Playwright: from
  ``goto`` to the page's scripts having drawn the first task (``data-ready``), median of
  ``--repeat`` fresh pages; and the page's size.

Usage: ``.venv/bin/python bench/bench_report.py [--tasks 200] [--runs 50] [--repeat 5]``
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ubunye.testing.records import pipeline_store


def timed(args: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def open_times(page: Path, repeat: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    browser_path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser_path:
        raise SystemExit("no chromium: run bash scripts/browser")
    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox", "--disable-gpu"])
        for _ in range(repeat):
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            start = time.perf_counter()
            tab.goto(page.as_uri())
            tab.wait_for_selector(".ubunye-report[data-ready='1']", timeout=60_000)
            times.append(time.perf_counter() - start)
            tab.close()
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ubunye-bench-report-") as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        pipeline_store(root / ".ubunye" / "lineage", tasks=a.tasks, runs=a.runs)
        made = time.perf_counter() - start
        records = a.tasks * a.runs
        print(f"store: {records:,} records over {a.tasks} tasks, generated in {made:.1f} s")
        cli = [sys.executable, "-m", "ubunye"]
        page = root / "report.html"
        write = timed([*cli, "lineage", "report", "-d", str(root), "-o", str(page)], a.repeat)
        listing = timed([*cli, "lineage", "list", "-d", str(root), "-u", "lake", "-p", "p000", "-t", "t0"], a.repeat)
        search = timed([*cli, "lineage", "search", "-d", str(root), "--status", "error"], a.repeat)
        size = page.stat().st_size
        opened = open_times(page, a.repeat)
        print(f"lineage report (fresh process, median of {a.repeat}): {write:.2f} s "
              f"({write / records * 1e6:.0f} us per record); target < 5 s: {'met' if write < 5 else 'NOT met'}")
        print(f"lineage list of one task ({a.runs} runs):           {listing:.2f} s")
        print(f"lineage search --status error (all records):      {search:.2f} s  "
              f"(report / search = {write / search:.2f}x)")
        print(f"page: {size / 1e6:.1f} MB; opened in Chromium (goto to first task drawn), median of {a.repeat}: "
              f"{statistics.median(opened):.2f} s (min {min(opened):.2f}, max {max(opened):.2f}); "
              f"target < 2 s: {'met' if statistics.median(opened) < 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
