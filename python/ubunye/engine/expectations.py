"""Expectations: data rules checked on inputs (right after the read) and on
outputs (before anything is written).

Config (``CONFIG.expectations``), per input or output name::

    adults:
      - {kind: not_null, column: id}
      - {kind: unique, columns: [id, day]}
      - {kind: between, column: age, min: 18, max: 130, severity: warn}
      - {kind: one_of, column: city, values: [Durban, Soweto]}
      - {kind: matches, column: email, pattern: '[^@]+@[^@]+'}
      - {kind: row_count, min: 1, max: 1000000}
      - {kind: columns, columns: {id: int64, name: string}, exact: true}

The 0.8.0 form (a mapping with ``rules``, ``quarantine``, ``reconcile``) is
read by :mod:`ubunye.engine.expectation_sets`.

``name`` is optional (default ``<column>_<kind>`` or ``<kind>``); ``severity``
is ``fail`` (default: a broken rule stops the run before any write) or ``warn``.
Row rules count the rows that break them; a null passes every rule except
``not_null``; ``matches`` tests the whole value, with ``.`` matching line
ends too (Python ``re.fullmatch`` with ``DOTALL``), in Python's syntax with
ASCII classes on both backends (:mod:`ubunye.engine.regex`: ``\\d`` is
``[0-9]`` on pandas and Spark alike). ``unique`` counts the non-null
keys that repeat. ``columns`` compares rows-v1 canonical kinds.

The per-backend counting lives in :mod:`ubunye.engine.checks_pandas` and
:mod:`ubunye.engine.checks_spark`; both return :class:`Outcome` per rule.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, NamedTuple, Optional, Sequence

from ubunye.engine.errors import ConfigError

KINDS = ("not_null", "unique", "between", "one_of", "matches", "row_count", "columns")
SEVERITIES = ("fail", "warn")
_PARAMS: dict[str, tuple[str, ...]] = {
    "not_null": ("column",),
    "unique": ("column", "columns"),
    "between": ("column", "min", "max"),
    "one_of": ("column", "values"),
    "matches": ("column", "pattern"),
    "row_count": ("min", "max"),
    "columns": ("columns", "exact"),
}
_COMMON = ("kind", "name", "severity")


@dataclass(frozen=True)
class Rule:
    """One validated expectation."""

    name: str
    kind: str
    severity: str = "fail"
    column: Optional[str] = None
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The columns a ``unique`` rule keys on."""
        cols = self.params.get("columns")
        return tuple(cols) if cols else ((self.column,) if self.column else ())


class Outcome(NamedTuple):
    """What checking one rule found: rows (or columns) breaking it, out of how many."""

    failed: int
    total: int
    detail: Optional[str] = None
    ok: Optional[bool] = None  # a verdict of its own (a reconcile within bounds); None: failed == 0


def _number(value: Any, file: Path, key: str) -> float | int:
    if isinstance(value, bool):
        raise ConfigError(file, key, f"expected a number; got {value!r}")
    if isinstance(value, (int, float)):
        return value
    try:
        text = str(value)
        return int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text)
    except ValueError:
        raise ConfigError(file, key, f"expected a number; got {value!r}") from None


def parse_rules(value: Any, file: Path, key: str) -> tuple[Rule, ...]:
    """Validate one name's list of rules."""
    if not isinstance(value, list):
        raise ConfigError(file, key, f"expected a list of rules; got {type(value).__name__}")
    rules: list[Rule] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        rule = parse_rule(item, file, f"{key}[{i}]")
        if rule.name in seen:
            raise ConfigError(file, f"{key}[{i}].name", f"rule name {rule.name!r} used twice; names must differ")
        seen.add(rule.name)
        rules.append(rule)
    return tuple(rules)


def parse_rule(item: Any, file: Path, key: str) -> Rule:
    """Validate one rule mapping."""
    if not isinstance(item, dict):
        raise ConfigError(file, key, f"expected a mapping with kind; got {item!r}")
    kind = item.get("kind")
    if kind not in KINDS:
        raise ConfigError(file, f"{key}.kind", f"expected one of {', '.join(KINDS)}; got {kind!r}")
    allowed = _COMMON + _PARAMS[kind]
    for k in item:
        if k not in allowed:
            raise ConfigError(file, f"{key}.{k}", f"unknown key for {kind}; expected one of {', '.join(allowed)}")
    severity = str(item.get("severity", "fail")).lower()
    if severity not in SEVERITIES:
        raise ConfigError(file, f"{key}.severity", f"expected one of fail, warn; got {item.get('severity')!r}")
    column = item.get("column")
    if column is not None and not isinstance(column, str):
        raise ConfigError(file, f"{key}.column", f"expected a column name; got {column!r}")
    params: dict[str, Any] = {}
    if kind in ("not_null", "between", "one_of", "matches") and column is None:
        raise ConfigError(file, f"{key}.column", f"missing; {kind} needs a column")
    if kind == "unique":
        cols = item.get("columns")
        if cols is not None:
            if column is not None:
                raise ConfigError(file, f"{key}.columns", "give column or columns, not both")
            if not isinstance(cols, list) or not cols or not all(isinstance(c, str) for c in cols):
                raise ConfigError(file, f"{key}.columns", f"expected a non-empty list of column names; got {cols!r}")
            params["columns"] = list(cols)
        elif column is None:
            raise ConfigError(file, f"{key}.column", "missing; unique needs column or columns")
    if kind in ("between", "row_count"):
        for bound in ("min", "max"):
            if item.get(bound) is not None:
                params[bound] = _number(item[bound], file, f"{key}.{bound}")
        if not params:
            raise ConfigError(file, key, f"{kind} needs min, max or both")
        if "min" in params and "max" in params and params["min"] > params["max"]:
            raise ConfigError(file, f"{key}.min", f"min {params['min']} is above max {params['max']}")
    if kind == "one_of":
        values = item.get("values")
        if not isinstance(values, list) or not values:
            raise ConfigError(file, f"{key}.values", f"expected a non-empty list; got {values!r}")
        params["values"] = list(values)
    if kind == "matches":
        pattern = item.get("pattern")
        if not isinstance(pattern, str):
            raise ConfigError(file, f"{key}.pattern", f"expected a regular expression; got {pattern!r}")
        from ubunye.engine.regex import PatternError, java_regex

        try:
            java_regex(pattern)  # valid in Python, and its Java form built (the same classes on both backends)
        except PatternError as exc:
            raise ConfigError(file, f"{key}.pattern", str(exc)) from None
        params["pattern"] = pattern
    if kind == "columns":
        cols = item.get("columns")
        if isinstance(cols, list) and cols and all(isinstance(c, str) for c in cols):
            params["columns"] = {c: None for c in cols}
        elif isinstance(cols, dict) and cols and all(isinstance(v, str) for v in cols.values()):
            params["columns"] = {str(k): kind_name(v, file, f"{key}.columns.{k}") for k, v in cols.items()}
        else:
            raise ConfigError(file, f"{key}.columns", f"expected a list of names or a mapping name: kind; got {cols!r}")
        exact = item.get("exact", False)
        if not isinstance(exact, bool):
            raise ConfigError(file, f"{key}.exact", f"expected true or false; got {exact!r}")
        params["exact"] = exact
    default_name = f"{column}_{kind}" if column else kind
    name = item.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise ConfigError(file, f"{key}.name", f"expected a non-empty string; got {name!r}")
    return Rule(name=name, kind=kind, severity=severity, column=column, params=params)


def kind_name(text: str, file: Path, key: str) -> str:
    """A ``columns`` rule's type name, checked when the config is read: a rows-v1 kind as the
    record names it (``int64``, ``decimal(10,2)``, ``list<string>``), spaces dropped."""
    from ubunye.hashing.errors import RowsV1Error
    from ubunye.hashing.kinds import parse_kind

    fixed = text.replace(" ", "")
    try:
        parse_kind(fixed)
    except RowsV1Error:
        raise ConfigError(file, key, f"unknown type {text!r}; expected a kind as run records name them, such as "
                                     "int64, float64, string, bool, date, timestamp, decimal(10,2), list<string>") from None
    return fixed


def check_columns(rule: Rule, kinds: Sequence[tuple[str, str]]) -> Outcome:
    """The ``columns`` rule against a frame's canonical ``(name, kind)`` pairs."""
    have = dict(kinds)
    want: Mapping[str, Optional[str]] = rule.params["columns"]
    problems: list[str] = []
    for col, kind in want.items():
        if col not in have:
            problems.append(f"{col} missing")
        elif kind is not None and have[col] not in (kind if isinstance(kind, tuple) else (kind,)):
            expected = " or ".join(kind) if isinstance(kind, tuple) else kind
            problems.append(f"{col} is {have[col]}, expected {expected}")
    extra = [c for c in have if c not in want] if rule.params.get("exact") else []
    problems.extend(f"{c} not expected" for c in extra)
    return Outcome(failed=len(problems), total=len(want) + len(extra), detail="; ".join(problems) or None)


def missing_columns(rule: Rule, columns: Sequence[str]) -> Optional[str]:
    """A detail naming the rule's columns that the frame does not have, or None."""
    wanted = rule.key_columns if rule.kind == "unique" else ((rule.column,) if rule.column else ())
    missing = [c for c in wanted if c not in columns]
    return f"no column {', '.join(repr(c) for c in missing)}" if missing else None


def not_numbers(rule: Rule, type_name: str) -> str:
    """The detail of a ``between`` rule on a column whose values are not numbers (each such value
    breaks it: it lies in no numeric range), for both engines."""
    return f"column {rule.column!r} holds {type_name} values; between compares numbers (min/max)"


def passed(rule: Rule, outcome: Outcome) -> bool:
    return outcome.failed == 0 if outcome.ok is None else outcome.ok


def result_entry(name: str, side: str, rule: Rule, outcome: Outcome) -> dict[str, Any]:
    """The record's ``expectations[*]`` entry of one checked rule."""
    entry: dict[str, Any] = {
        "output": name,
        "rule": rule.name,
        "kind": rule.kind,
        "severity": rule.severity,
        "column": rule.column if rule.kind != "unique" else ",".join(rule.key_columns),
        "failed": outcome.failed,
        "total": outcome.total,
        "passed": passed(rule, outcome),
        "side": side,
    }
    if outcome.detail:
        entry["detail"] = outcome.detail
    return entry


def broken_line(entry: Mapping[str, Any]) -> str:
    """One line saying how a failed rule was broken (for the run's error)."""
    what = f"{entry['output']}: {entry['rule']} ({entry['kind']}) broken by {entry['failed']} of {entry['total']}"
    return what + (f" ({entry['detail']})" if entry.get("detail") else "")
