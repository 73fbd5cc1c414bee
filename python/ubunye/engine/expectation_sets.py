"""The ubunye-engine 0.8.0 form of ``CONFIG.expectations``, beside the list form.

Per input or output, a mapping instead of a list::

    adults:
      rules:
        - not_null: id
        - unique: [id, day]                   # or one column: unique: id
        - between: {column: age, min: 18, max: 130}
          severity: quarantine                # fail (default) | warn | quarantine
          name: adult_age                     # default <column>_<kind>
          description: only adults
        - one_of: {column: city, values: [Durban, Soweto]}
        - matches: {column: email, pattern: '[^@]+@[^@]+'}
        - row_count: {min: 1}
        - columns: {id: int64, score: [float64, float32]}
          extra: forbid                       # allow (default) other columns, or not
      quarantine: adults_rejected             # an output in CONFIG.outputs
      max_quarantine_rate: 0.1                # more quarantined than this share: the run stops
      reconcile:                              # a list (one mapping is taken as a list of one)
        - input: people
          rows: {max_lost: "5%", max_gained: 0}   # rows, or a share of the input's rows
          sum: {column: amount, input_column: amount, tolerance: "0.1%"}
          severity: fail                      # fail | warn
          name: people                        # results people_rows, people_sum

A rule names exactly one kind, written as its key. Rows breaking a
``quarantine`` rule (only the row kinds: not_null, between, one_of, matches)
leave the output for the quarantine output, with a ``_ubunye_failed_rules``
column (the rules each row broke, comma-joined in rule order); that output is
always written, empty when no row broke a rule, and the transform must not
return it. Quarantine and reconcile go on outputs only. A reconcile compares the
input as read (before the transform) with the output before quarantine (a
quarantined row was set aside, not lost): ``rows`` bounds the rows lost and
gained (a number of rows, or "N%" of the input's rows), ``sum`` bounds the
difference of a column's totals (a number, or "N%" of the input's total; nulls
and NaN left out). The checking lives in :mod:`ubunye.engine.guards`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from ubunye.engine.errors import ConfigError
from ubunye.engine.expectations import KINDS, Rule, kind_name, parse_rule, parse_rules

FAILED_RULES_COLUMN = "_ubunye_failed_rules"
ROW_KINDS = ("not_null", "between", "one_of", "matches")  # the kinds that can quarantine rows
SET_KEYS = ("rules", "quarantine", "max_quarantine_rate", "reconcile")
RULE_KEYS = ("name", "severity", "description", "extra")
RECONCILE_KEYS = ("input", "rows", "sum", "severity", "description", "name")
ROWS_KEYS, SUM_KEYS = ("max_lost", "max_gained"), ("column", "input_column", "tolerance")  # reconcile's rows, sum
_SPEC_KEYS = {
    "between": ("column", "min", "max"),
    "one_of": ("column", "values"),
    "matches": ("column", "pattern"),
    "row_count": ("min", "max"),
}
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")
Allowance = Union[int, float, str]  # a number, or a share written "N%"


@dataclass(frozen=True)
class Reconcile:
    """One ``reconcile`` check of an output against an input."""

    input: str
    severity: str = "fail"
    name: Optional[str] = None
    max_lost: Optional[Allowance] = None
    max_gained: Optional[Allowance] = None
    checks_rows: bool = False
    sum_column: Optional[str] = None
    input_column: Optional[str] = None
    tolerance: Allowance = 0

    @property
    def rows_name(self) -> str:
        return f"{self.name}_rows" if self.name else f"rows_from_{self.input}"

    @property
    def sum_name(self) -> str:
        return f"{self.name}_sum" if self.name else f"{self.sum_column}_sum_from_{self.input}"

    @property
    def names(self) -> list[str]:
        return ([self.rows_name] if self.checks_rows else []) + ([self.sum_name] if self.sum_column else [])


class RuleSet(tuple):  # type: ignore[type-arg]
    """The rules of one input or output (a tuple of :class:`Rule`, as the list form
    gives), with the 0.8.0 form's quarantine target, rate and reconciles."""

    quarantine: Optional[str] = None
    max_quarantine_rate: Optional[float] = None
    reconcile: tuple[Reconcile, ...] = ()

    def __new__(cls, rules: Any = (), *, quarantine: Optional[str] = None,
                max_quarantine_rate: Optional[float] = None, reconcile: tuple[Reconcile, ...] = ()) -> "RuleSet":
        self = super().__new__(cls, tuple(rules))
        self.quarantine = quarantine
        self.max_quarantine_rate = max_quarantine_rate
        self.reconcile = tuple(reconcile)
        return self


def allowed(value: Allowance, base: Union[int, float]) -> float:
    """What an allowance permits against ``base``: the number, or its share of ``|base|``."""
    if isinstance(value, str):
        return float(_PERCENT.match(value).group(1)) / 100 * abs(float(base))  # type: ignore[union-attr]
    return value


def parse_expectations(value: Any, inputs: Mapping[str, Any], outputs: Mapping[str, Any],
                       file: Path) -> dict[str, tuple[Rule, ...]]:
    """``CONFIG.expectations``: per input or output, the list form or the 0.8.0 form."""
    key = "CONFIG.expectations"
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(file, key, f"expected a mapping of input or output names; got {type(value).__name__}")
    out: dict[str, tuple[Rule, ...]] = {}
    for name, body in value.items():
        where = f"{key}.{name}"
        if name not in inputs and name not in outputs:
            known = ", ".join(sorted({*inputs, *outputs}))
            raise ConfigError(file, where, f"expected the name of an input or output ({known})")
        if isinstance(body, dict):
            out[name] = parse_set(body, file, where, name, inputs, outputs)
        else:
            out[name] = parse_rules(body, file, where)
    for name, rules in out.items():  # an input read with a declared schema: its column types are known now
        spec = inputs.get(name)
        if getattr(spec, "schema", None):
            refuse_between_on_text(rules, spec.schema, file, f"{key}.{name}", f"CONFIG.inputs.{name}.schema")
    targets: dict[str, str] = {}
    for name, rules in out.items():
        target = getattr(rules, "quarantine", None)
        if target is None:
            continue
        if target in targets:
            raise ConfigError(file, f"{key}.{name}.quarantine",
                              f"{target!r} already receives {targets[target]!r}'s rows; give each its own output")
        targets[target] = name
    for target, source in targets.items():
        if target in out:
            raise ConfigError(file, f"{key}.{target}",
                              f"{target!r} receives {source!r}'s quarantined rows; it cannot have expectations")
    return out


def refuse_between_on_text(rules: Any, ddl: str, file: Path, where: str, schema_key: str) -> None:
    """A ``between`` rule on a column the declared schema types as no number: a config error
    naming the rule and the column (the same rule on data found so is a failed check:
    :func:`ubunye.engine.expectations.not_numbers`)."""
    import pyarrow.types as pt

    from ubunye.io.ddl import parse

    try:
        types = {f.name.lower(): f.type for f in parse(ddl)}  # names ignore case, as in Spark
    except Exception:  # noqa: BLE001 - a bad schema is refused where the input is read
        return
    for rule in rules:
        found = types.get(str(rule.column).lower()) if rule.kind == "between" else None
        if found is not None and not (pt.is_integer(found) or pt.is_floating(found) or pt.is_decimal(found)):
            raise ConfigError(file, where, f"rule {rule.name!r}: column {rule.column!r} is {found} in {schema_key}; "
                                           "between compares numbers (min/max)")


def quarantine_targets(expectations: Mapping[str, Any]) -> dict[str, str]:
    """The quarantine outputs, each with the output whose rows it receives."""
    return {r.quarantine: n for n, r in expectations.items() if getattr(r, "quarantine", None)}


def parse_set(body: dict, file: Path, key: str, name: str, inputs: Mapping[str, Any],
              outputs: Mapping[str, Any]) -> RuleSet:
    """One 0.8.0 ``ExpectationSet`` mapping."""
    for k in body:
        if k not in SET_KEYS:
            raise ConfigError(file, f"{key}.{k}", f"unknown key; expected one of {', '.join(SET_KEYS)}")
    items = body.get("rules", [])
    if items is None:
        items = []
    if not isinstance(items, list):
        raise ConfigError(file, f"{key}.rules", f"expected a list of rules; got {type(items).__name__}")
    rules = [parse_kind_rule(item, file, f"{key}.rules[{i}]") for i, item in enumerate(items)]
    quarantine = body.get("quarantine")
    is_input = name in inputs
    if quarantine is not None:
        if is_input:
            raise ConfigError(file, f"{key}.quarantine", f"{name!r} is an input; only outputs quarantine rows")
        if not isinstance(quarantine, str) or quarantine not in outputs:
            raise ConfigError(file, f"{key}.quarantine",
                              f"expected the name of an output in CONFIG.outputs ({', '.join(outputs)}); "
                              f"got {quarantine!r}")
        if quarantine == name:
            raise ConfigError(file, f"{key}.quarantine", "an output cannot quarantine into itself")
    wants = [i for i, r in enumerate(rules) if r.severity == "quarantine"]
    if wants and quarantine is None:
        raise ConfigError(file, f"{key}.rules[{wants[0]}].severity",
                          f"quarantine needs '{key}.quarantine: <output name>'")
    rate = body.get("max_quarantine_rate")
    if rate is not None:
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ConfigError(file, f"{key}.max_quarantine_rate", f"expected a number from 0 to 1; got {rate!r}")
        if not wants:
            raise ConfigError(file, f"{key}.max_quarantine_rate", "needs at least one rule with severity quarantine")
        rate = float(rate)
    raw = body.get("reconcile") or []
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        raise ConfigError(file, f"{key}.reconcile", f"expected a list of {{input, rows, sum}}; got {raw!r}")
    if raw and is_input:
        raise ConfigError(file, f"{key}.reconcile", f"{name!r} is an input; reconcile goes on an output")
    checks = [parse_reconcile(item, file, f"{key}.reconcile[{i}]", inputs) for i, item in enumerate(raw)]
    seen: set[str] = set()
    for label in [r.name for r in rules] + [n for c in checks for n in c.names]:
        if label in seen:
            raise ConfigError(file, key, f"rule name {label!r} used twice; names must differ")
        seen.add(label)
    return RuleSet(rules, quarantine=quarantine, max_quarantine_rate=rate, reconcile=tuple(checks))


def parse_kind_rule(item: Any, file: Path, key: str) -> Rule:
    """One 0.8.0 rule: a mapping naming exactly one kind, as in ``- not_null: id``, marked
    ``v080`` so the checks count it as 0.8.0 did: ``unique`` counts every row of a repeated
    key (null keys too), and NaN in a float column is missing (``not_null`` breaks on it,
    ``between`` and ``one_of`` pass it)."""
    rule = _kind_rule(item, file, key)
    return replace(rule, params={**rule.params, "v080": True})


def _kind_rule(item: Any, file: Path, key: str) -> Rule:
    if not isinstance(item, dict):
        raise ConfigError(file, key, f"expected a mapping naming one kind ({', '.join(KINDS)}); got {item!r}")
    kinds = [k for k in item if k in KINDS]
    for k in item:
        if k not in KINDS and k not in RULE_KEYS:
            raise ConfigError(file, f"{key}.{k}",
                              f"unknown key; expected one kind ({', '.join(KINDS)}) and {', '.join(RULE_KEYS)}")
    if len(kinds) != 1:
        got = ", ".join(kinds) or "none"
        raise ConfigError(file, key, f"expected exactly one kind ({', '.join(KINDS)}); got {got}")
    kind = kinds[0]
    spec = item[kind]
    severity = str(item.get("severity", "fail")).lower()
    if severity not in ("fail", "warn", "quarantine"):
        raise ConfigError(file, f"{key}.severity", f"expected one of fail, warn, quarantine; got {item['severity']!r}")
    if severity == "quarantine" and kind not in ROW_KINDS:
        raise ConfigError(file, f"{key}.severity", f"{kind} is about the whole frame, not a row, so it cannot "
                                                   f"quarantine; expected fail or warn")
    if "extra" in item and kind != "columns":
        raise ConfigError(file, f"{key}.extra", "goes with a columns rule only")
    if "description" in item and not isinstance(item["description"], str):
        raise ConfigError(file, f"{key}.description", f"expected a string; got {item['description']!r}")
    listed: dict[str, Any] = {"kind": kind}
    if kind == "not_null":
        if not isinstance(spec, str) or not spec:
            raise ConfigError(file, f"{key}.not_null", f"expected a column name; got {spec!r}")
        listed["column"] = spec
    elif kind == "unique":
        cols = [spec] if isinstance(spec, str) else spec
        if not isinstance(cols, list) or not cols or not all(isinstance(c, str) for c in cols):
            raise ConfigError(file, f"{key}.unique", f"expected a column name or a list of them; got {spec!r}")
        if len(cols) == 1:
            listed["column"] = cols[0]
        else:
            listed["columns"] = cols
            listed["name"] = "_".join(cols) + "_unique"
    elif kind == "columns":
        return _columns_rule(item, spec, severity, file, key)
    else:
        if not isinstance(spec, dict):
            raise ConfigError(file, f"{key}.{kind}",
                              f"expected a mapping with {', '.join(_SPEC_KEYS[kind])}; got {spec!r}")
        for k in spec:
            if k not in _SPEC_KEYS[kind]:
                raise ConfigError(file, f"{key}.{kind}.{k}",
                                  f"unknown key; expected one of {', '.join(_SPEC_KEYS[kind])}")
        listed.update(spec)
    if "name" in item:
        listed["name"] = item["name"]
    rule = parse_rule(listed, file, key)
    if kind == "matches":  # 0.8.0's matches finds the pattern anywhere in the value (str.contains)
        rule = replace(rule, params={**rule.params, "anywhere": True})
    return replace(rule, severity=severity)


def _columns_rule(item: dict, spec: Any, severity: str, file: Path, key: str) -> Rule:
    if not isinstance(spec, dict) or not spec:
        raise ConfigError(file, f"{key}.columns", f"expected a mapping of column: type (or a list of types); got {spec!r}")
    want: dict[str, Any] = {}
    for col, types in spec.items():
        names = [types] if isinstance(types, str) else types
        if not isinstance(names, list) or not names or not all(isinstance(t, str) for t in names):
            raise ConfigError(file, f"{key}.columns.{col}", f"expected a type name or a list of them; got {types!r}")
        fixed = tuple(kind_name(t.lower(), file, f"{key}.columns.{col}") for t in names)
        want[str(col)] = fixed[0] if len(fixed) == 1 else fixed
    extra = item.get("extra", "allow")
    if extra not in ("allow", "forbid"):
        raise ConfigError(file, f"{key}.extra", f"expected allow or forbid; got {extra!r}")
    name = item.get("name", "columns")
    if not isinstance(name, str) or not name:
        raise ConfigError(file, f"{key}.name", f"expected a non-empty string; got {name!r}")
    return Rule(name=name, kind="columns", severity=severity, params={"columns": want, "exact": extra == "forbid"})


def _allowance(value: Any, file: Path, key: str, *, rows: bool) -> Allowance:
    if isinstance(value, str) and _PERCENT.match(value):
        return value.strip()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ConfigError(file, key, f"expected a number of at least 0 or a share like '1%'; got {value!r}")
    if rows:
        if float(value) != int(value):
            raise ConfigError(file, key, f"expected a whole number of rows (or a share like '{value}%'); got {value!r}")
        return int(value)
    return value


def parse_reconcile(item: Any, file: Path, key: str, inputs: Mapping[str, Any]) -> Reconcile:
    """One reconcile mapping."""
    if not isinstance(item, dict):
        raise ConfigError(file, key, f"expected a mapping with input, rows and/or sum; got {item!r}")
    for k in item:
        if k not in RECONCILE_KEYS:
            raise ConfigError(file, f"{key}.{k}", f"unknown key; expected one of {', '.join(RECONCILE_KEYS)}")
    source = item.get("input")
    if source not in inputs:
        raise ConfigError(file, f"{key}.input", f"expected the name of an input ({', '.join(sorted(inputs))}); "
                                                f"got {source!r}")
    severity = str(item.get("severity", "fail")).lower()
    if severity not in ("fail", "warn"):
        raise ConfigError(file, f"{key}.severity", f"expected fail or warn (a reconcile cannot quarantine); "
                                                   f"got {item['severity']!r}")
    name = item.get("name")
    if name is not None and (not isinstance(name, str) or not name):
        raise ConfigError(file, f"{key}.name", f"expected a non-empty string; got {name!r}")
    out = Reconcile(input=source, severity=severity, name=name)
    rows, total = item.get("rows"), item.get("sum")
    if rows is None and total is None:
        raise ConfigError(file, key, "expected rows, sum or both")
    if rows is not None:
        if not isinstance(rows, dict):
            raise ConfigError(file, f"{key}.rows", f"expected a mapping with max_lost and/or max_gained; got {rows!r}")
        for k in rows:
            if k not in ROWS_KEYS:
                raise ConfigError(file, f"{key}.rows.{k}", f"unknown key; expected one of {', '.join(ROWS_KEYS)}")
        bounds = {k: _allowance(v, file, f"{key}.rows.{k}", rows=True) for k, v in rows.items()}
        if not bounds:
            raise ConfigError(file, f"{key}.rows", "expected max_lost, max_gained or both")
        out = replace(out, checks_rows=True, max_lost=bounds.get("max_lost"), max_gained=bounds.get("max_gained"))
    if total is not None:
        if not isinstance(total, dict):
            raise ConfigError(file, f"{key}.sum", f"expected a mapping with column, input_column, tolerance; got {total!r}")
        for k in total:
            if k not in SUM_KEYS:
                raise ConfigError(file, f"{key}.sum.{k}", f"unknown key; expected one of {', '.join(SUM_KEYS)}")
        column = total.get("column")
        if not isinstance(column, str) or not column:
            raise ConfigError(file, f"{key}.sum.column", f"expected a column name; got {column!r}")
        other = total.get("input_column")
        if other is not None and not isinstance(other, str):
            raise ConfigError(file, f"{key}.sum.input_column", f"expected a column name; got {other!r}")
        tolerance = _allowance(total.get("tolerance", 0), file, f"{key}.sum.tolerance", rows=False)
        out = replace(out, sum_column=column, input_column=other or column, tolerance=tolerance)
    return out
