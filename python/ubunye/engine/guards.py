"""Quarantine and reconcile (the 0.8.0 expectations form) around a run's outputs.

:func:`measure_inputs` counts (and sums) the inputs a reconcile names, as read,
before the transform can change them. :func:`check_output` checks one output's
:class:`~ubunye.engine.expectation_sets.RuleSet`: its rules, its reconciles
(against the output before quarantine: a quarantined row was set aside, not
lost), then splits off the rows breaking a ``quarantine`` rule. Nothing is
written here: a broken ``fail`` rule or a quarantine rate above
``max_quarantine_rate`` comes back as a line for the run's
:class:`~ubunye.engine.errors.ExpectationError`, raised before any write.
The per-backend work lives in :mod:`ubunye.engine.checks_pandas` and
:mod:`ubunye.engine.checks_spark`.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, NamedTuple, Optional, Sequence

from ubunye.engine.errors import EngineError
from ubunye.engine.expectation_sets import FAILED_RULES_COLUMN, Reconcile, RuleSet, allowed
from ubunye.engine.expectations import Outcome, Rule, broken_line, missing_columns, result_entry

Measured = tuple[int, dict[str, Any]]  # rows, totals by column


class Checked(NamedTuple):
    """What checking one output found: record entries, lines that stop the run, the
    rows to write and (when it has a quarantine output) the rows set aside."""

    entries: list[dict[str, Any]]
    broken: list[str]
    clean: Any
    quarantined: Optional[Any]


def _kind(backend: Any, frame: Any) -> str:
    """Which implementation serves this frame: ``spark``, ``pandas``, or the backend's own
    ``measure_rows`` / ``split_rows`` methods (a backend of another kind provides them)."""
    if backend.name == "spark":
        return "spark"
    import pandas as pd

    if isinstance(frame, pd.DataFrame):
        return "pandas"
    if hasattr(backend, "split_rows") and hasattr(backend, "measure_rows"):
        return "own"
    raise EngineError(f"the {backend.name} backend cannot quarantine rows or reconcile "
                      f"(it has no split_rows and measure_rows)")


def _measure(backend: Any, frame: Any, columns: Sequence[str]) -> Measured:
    kind = _kind(backend, frame)
    if kind == "spark":
        from ubunye.engine.checks_spark import measure_spark

        return measure_spark(frame, columns)
    if kind == "own":
        return backend.measure_rows(frame, columns)
    from ubunye.engine.checks_pandas import measure_pandas

    return measure_pandas(frame, columns)


def _split(backend: Any, frame: Any, rules: Sequence[Rule]) -> tuple[Any, Any]:
    kind = _kind(backend, frame)
    if kind == "spark":
        from ubunye.engine.checks_spark import split_spark

        return split_spark(frame, rules, FAILED_RULES_COLUMN)
    if kind == "own":
        return backend.split_rows(frame, rules, FAILED_RULES_COLUMN)
    from ubunye.engine.checks_pandas import split_pandas

    return split_pandas(frame, rules, FAILED_RULES_COLUMN)


def measure_inputs(backend: Any, expectations: Mapping[str, Any], sources: Mapping[str, Any]) -> dict[str, Measured]:
    """Rows and wanted totals of every input a reconcile names (one pass per input)."""
    wanted: dict[str, list[str]] = {}
    for rules in expectations.values():
        for check in getattr(rules, "reconcile", ()):
            columns = wanted.setdefault(check.input, [])
            if check.input_column and check.input_column not in columns:
                columns.append(check.input_column)
    return {name: _measure(backend, sources[name], cols) for name, cols in wanted.items() if name in sources}


def check_output(backend: Any, name: str, frame: Any, rules: RuleSet,
                 measured: Mapping[str, Measured]) -> Checked:
    """Check one output's rules and reconciles, and split off its quarantined rows."""
    entries: list[dict[str, Any]] = []
    broken: list[str] = []
    if rules.quarantine is not None:
        refuse_failed_rules_column(name, rules.quarantine, _columns(backend, frame))
        frame = _materialise(backend, frame)  # checks, counts and both writes see the same rows
    columns = list(backend.port(frame).schema)
    quarantine_rules: list[Rule] = []
    for rule, outcome in zip(rules, backend.check(frame, list(rules)) if rules else []):
        entry = result_entry(name, "output", rule, outcome)
        entries.append(entry)
        missing = missing_columns(rule, columns)
        if rule.severity == "quarantine" and not missing:
            quarantine_rules.append(rule)
        if not entry["passed"] and (rule.severity == "fail" or (rule.severity == "quarantine" and missing)):
            broken.append(broken_line(entry))  # a quarantine rule on a column not there cannot sort rows
    if rules.reconcile:
        sum_columns = [c.sum_column for c in rules.reconcile if c.sum_column]
        rows, sums = _measure(backend, frame, sum_columns)
        for check in rules.reconcile:
            for rule, outcome in reconcile_outcomes(name, check, measured.get(check.input), rows, sums):
                entry = result_entry(name, "output", rule, outcome)
                entries.append(entry)
                if not entry["passed"] and rule.severity == "fail":
                    broken.append(f"{name}: {rule.name} (reconcile): {outcome.detail}")
    if rules.quarantine is None:
        return Checked(entries, broken, frame, None)
    clean, quarantined = _split(backend, frame, quarantine_rules)
    total = backend.port(frame).count()
    kept, n = backend.port(clean).count(), backend.port(quarantined).count()
    entry = partition_entry(name, rules.quarantine, total, kept, n)
    entries.append(entry)
    if not entry["passed"]:  # a row in neither output or in both: never written as a success
        broken.append(broken_line(entry))
    rate = rules.max_quarantine_rate
    if rate is not None and total and n / total > rate:
        broken.append(f"{name}: {n} of {total} rows quarantined ({n / total:.1%}), "
                      f"more than max_quarantine_rate {rate:.1%}")
    return Checked(entries, broken, clean, quarantined)


def partition_entry(name: str, target: str, total: int, kept: int, quarantined: int) -> dict[str, Any]:
    """The record's entry of the quarantine equation: ``rows(clean) + rows(quarantine) ==
    rows(output)``, with the three counts (``failed`` is how far it is off)."""
    rule = Rule(name=f"{name}_quarantine_partition", kind="quarantine_partition", severity="fail")
    detail = f"{total} rows = {kept} in {name} + {quarantined} in {target}"
    if kept + quarantined != total:
        detail = f"{total} rows but {kept} in {name} + {quarantined} in {target}"
    entry = result_entry(name, "output", rule, Outcome(abs(total - kept - quarantined), total, detail))
    entry.update(rows=total, clean_rows=kept, quarantined_rows=quarantined)
    return entry


def refuse_failed_rules_column(name: str, target: str, columns: Sequence[str]) -> None:
    """An output with a quarantine output may not carry the column the engine adds to it."""
    if FAILED_RULES_COLUMN in columns:
        raise EngineError(f"output {name!r} has a column named {FAILED_RULES_COLUMN}, which the engine adds to its "
                          f"quarantine output {target!r}; rename that column")


def _columns(backend: Any, frame: Any) -> list[str]:
    columns = getattr(frame, "columns", None)  # the names as the frame has them (pandas, Spark)
    return [str(c) for c in columns] if columns is not None else list(backend.port(frame).schema)


def _materialise(backend: Any, frame: Any) -> Any:
    """The frame evaluated once, so that every later count and write sees the same rows."""
    kind = _kind(backend, frame)
    if kind == "spark":
        from ubunye.engine.checks_spark import materialise_spark

        return materialise_spark(frame)
    if kind == "own" and hasattr(backend, "materialise_rows"):
        return backend.materialise_rows(frame)
    return frame  # a pandas frame holds its rows already


def reconcile_outcomes(name: str, check: Reconcile, source: Optional[Measured], rows: int,
                       sums: Mapping[str, Any]) -> list[tuple[Rule, Outcome]]:
    """The results of one reconcile: rows carried over, a column's total carried over."""
    out: list[tuple[Rule, Outcome]] = []
    if check.checks_rows:
        rule = Rule(name=check.rows_name, kind="reconcile", severity=check.severity)
        if source is None:
            out.append((rule, Outcome(rows, rows, f"input {check.input} was not read", ok=False)))
        else:
            read = source[0]
            lost, gained = max(read - rows, 0), max(rows - read, 0)
            ok, limits = True, []
            for label, bound, moved in (("lost", check.max_lost, lost), ("gained", check.max_gained, gained)):
                if bound is not None:
                    ok = ok and moved <= allowed(bound, read)
                    limits.append(f"at most {_text(bound)} {label}")
            detail = (f"{read} rows read from {check.input}, {rows} reached {name}: "
                      f"{lost} lost, {gained} gained ({', '.join(limits)})")
            out.append((rule, Outcome(lost or gained, read, detail, ok=ok)))
    if check.sum_column:
        rule = Rule(name=check.sum_name, kind="reconcile", severity=check.severity, column=check.sum_column)
        src = str(check.input_column)
        if source is None or src not in source[1]:
            why = f"input {check.input} was not read" if source is None else \
                f"input {check.input} has no numeric column {src!r}"
            out.append((rule, Outcome(1, 1, why, ok=False)))
        elif check.sum_column not in sums:
            out.append((rule, Outcome(1, 1, f"{name} has no numeric column {check.sum_column!r}", ok=False)))
        else:
            before, after = source[1][src], sums[check.sum_column]
            diff = _difference(before, after)
            ok = abs(diff) <= allowed(check.tolerance, before)
            detail = (f"sum of {src} in {check.input} {_text(before)}, of {check.sum_column} in {name} "
                      f"{_text(after)}: difference {_text(diff)} (at most {_text(check.tolerance)})")
            out.append((rule, Outcome(0 if ok else 1, 1, detail, ok=ok)))
    return out


def _difference(before: Any, after: Any) -> Any:
    """``after - before``: exact for integers; two equal float totals (inf, NaN too) differ by 0."""
    if isinstance(before, float) or isinstance(after, float):
        b, a = float(before), float(after)
        return 0.0 if a == b or (math.isnan(a) and math.isnan(b)) else a - b
    return after - before


def _text(value: Any) -> str:
    """A number as the record's detail writes it: ints as they are, whole floats as ints."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    if math.isfinite(value) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)
