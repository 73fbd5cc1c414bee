"""The lineage report as one self-contained HTML page (no server, no network).

:func:`render_page` writes a whole document; :func:`render_fragment` the part a notebook
shows (``ubunye.lineage.view``). Styles and scripts are inlined from ``report_assets/``
(plain CSS and JavaScript, no library); the graph is an SVG drawn here from the layout of
:func:`ubunye.lineage.report_model.layout_graph`. Every text from the records is escaped
here or set with ``textContent`` by the script; each run's record travels in its own
``<script type="application/json">`` element and is parsed only when it is opened.
"""
from __future__ import annotations

import html
from datetime import datetime, timezone
from importlib import resources
from typing import Any

from ubunye._names import visible
from ubunye.lineage.report_model import NODE_H, NODE_W, Report, script_safe, task_runs, to_json_text

_STATUSES = ("success", "error", "running", "interrupted", "abandoned")


def _e(text: Any) -> str:
    """Text from the records as HTML: escaped, its direction controls shown (never applied)."""
    return html.escape(visible(str(text)))


def _asset(name: str) -> str:
    return resources.files("ubunye.lineage").joinpath("report_assets", name).read_text(encoding="utf-8")


def _cls(status: Any) -> str:
    return f"s-{status}" if status in _STATUSES else "s-other"


def _short(text: Any, limit: int = 28) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= limit else "\u2026" + text[-(limit - 1):]


def _label(name: str) -> str:
    """A dataset's short label: the last part of its path or table name."""
    text = name.rstrip("/")
    for sep in ("/", "\\"):
        text = text.rsplit(sep, 1)[-1] if sep in text else text
    return _short(text or name)


def _hash(value: Any) -> str:
    if not isinstance(value, str):
        return "no hash"
    return value.split(":", 1)[-1][:12]


def graph_svg(report: Report) -> str:
    """The tasks and datasets as an SVG: tasks outlined in their latest run's status colour,
    datasets with their latest row count and data hash."""
    e = _e
    pos = report.layout
    parts = [f'<svg class="graph" xmlns="http://www.w3.org/2000/svg" width="{report.size[0]:.0f}" '
             f'height="{report.size[1]:.0f}" viewBox="0 0 {report.size[0]:.0f} {report.size[1]:.0f}">']
    for a, b in report.edges:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        x1, y1, x2, y2 = xa + NODE_W, ya + NODE_H / 2, xb, yb + NODE_H / 2
        mid = (x1 + x2) / 2
        parts.append(f'<path class="edge" d="M{x1:.1f},{y1:.1f} C{mid:.1f},{y1:.1f} {mid:.1f},{y2:.1f} {x2:.1f},{y2:.1f}"/>')
    for t in report.tasks:
        x, y = pos[t["id"]]
        parts.append(
            f'<g class="task {_cls(t["status"])}" data-task="{t["id"]}"><title>{e(t["path"])}: latest run '
            f'{e(str(t["status"]))}, {task_runs(t)} runs</title>'
            f'<rect x="{x:.1f}" y="{y:.1f}" rx="8" width="{NODE_W}" height="{NODE_H}"/>'
            f'<text x="{x + 10:.1f}" y="{y + 18:.1f}">{e(_short(t["path"]))}</text>'
            f'<text class="sub" x="{x + 10:.1f}" y="{y + 34:.1f}">{e(str(t["status"]))} \u00b7 {task_runs(t)} runs</text></g>')
    for d in report.datasets:
        x, y = pos[d["id"]]
        rows = "rows ?" if d["rows"] is None else f'{d["rows"]:,} rows'
        parts.append(
            f'<g class="dataset" data-dataset="{d["id"]}"><title>{e(d["name"])} ({e(str(d["format"] or ""))}): '
            f'{e(rows)}, {e(str(d["data_hash"] or "no data hash"))}</title>'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{NODE_W}" height="{NODE_H}"/>'
            f'<text x="{x + 10:.1f}" y="{y + 18:.1f}">{e(_label(d["name"]))}</text>'
            f'<text class="sub" x="{x + 10:.1f}" y="{y + 34:.1f}">{e(rows)} \u00b7 {e(_hash(d["data_hash"]))}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _counts(report: Report) -> str:
    runs = [r for t in report.tasks for r in t["runs"]]
    failed = sum(1 for r in runs if r["status"] != "success") + sum(
        n for t in report.tasks for s, n in t.get("older", {}).get("statuses", {}).items() if s != "success")
    return (f'<div class="counts"><span>{len(report.tasks)} tasks</span><span>{len(report.datasets)} datasets</span>'
            f'<span>{report.run_count} runs</span><span class="s-error">{failed} not successful</span></div>')


def _older(report: Report) -> str:
    """One line per task with runs not shown in full: how many, by status, from when to when."""
    items = []
    for t in report.tasks:
        older = t.get("older")
        if older:
            statuses = ", ".join(f"{n} {s}" for s, n in older["statuses"].items())
            items.append(f'<li>{_e(t["path"])}: {older["count"]} older runs not shown in full ({_e(statuses)}; '
                         f'started {_e(older["first"])} to {_e(older["last"])})</li>')
    return f'<ul class="older">{"".join(items)}</ul>' if items else ""


def render_fragment(report: Report) -> str:
    """The report's body: graph, task list, charts, run table and drill-down, with its style
    and script (what a notebook cell shows)."""
    e = _e
    filters = ", ".join(f"{k} {v}" for k, v in report.filters.items()) or "all tasks"
    skipped = "".join(f"<li>{e(s)}</li>" for s in report.skipped)
    records = "".join(f'<script type="application/json" data-record="{key}">{script_safe(text)}</script>'
                      for key, text in report.records.items())
    status_options = "".join(f'<option value="{s}">{s}</option>' for s in _STATUSES)
    return (
        f'<div class="ubunye-report"><style>{_asset("report.css")}</style>'
        f'<header><h1>Ubunye lineage report</h1><div class="meta">{e(filters)} \u00b7 written '
        f'{datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}</div>{_counts(report)}'
        + (f'<ul class="skipped">{skipped}</ul>' if skipped else "") + _older(report) + "</header>"
        f'<section><h2>Tasks and datasets</h2><div class="graph-wrap">{graph_svg(report)}</div></section>'
        '<section class="layout"><div class="tasklist"><input type="search" placeholder="find a task" '
        'aria-label="find a task"><ul></ul></div><div class="task-view"><h2 class="task-title"></h2>'
        '<div class="charts"></div><div class="controls"><input class="run-filter" type="search" '
        'placeholder="filter runs (status, id, backend, verdict)" aria-label="filter runs">'
        f'<select class="status-filter" aria-label="status"><option value="">any status</option>{status_options}'
        '</select><span class="run-count"></span></div><table class="runs"><thead></thead><tbody></tbody></table>'
        '<div class="drill" hidden><h3 class="drill-title"></h3><div class="drill-steps"></div><pre></pre></div>'
        '</div></section>'
        f'<script type="application/json" class="report-data">{to_json_text(report.data())}</script>'
        f'{records}<script>{_asset("report.js")}</script></div>'
    )


# How every page begins: ``ubunye lineage report -o`` replaces a file that begins so (its own page).
PAGE_MARK = ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
             '<meta name="viewport" content="width=device-width, initial-scale=1">'
             "<title>Ubunye lineage report</title>")


def is_page(head: bytes) -> bool:
    """Whether a file beginning with ``head`` is a page this module wrote (so it may be replaced)."""
    return head.startswith(PAGE_MARK.encode("utf-8"))


def page_rules(path: Any, *, store_root: Any = None, force: bool = False) -> dict[str, Any]:
    """How a page is written to ``path`` (:func:`ubunye.userwrites.write_file`'s rules): a page
    written before is replaced, any other file only with ``force``; never in the store read
    (``store_root``) nor in any store ``path`` lies in."""
    from pathlib import Path

    from ubunye.lineage.store import stores_around

    protected = [*([store_root] if isinstance(store_root, Path) else []), *stores_around(path)]
    return {"own": is_page, "force": force, "protected": protected, "what": "ubunye lineage report"}


def render_page(report: Report) -> str:
    """A whole HTML document, self-contained."""
    return PAGE_MARK + "</head><body>" + render_fragment(report) + "</body></html>\n"
