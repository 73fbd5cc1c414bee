"""engine/guards.py called directly: which implementation serves a frame, the quarantine
equation's entry, and the exact detail of each reconcile a user reads in the record."""
from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from ubunye.engine import checks_spark, guards
from ubunye.engine.backends.pandas_backend import PandasBackend
from ubunye.engine.errors import EngineError
from ubunye.engine.expectation_sets import FAILED_RULES_COLUMN, Reconcile, RuleSet
from ubunye.engine.expectations import Rule


class OwnBackend:
    """A backend of another kind that brings its own row work."""

    name = "own"

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def split_rows(self, frame: Any, rules: Any, column: str) -> tuple[str, str]:
        self.calls.append(("split", frame, tuple(rules), column))
        return "clean", "quarantined"

    def measure_rows(self, frame: Any, columns: Any) -> tuple[int, dict[str, Any]]:
        self.calls.append(("measure", frame, list(columns)))
        return 7, {"amount": 3}

    def materialise_rows(self, frame: Any) -> str:
        self.calls.append(("materialise", frame))
        return "materialised"


RULE = Rule(name="id_not_null", kind="not_null", severity="quarantine", column="id")


def test_a_backend_with_its_own_row_work_is_used_for_non_pandas_frames() -> None:
    own = OwnBackend()
    assert guards._split(own, "frame", [RULE]) == ("clean", "quarantined")
    assert guards._measure(own, "frame", ["amount"]) == (7, {"amount": 3})
    assert guards._materialise(own, "frame") == "materialised"
    assert own.calls == [("split", "frame", (RULE,), FAILED_RULES_COLUMN), ("measure", "frame", ["amount"]),
                         ("materialise", "frame")]


def test_a_pandas_frame_is_served_by_the_pandas_checks_whatever_the_backend() -> None:
    own = OwnBackend()
    frame = pd.DataFrame({"id": [1, None, 3], "amount": [1, 2, 3]})
    clean, quarantined = guards._split(own, frame, [RULE])
    assert clean["id"].tolist() == [1, 3]
    assert quarantined[FAILED_RULES_COLUMN].tolist() == ["id_not_null"]
    assert guards._measure(own, frame, ["amount"]) == (3, {"amount": 6})
    assert guards._materialise(own, frame) is frame
    assert own.calls == []


def test_a_backend_without_row_work_cannot_quarantine() -> None:
    bare = SimpleNamespace(name="polars")
    with pytest.raises(EngineError, match=r"^the polars backend cannot quarantine rows or reconcile \(it has no "
                                          r"split_rows and measure_rows\)$"):
        guards._split(bare, "frame", [RULE])
    half = SimpleNamespace(name="half", split_rows=lambda *a: None)
    with pytest.raises(EngineError, match="the half backend"):
        guards._measure(half, "frame", [])


def test_a_spark_backend_is_served_by_the_spark_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(checks_spark, "split_spark", lambda f, r, c: calls.append(("split", f, tuple(r), c)) or (1, 2))
    monkeypatch.setattr(checks_spark, "measure_spark", lambda f, c: calls.append(("measure", f, list(c))) or (5, {}))
    monkeypatch.setattr(checks_spark, "materialise_spark", lambda f: calls.append(("materialise", f)) or "cached")
    spark = SimpleNamespace(name="spark")
    frame = pd.DataFrame({"id": [1]})  # even a pandas-looking frame: the backend decides
    assert guards._split(spark, frame, [RULE]) == (1, 2)
    assert guards._measure(spark, frame, ["id"]) == (5, {})
    assert guards._materialise(spark, frame) == "cached"
    assert calls == [("split", frame, (RULE,), FAILED_RULES_COLUMN), ("measure", frame, ["id"]),
                     ("materialise", frame)]


def test_an_output_with_a_quarantine_may_not_carry_the_engines_column() -> None:
    frame = pd.DataFrame({"id": [1], FAILED_RULES_COLUMN: ["x"]})
    with pytest.raises(EngineError, match=rf"^output 'clean' has a column named {FAILED_RULES_COLUMN}, which the "
                                          r"engine adds to its quarantine output 'bad'; rename that column$"):
        guards.check_output(PandasBackend(), "clean", frame, RuleSet([RULE], quarantine="bad"), {})
    checked = guards.check_output(PandasBackend(), "clean", frame, RuleSet([RULE]), {})  # no quarantine: allowed
    assert checked.quarantined is None and checked.broken == []


def test_quarantine_splits_rows_and_records_the_equation() -> None:
    frame = pd.DataFrame({"id": [1, None, 3, None]})
    checked = guards.check_output(PandasBackend(), "clean", frame,
                                  RuleSet([RULE], quarantine="bad", max_quarantine_rate=0.5), {})
    assert checked.clean["id"].tolist() == [1, 3] and len(checked.quarantined) == 2
    entry = checked.entries[-1]
    assert entry["rule"] == "clean_quarantine_partition" and entry["passed"]
    assert (entry["rows"], entry["clean_rows"], entry["quarantined_rows"]) == (4, 2, 2)
    assert checked.broken == []  # 50% is not more than 50%
    over = guards.check_output(PandasBackend(), "clean", frame,
                               RuleSet([RULE], quarantine="bad", max_quarantine_rate=0.25), {})
    assert over.broken == ["clean: 2 of 4 rows quarantined (50.0%), more than max_quarantine_rate 25.0%"]


def test_a_quarantine_rate_just_over_its_limit_stops_the_run() -> None:
    """1 of 301 rows is 0.33%: over a 0.003 limit however little (nothing rounded before the
    comparison); 1 of 334 (0.2994%) is within it."""
    for rows, over in ((301, True), (334, False)):
        frame = pd.DataFrame({"id": [None] + list(range(rows - 1))})
        checked = guards.check_output(PandasBackend(), "clean", frame,
                                      RuleSet([RULE], quarantine="bad", max_quarantine_rate=0.003), {})
        assert len(checked.quarantined) == 1
        assert bool(checked.broken) is over, (rows, checked.broken)


def test_the_partition_entry_says_whether_the_counts_add_up() -> None:
    good = guards.partition_entry("o", "q", 5, 3, 2)
    assert good["passed"] and good["detail"] == "5 rows = 3 in o + 2 in q"
    bad = guards.partition_entry("o", "q", 5, 3, 1)
    assert not bad["passed"] and bad["detail"] == "5 rows but 3 in o + 1 in q"
    assert (bad["rows"], bad["clean_rows"], bad["quarantined_rows"]) == (5, 3, 1)


def _rows(check: Reconcile, read: Any, rows: int) -> tuple[Rule, Any]:
    [(rule, outcome)] = guards.reconcile_outcomes("o", check, None if read is None else (read, {}), rows, {})
    return rule, outcome


def test_rows_reconcile_counts_lost_and_gained_against_both_limits() -> None:
    check = Reconcile(input="src", checks_rows=True, max_lost="10%", max_gained=1)
    rule, outcome = _rows(check, 100, 92)
    assert (rule.name, rule.kind, rule.severity) == ("rows_from_src", "reconcile", "fail")
    assert outcome.detail == "100 rows read from src, 92 reached o: 8 lost, 0 gained (at most 10% lost, at most 1 gained)"
    assert outcome.ok
    assert not _rows(check, 100, 89)[1].ok  # 11 lost, more than 10%
    assert _rows(check, 100, 101)[1].ok and _rows(check, 100, 101)[1].detail.endswith("0 lost, 1 gained "
                                                                                      "(at most 10% lost, at most 1 gained)")
    assert not _rows(check, 100, 102)[1].ok  # 2 gained, more than 1


def test_rows_reconcile_without_limits_only_reports() -> None:
    rule, outcome = _rows(Reconcile(input="src", name="carry", checks_rows=True, severity="warn"), 3, 5)
    assert rule.name == "carry_rows" and rule.severity == "warn"
    assert outcome.ok and outcome.detail == "3 rows read from src, 5 reached o: 0 lost, 2 gained ()"


def test_a_reconcile_of_an_input_not_read_fails_both_checks() -> None:
    check = Reconcile(input="src", checks_rows=True, sum_column="amount", input_column="amt")
    (rows_rule, rows), (sum_rule, total) = guards.reconcile_outcomes("o", check, None, 4, {"amount": 1})
    assert not rows.ok and rows.detail == "input src was not read"
    assert sum_rule.name == "amount_sum_from_src" and sum_rule.column == "amount"
    assert not total.ok and total.detail == "input src was not read"


def test_a_sum_reconcile_names_the_missing_numeric_column() -> None:
    check = Reconcile(input="src", sum_column="amount", input_column="amt")
    [(_, outcome)] = guards.reconcile_outcomes("o", check, (2, {}), 2, {"amount": 1})
    assert not outcome.ok and outcome.detail == "input src has no numeric column 'amt'"
    [(_, outcome)] = guards.reconcile_outcomes("o", check, (2, {"amt": 1}), 2, {})
    assert not outcome.ok and outcome.detail == "o has no numeric column 'amount'"


@pytest.mark.parametrize("before, after, tolerance, ok, detail", [
    (100, 100, 0, True, "sum of amt in src 100, of amount in o 100: difference 0 (at most 0)"),
    (100, 103, 3, True, "sum of amt in src 100, of amount in o 103: difference 3 (at most 3)"),
    (100, 96, 3, False, "sum of amt in src 100, of amount in o 96: difference -4 (at most 3)"),
    (200.0, 202.5, "1%", False, "sum of amt in src 200, of amount in o 202.5: difference 2.5 (at most 1%)"),
    (200.0, 201.5, "1%", True, "sum of amt in src 200, of amount in o 201.5: difference 1.5 (at most 1%)"),
    (math.nan, math.nan, 0, True, "sum of amt in src nan, of amount in o nan: difference 0 (at most 0)"),
    (math.inf, math.inf, 0, True, "sum of amt in src inf, of amount in o inf: difference 0 (at most 0)"),
    (1e17, 1e17, 0, True, "sum of amt in src 1e+17, of amount in o 1e+17: difference 0 (at most 0)"),
    (2**60, 2**60 + 1, 0, False, "sum of amt in src 1152921504606846976, of amount in o 1152921504606846977: "
                                 "difference 1 (at most 0)"),
])
def test_sum_reconcile_details(before: Any, after: Any, tolerance: Any, ok: bool, detail: str) -> None:
    check = Reconcile(input="src", sum_column="amount", input_column="amt", tolerance=tolerance)
    [(rule, outcome)] = guards.reconcile_outcomes("o", check, (1, {"amt": before}), 1, {"amount": after})
    assert outcome.ok is ok and outcome.detail == detail
    assert outcome.failed == (0 if ok else 1) and outcome.total == 1


def test_numbers_as_the_record_writes_them() -> None:
    assert [guards._text(v) for v in (3, 3.0, -2.0, 2.5, True, "5%", 1e16, math.nan)] == [
        "3", "3", "-2", "2.5", "True", "5%", "1e+16", "nan"]
    assert guards._difference(1, 4) == 3 and guards._difference(1.0, 4) == 3.0
    assert math.isnan(guards._difference(math.nan, 1.0)) and guards._difference(math.inf, math.inf) == 0.0


def test_a_failed_reconcile_counts_as_the_record_shows_it() -> None:
    from ubunye.engine.expectations import Outcome

    check = Reconcile(input="src", severity="warn", checks_rows=True, sum_column="amount", input_column="amt")
    assert guards.reconcile_outcomes("o", check, None, 4, {}) == [
        (Rule(name="rows_from_src", kind="reconcile", severity="warn"),
         Outcome(4, 4, "input src was not read", ok=False)),
        (Rule(name="amount_sum_from_src", kind="reconcile", severity="warn", column="amount"),
         Outcome(1, 1, "input src was not read", ok=False))]
    [_, (_, no_input_column)] = guards.reconcile_outcomes("o", check, (4, {}), 4, {})
    assert no_input_column == Outcome(1, 1, "input src has no numeric column 'amt'", ok=False)
    [_, (_, no_output_column)] = guards.reconcile_outcomes("o", check, (4, {"amt": 2}), 4, {})
    assert no_output_column == Outcome(1, 1, "o has no numeric column 'amount'", ok=False)
    [(_, lost), _] = guards.reconcile_outcomes("o", check, (10, {"amt": 2}), 7, {"amount": 2})
    assert (lost.failed, lost.total, lost.ok) == (3, 10, True)
    [(_, gained), _] = guards.reconcile_outcomes("o", check, (10, {"amt": 2}), 12, {"amount": 2})
    assert (gained.failed, gained.total) == (2, 10)


def test_inputs_are_measured_once_with_every_column_a_reconcile_sums() -> None:
    own = OwnBackend()
    expectations = {
        "a": RuleSet([], reconcile=(Reconcile(input="src", checks_rows=True),
                                    Reconcile(input="src", sum_column="x", input_column="amount"))),
        "b": RuleSet([], reconcile=(Reconcile(input="src", sum_column="y", input_column="amount"),
                                    Reconcile(input="src", sum_column="z", input_column="fee"),
                                    Reconcile(input="other", checks_rows=True),
                                    Reconcile(input="absent", checks_rows=True))),
        "c": (RULE,),  # the list form: no reconcile
    }
    measured = guards.measure_inputs(own, expectations, {"src": "S", "other": "O"})
    assert measured == {"src": (7, {"amount": 3}), "other": (7, {"amount": 3})}
    assert own.calls == [("measure", "S", ["amount", "fee"]), ("measure", "O", [])]


def test_a_broken_reconcile_stops_the_run_with_its_detail() -> None:
    frame = pd.DataFrame({"id": [1, 2], "amount": [5, 6]})
    rules = RuleSet([], reconcile=(Reconcile(input="src", checks_rows=True, max_lost=0),
                                   Reconcile(input="src", severity="warn", sum_column="amount", input_column="amt")))
    checked = guards.check_output(PandasBackend(), "clean", frame, rules, {"src": (3, {"amt": 12})})
    assert checked.broken == ["clean: rows_from_src (reconcile): 3 rows read from src, 2 reached clean: 1 lost, "
                              "0 gained (at most 0 lost)"]  # the warn-level sum is recorded, not a stop
    assert [(e["rule"], e["passed"]) for e in checked.entries] == [("rows_from_src", False),
                                                                   ("amount_sum_from_src", False)]
    assert checked.clean is frame and checked.quarantined is None


def test_the_partition_entry_is_a_fail_rule_of_its_own() -> None:
    entry = guards.partition_entry("o", "q", 5, 3, 1)
    assert (entry["rule"], entry["kind"], entry["severity"]) == ("o_quarantine_partition", "quarantine_partition",
                                                                 "fail")
    assert (entry["failed"], entry["total"]) == (1, 5)


def _entry(rule: str, kind: str, severity: str, column: Any, failed: int, total: int, **more: Any) -> dict[str, Any]:
    return {"output": "clean", "rule": rule, "kind": kind, "severity": severity, "column": column, "failed": failed,
            "total": total, "passed": failed == 0, "side": "output", **more}


def test_the_record_entries_and_the_stopping_lines_of_one_output() -> None:
    """Every rule's entry as the record keeps it; only a broken ``fail`` rule, or a ``quarantine`` rule on a
    column the output lacks, stops the run; only a ``quarantine`` rule sets rows aside."""
    frame = pd.DataFrame({"id": [1, None, 3, None, 5], "name": ["a", "b", None, "d", "e"], "age": [1, 2, 3, 4, 5]})
    rules = RuleSet([
        Rule("id_not_null", "not_null", "quarantine", column="id"),
        Rule("code_not_null", "not_null", "quarantine", column="code"),  # no such column: cannot sort rows
        Rule("note_not_null", "not_null", "warn", column="note"),  # no such column, but only a warning
        Rule("age_not_null", "not_null", "fail", column="age"),  # holds
        Rule("name_not_null", "not_null", "fail", column="name"),  # broken by a row that is not quarantined
    ], quarantine="bad", reconcile=(Reconcile(input="src", checks_rows=True),))
    checked = guards.check_output(PandasBackend(), "clean", frame, rules, {"src": (5, {})})
    assert checked.entries == [
        _entry("id_not_null", "not_null", "quarantine", "id", 2, 5),
        _entry("code_not_null", "not_null", "quarantine", "code", 5, 5, detail="no column 'code'"),
        _entry("note_not_null", "not_null", "warn", "note", 5, 5, detail="no column 'note'"),
        _entry("age_not_null", "not_null", "fail", "age", 0, 5),
        _entry("name_not_null", "not_null", "fail", "name", 1, 5),
        _entry("rows_from_src", "reconcile", "fail", None, 0, 5,
               detail="5 rows read from src, 5 reached clean: 0 lost, 0 gained ()"),
        _entry("clean_quarantine_partition", "quarantine_partition", "fail", None, 0, 5,
               detail="5 rows = 3 in clean + 2 in bad", rows=5, clean_rows=3, quarantined_rows=2),
    ]
    assert checked.broken == ["clean: code_not_null (not_null) broken by 5 of 5 (no column 'code')",
                              "clean: name_not_null (not_null) broken by 1 of 5"]
    assert checked.quarantined[FAILED_RULES_COLUMN].tolist() == ["id_not_null", "id_not_null"]
    assert pd.isna(checked.clean["name"].iloc[1])  # the fail rule's broken row is not set aside


class RowsBackend(OwnBackend):
    """A backend of another kind whose frames are lists of dicts, seen through its own port."""

    name = "rows"

    def port(self, frame: Any) -> Any:
        columns = {k: "string" for row in frame for k in row}
        return SimpleNamespace(schema=columns, count=lambda: len(frame))

    def check(self, frame: Any, rules: Any) -> list[Any]:
        return []

    def split_rows(self, frame: Any, rules: Any, column: str) -> tuple[Any, Any]:
        return frame[:1], frame[2:]  # loses a row: neither clean nor quarantined

    def materialise_rows(self, frame: Any) -> Any:
        return frame


def test_a_frame_without_column_names_is_seen_through_its_backend() -> None:
    rows = [{"id": "1", FAILED_RULES_COLUMN: "x"}]
    with pytest.raises(EngineError, match=rf"^output 'clean' has a column named {FAILED_RULES_COLUMN}"):
        guards.check_output(RowsBackend(), "clean", rows, RuleSet([], quarantine="bad"), {})


def test_the_engines_column_is_refused_before_the_rows_are_converted() -> None:
    frame = pd.DataFrame({"a": [1, "x"], FAILED_RULES_COLUMN: ["y", "z"]})  # mixed types: Arrow cannot convert "a"
    with pytest.raises(EngineError, match=rf"^output 'clean' has a column named {FAILED_RULES_COLUMN}"):
        guards.check_output(PandasBackend(), "clean", frame, RuleSet([RULE], quarantine="bad"), {})


def test_rows_in_neither_output_stop_the_run() -> None:
    rows = [{"id": "1"}, {"id": "2"}, {"id": "3"}]
    checked = guards.check_output(RowsBackend(), "clean", rows, RuleSet([], quarantine="bad"), {})
    assert checked.broken == ["clean: clean_quarantine_partition (quarantine_partition) broken by 1 of 3 "
                              "(3 rows but 1 in clean + 1 in bad)"]
