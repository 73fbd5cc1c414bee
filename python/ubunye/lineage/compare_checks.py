"""Compare two runs' expectations and timings (:func:`~ubunye.lineage.compare.compare_records`'s
last two lists): a rule found under different default names in the two runs is paired by what
it checks; a timing by its step and target, with the ratio ``b / a``. Neither decides the verdict.
"""
from __future__ import annotations

from typing import Any, Optional

from ubunye.lineage.step_diff import CHANGED, MISSING, UNCHANGED, FieldDiff, _ratio
from ubunye.lineage.record import RunRecord


def _outcome(e: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
    if e is None:
        return None
    return {"passed": e.get("passed"), "failed": e.get("failed"), "total": e.get("total"),
            "severity": e.get("severity")}


def _identity(e: dict[str, Any]) -> tuple[str, str, str]:
    """What a rule checks, whatever its name: output, kind and columns (the list form
    writes ``a,b``, ubunye-engine 0.8.0 ``a, b``)."""
    column = "" if e.get("column") is None else str(e.get("column")).replace(" ", "")
    return (str(e.get("output")), str(e.get("kind")), column)


def _pair_renamed(da: dict[tuple[str, str], dict[str, Any]], db: dict[tuple[str, str], dict[str, Any]]) -> None:
    """Key a rule found under different default names in the two runs (the list form's
    ``unique`` on two columns, 0.8.0's ``a_b_unique``) by run A's name in both, when its
    output, kind and columns match exactly one unpaired rule of run B."""
    only_b: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for k, e in db.items():
        if k not in da and e.get("kind") != "reconcile":
            only_b.setdefault(_identity(e), []).append(k)
    only_a: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for k, e in da.items():
        if k not in db and e.get("kind") != "reconcile":
            only_a.setdefault(_identity(e), []).append(k)
    for ident, keys in only_a.items():
        if len(keys) == 1 and len(only_b.get(ident, ())) == 1:
            db[keys[0]] = db.pop(only_b[ident][0])


def compare_expectations(la: list[dict[str, Any]], lb: list[dict[str, Any]]) -> list[FieldDiff]:
    def key(e: dict[str, Any]) -> tuple[str, str]:
        return (str(e.get("output")), str(e.get("rule")))

    da = {key(e): e for e in la}
    db = {key(e): e for e in lb}
    _pair_renamed(da, db)
    out: list[FieldDiff] = []
    for k in list(da) + [k for k in db if k not in da]:
        ea, eb = _outcome(da.get(k)), _outcome(db.get(k))
        name = f"{k[0]}.{k[1]}"
        detail = {"output": k[0], "rule": k[1]}
        if ea is None or eb is None:
            out.append(FieldDiff(name, MISSING, ea, eb, reason=f"not checked in run {'A' if ea is None else 'B'}",
                                 detail=detail))
            continue
        detail["outcome_changed"] = ea["passed"] != eb["passed"]
        detail["failed_changed"] = ea["failed"] != eb["failed"]
        out.append(FieldDiff(name, UNCHANGED if ea == eb else CHANGED, ea, eb, detail=detail))
    return out


def _timing_key(t: dict[str, Any]) -> tuple[str, str]:
    target = t.get("input") or t.get("output") or ""
    return (str(t.get("step", "")), str(target))


def compare_timings(a: RunRecord, b: RunRecord) -> list[FieldDiff]:
    da = {_timing_key(t): t.get("seconds") for t in a.timings}
    db = {_timing_key(t): t.get("seconds") for t in b.timings}
    out: list[FieldDiff] = []
    for k in list(da) + [k for k in db if k not in da]:
        name = f"{k[0]}({k[1]})" if k[1] else k[0]
        detail: dict[str, Any] = {"step": k[0], "target": k[1] or None}
        if k not in da or k not in db:
            out.append(FieldDiff(name, MISSING, da.get(k), db.get(k),
                                 reason=f"not timed in run {'A' if k not in da else 'B'}", detail=detail))
            continue
        detail["ratio"] = _ratio(da[k], db[k])
        out.append(FieldDiff(name, UNCHANGED if da[k] == db[k] else CHANGED, da[k], db[k], detail=detail))
    return out
