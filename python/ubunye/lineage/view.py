"""Notebook views of the records: ``ubunye.lineage.view(...)``.

Returns a :class:`ReportView` whose ``_repr_html_`` is the lineage report's body (graph, task
list, history charts, run table, drill-down), so a Jupyter cell shows it as it stands and a
Databricks notebook shows it with ``displayHTML(view.html)`` (or just ``view`` as a cell's
last value on runtimes that call ``_repr_html_``). Nothing is fetched from a network.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

from ubunye.lineage.report_html import page_rules, render_fragment, render_page
from ubunye.lineage.report_model import Report, build_report


class ReportView:
    """The report of a store, shown by notebooks; :meth:`save` writes the standalone page."""

    def __init__(self, report: Report, store_root: Any = None) -> None:
        self.report = report
        self.store_root = store_root  # never saved into

    @property
    def html(self) -> str:
        return render_fragment(self.report)

    def _repr_html_(self) -> str:
        return self.html

    def save(self, path: Union[str, Path], *, force: bool = False) -> Path:
        """Write the standalone page to ``path`` as ``ubunye lineage report -o`` does: a page saved
        before is replaced, any other file only with ``force``, never a link nor a file in a store
        (:class:`~ubunye.userfiles.UserFileError` says why, naming the path)."""
        from ubunye.userwrites import write_file

        path = Path(path)
        write_file(path, render_page(self.report).encode("utf-8"),
                   **page_rules(path, store_root=self.store_root, force=force))
        return path

    def __repr__(self) -> str:
        r = self.report
        return f"<ubunye lineage view: {len(r.tasks)} tasks, {len(r.datasets)} datasets, {r.run_count} runs>"


def view(usecase_dir: Union[str, Path] = ".", *, lineage_dir: Union[str, Path, None] = None,
         usecase: Optional[str] = None, package: Optional[str] = None, task: Optional[str] = None,
         since: Optional[str] = None) -> ReportView:
    """The records under ``usecase_dir`` (or ``lineage_dir``) as a notebook view."""
    from ubunye.lineage.store import open_store

    store = open_store(usecase_dir, lineage_dir)
    return ReportView(build_report(store, usecase=usecase, package=package, task=task, since=since), store.root)
