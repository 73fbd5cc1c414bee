"""`ubunye lineage report` and `ubunye.lineage.view`: what the page says, from the records alone."""
from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

import ubunye.lineage
from ubunye.cli.app import cli
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.report_html import render_page
from ubunye.lineage.report_model import build_report, dataset_key, layout_graph
from ubunye.lineage.store import FileStore

H1, H2, S = "sha256:" + "1" * 64, "sha256:" + "2" * 64, "sha256:" + "f" * 64


def record(task: str, run: str, started: str, *, inputs=(), outputs=(), status: str = "success",
           error: str | None = None, variables: dict | None = None) -> RunRecord:
    return RunRecord(run_id=run, task_path=f"u/p/{task}", usecase="u", package="p", task_name=task,
                     started_at=started, duration_sec=1.5, status=status, error=error, backend="pandas",
                     variables=variables or {}, inputs=list(inputs), outputs=list(outputs))


def step(name: str, direction: str, location: str, rows: int | None, data: str | None) -> Step:
    return Step(name, direction, "parquet", location, rows, S, data, "rows-v1", hash_engine="arrow")


def two_task_store(root: Path) -> FileStore:
    store = FileStore(root)
    store.write(record("ingest", "a1", "2026-11-01T10:00:00+00:00",
                       inputs=[step("raw", "input", "/lake/raw.csv", 10, H1)],
                       outputs=[step("clean", "output", "/lake/clean/", 9, H1)]))
    store.write(record("ingest", "a2", "2026-11-02T10:00:00+00:00",
                       inputs=[step("raw", "input", "/lake/raw.csv", 11, H2)],
                       outputs=[step("clean", "output", "/lake/clean", 10, H2)]))
    store.write(record("report", "b1", "2026-11-02T11:00:00+00:00",
                       inputs=[step("clean", "input", "/lake/./clean", 10, H2)],
                       outputs=[step("summary", "output", "/lake/summary", 3, None)]))
    store.write(record("report", "b2", "2026-11-03T11:00:00+00:00", status="error",
                       error="ValueError: boom", inputs=[step("clean", "input", "/lake/clean", 10, H2)]))
    return store


def test_a_dataset_written_by_one_task_and_read_by_another_joins_them(tmp_path: Path) -> None:
    report = build_report(two_task_store(tmp_path))
    names = {d["name"]: d for d in report.datasets}
    assert sorted(names) == ["/lake/clean", "/lake/raw.csv", "/lake/summary"]
    ids = {t["path"]: t["id"] for t in report.tasks}
    clean = names["/lake/clean"]["id"]
    assert (ids["u/p/ingest"], clean) in report.edges and (clean, ids["u/p/report"]) in report.edges
    # every run draws: report's latest run failed and wrote nothing, its run before wrote summary
    assert (ids["u/p/report"], names["/lake/summary"]["id"]) in report.edges
    assert names["/lake/summary"]["writer"] == "u/p/report" and names["/lake/summary"]["rows"] == 3
    assert names["/lake/clean"]["rows"] == 10 and names["/lake/clean"]["data_hash"] == H2
    assert [t["status"] for t in report.tasks] == ["success", "error"]  # upstream first


def test_each_run_has_its_verdict_against_the_run_before(tmp_path: Path) -> None:
    report = build_report(two_task_store(tmp_path))
    ingest = next(t for t in report.tasks if t["path"] == "u/p/ingest")
    first, second = ingest["runs"]
    assert first["vs_before"] is None
    assert second["vs_before"]["before"] == "a1"
    assert second["vs_before"]["counts"] == {"same": 0, "changed": 2, "unknown": 0}
    raw = next(s for s in second["vs_before"]["steps"] if s["name"] == "raw")
    assert raw["verdict"] == "changed" and raw["rows"] == [10, 11]
    assert raw["reason"].startswith("input 'raw': row count changed (10 -> 11)")
    runs = next(t for t in report.tasks if t["path"] == "u/p/report")["runs"]
    assert runs[1]["vs_before"]["counts"] == {"same": 1, "changed": 1, "unknown": 0}  # summary missing
    assert runs[1]["error"] == "ValueError: boom"
    assert (runs[0]["rows_in"], runs[0]["rows_out"]) == (10, 3)


def test_unknown_when_a_hash_is_missing(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.write(record("t", "r1", "2026-11-01T10:00:00+00:00", outputs=[step("o", "output", "/o", 1, None)]))
    store.write(record("t", "r2", "2026-11-02T10:00:00+00:00", outputs=[step("o", "output", "/o", 1, None)]))
    verdict = build_report(store).tasks[0]["runs"][1]["vs_before"]
    assert verdict["counts"] == {"same": 0, "changed": 0, "unknown": 1}
    assert "data hash unknown" in verdict["steps"][0]["reason"]


def test_since_leaves_older_runs_out_but_keeps_the_verdict_of_the_first_shown(tmp_path: Path) -> None:
    report = build_report(two_task_store(tmp_path), since="2026-11-02")
    ingest = next(t for t in report.tasks if t["path"] == "u/p/ingest")
    assert [r["run_id"] for r in ingest["runs"]] == ["a2"]
    assert ingest["runs"][0]["vs_before"]["before"] == "a1"
    assert build_report(two_task_store(tmp_path / "again"), since="2027-01-01").tasks == []  # (records: once)


def test_filters_by_task(tmp_path: Path) -> None:
    report = build_report(two_task_store(tmp_path), usecase="u", package="p", task="report")
    assert [t["path"] for t in report.tasks] == ["u/p/report"]


def test_layout_puts_every_node_after_what_feeds_it_and_survives_a_cycle() -> None:
    layout, size = layout_graph(["t0", "t1"], ["d0", "d1"], [("d0", "t0"), ("t0", "d1"), ("d1", "t1")])
    xs = {n: layout[n][0] for n in layout}
    assert xs["d0"] < xs["t0"] < xs["d1"] < xs["t1"]
    assert size[0] > xs["t1"]
    cyc, _ = layout_graph(["t0"], ["d0"], [("t0", "d0"), ("d0", "t0")])  # a task reading what it writes
    assert set(cyc) == {"t0", "d0"}
    deep = [f"n{i}" for i in range(5000)]  # a long chain lays out without recursion
    chain, _ = layout_graph(deep, [], [(deep[i], deep[i + 1]) for i in range(4999)])
    assert chain["n4999"][0] > chain["n0"][0]


def test_dataset_key_normalises_local_paths_only() -> None:
    assert dataset_key("u/p/t", step("x", "input", "/a/b/../c/", 1, H1)) == "/a/c"
    assert dataset_key("u/p/t", step("x", "input", "s3://bucket/a/", 1, H1)) == "s3://bucket/a"
    assert dataset_key("u/p/t", step("x", "input", "", 1, H1)) == "u/p/t:input:x"


def test_hostile_names_and_values_cannot_break_out_of_the_page(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    evil = "</script><script>alert(1)</script><!--"
    store.write(record("t", "r1", "2026-11-01T10:00:00+00:00", error=evil,
                       outputs=[step(evil, "output", f"/x/{evil}", 1, H1)]))
    page = render_page(build_report(store))
    assert "<script>alert(1)" not in page
    assert page.count("<script>") == 1  # only the page's own script (the rest are JSON data elements)
    assert "alert(1)" in page  # shown, escaped


def test_records_shown_in_the_page_are_masked(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.write(record("t", "r1", "2026-11-01T10:00:00+00:00",
                       outputs=[step("o", "output", "postgres://app:hunter2secret@db/x", 1, H1)],
                       error="connect postgres://app:hunter2secret@db/x failed"))
    page = render_page(build_report(store))
    assert "hunter2secret" not in page
    assert "app:***@db" in page


def test_the_cli_writes_one_self_contained_page(tmp_path: Path) -> None:
    two_task_store(tmp_path / ".ubunye" / "lineage")
    out = tmp_path / "site" / "report.html"
    result = CliRunner().invoke(cli, ["lineage", "report", "-d", str(tmp_path), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert (doc["tasks"], doc["datasets"], doc["runs"]) == (2, 3, 4)
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # self-contained: nothing fetched (no src/href to anything, no @import, no url())
    assert not re.search(r"""<[a-z]+[^>]*\s(src|href)\s*=|@import|url\(""", page)
    assert page.count('<script type="application/json" data-record="') == 4


def test_the_cli_refuses_a_task_without_its_package(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["lineage", "report", "-d", str(tmp_path), "-t", "x"])
    assert result.exit_code == 2
    assert "-t needs -u and -p" in result.stderr


def test_notebook_view_shows_the_same_report(tmp_path: Path) -> None:
    two_task_store(tmp_path / ".ubunye" / "lineage")
    view = ubunye.lineage.view(tmp_path)
    html = view._repr_html_()
    assert html.startswith('<div class="ubunye-report">') and html.count('data-task="') >= 2
    assert "2 tasks, 3 datasets, 4 runs" in repr(view)
    saved = view.save(tmp_path / "r.html")
    assert saved.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
