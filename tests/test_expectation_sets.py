"""The ubunye-engine 0.8.0 expectations form: parsing, one-line errors before anything
runs, the list form unchanged beside it, and both forms comparing as the same rules."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from ubunye.engine.config import validate
from ubunye.engine.errors import ConfigError
from ubunye.engine.expectation_sets import RuleSet, allowed
from ubunye.engine.expectations import Rule
from ubunye.lineage.compare_checks import compare_expectations as _compare_expectations

FILE = Path("/tasks/shop/orders/scored/config.yaml")

BASE = """
CONFIG:
  inputs:
    people: {format: parquet, path: /d/people}
  outputs:
    scored: {format: parquet, path: /d/scored}
    rejected: {format: parquet, path: /d/rejected}
  expectations:
"""


def load(expectations: str) -> Any:
    text = BASE + "\n".join("    " + line for line in expectations.strip("\n").splitlines())
    return validate(yaml.safe_load(text), FILE)


def error(expectations: str) -> str:
    with pytest.raises(ConfigError) as err:
        load(expectations)
    text = str(err.value)
    assert "\n" not in text and text.startswith(str(FILE) + ": CONFIG.expectations")
    return text


def test_each_kind_reads_as_the_list_form_reads_it() -> None:
    config = load("""
scored:
  rules:
    - not_null: id
    - unique: id
    - unique: [id, day]
    - between: {column: score, min: 0}
    - one_of: {column: city, values: [Durban, Soweto]}
    - matches: {column: email, pattern: '[^@]+@[^@]+'}
    - row_count: {min: 1, max: 10}
    - columns: {id: int64, score: [float64, float32]}
      extra: forbid
""")
    listed = load("""
scored:
  - {kind: not_null, column: id}
  - {kind: unique, column: id}
  - {kind: unique, columns: [id, day], name: id_day_unique}
  - {kind: between, column: score, min: 0}
  - {kind: one_of, column: city, values: [Durban, Soweto]}
  - {kind: matches, column: email, pattern: '[^@]+@[^@]+'}
  - {kind: row_count, min: 1, max: 10}
""")
    rules = config.rules_for("scored")
    same = listed.rules_for("scored")
    # every 0.8.0 rule is marked v080 (counted as 0.8.0 counts: see the backend conformance suite)
    assert all(r.params["v080"] is True for r in rules) and not any("v080" in r.params for r in same)
    assert [replace(r, params={**r.params, "v080": True}) for r in same[:5]] == list(rules[:5])
    assert replace(same[6], params={**same[6].params, "v080": True}) == rules[6]
    # matches: 0.8.0 finds the pattern anywhere in the value; the list form matches the whole value
    assert rules[5] == replace(same[5], params={**same[5].params, "anywhere": True, "v080": True})
    assert [r.name for r in rules] == ["id_not_null", "id_unique", "id_day_unique", "score_between",
                                       "city_one_of", "email_matches", "row_count", "columns"]
    assert rules[-1] == Rule(name="columns", kind="columns", severity="fail",
                             params={"columns": {"id": "int64", "score": ("float64", "float32")}, "exact": True,
                                     "v080": True})
    assert type(listed.expectations["scored"]) is tuple  # the list form is read as before


def test_name_severity_description_sit_beside_the_kind() -> None:
    config = load("""
scored:
  rules:
    - between: {column: score, max: 100}
      name: score_ok
      severity: quarantine
      description: at most a hundred
    - not_null: city
      severity: warn
  quarantine: rejected
  max_quarantine_rate: 0.25
  reconcile:
    - input: people
      rows: {max_lost: "5%", max_gained: 0}
      sum: {column: amount, input_column: total, tolerance: "0.1%"}
      severity: warn
      name: carried
""")
    rules = config.expectations["scored"]
    assert isinstance(rules, RuleSet)
    assert [(r.name, r.severity) for r in rules] == [("score_ok", "quarantine"), ("city_not_null", "warn")]
    assert rules.quarantine == "rejected" and rules.max_quarantine_rate == 0.25
    (check,) = rules.reconcile
    assert (check.input, check.severity, check.max_lost, check.max_gained) == ("people", "warn", "5%", 0)
    assert (check.sum_column, check.input_column, check.tolerance) == ("amount", "total", "0.1%")
    assert check.names == ["carried_rows", "carried_sum"]


def test_reconcile_default_names_and_one_mapping() -> None:
    config = load("""
scored:
  reconcile: {input: people, rows: {max_lost: 0}, sum: {column: amount}}
""")
    (check,) = config.expectations["scored"].reconcile
    assert check.names == ["rows_from_people", "amount_sum_from_people"] and check.tolerance == 0


def test_allowances_are_rows_or_shares_of_the_input() -> None:
    assert allowed("50%", 6) == 3.0 and allowed("1.5%", -200) == 3.0 and allowed(2, 1000) == 2


@pytest.mark.parametrize(
    ("expectations", "key", "says"),
    [
        ("scored: {rules: [], quarantien: rejected}", "scored.quarantien", "unknown key; expected one of rules"),
        ("scored: {rules: [{not_null: id, unique: id}]}", "scored.rules[0]", "exactly one kind"),
        ("scored: {rules: [{severity: warn}]}", "scored.rules[0]", "exactly one kind"),
        ("scored: {rules: [{not_null: id, colour: red}]}", "scored.rules[0].colour", "unknown key"),
        ("scored: {rules: [{between: {column: s, mni: 0}}]}", "scored.rules[0].between.mni", "unknown key"),
        ("scored: {rules: [{row_count: {min: 1}, severity: quarantine}], quarantine: rejected}",
         "scored.rules[0].severity", "row_count is about the whole frame"),
        ("scored: {rules: [{columns: {id: int64}, severity: quarantine}], quarantine: rejected}",
         "scored.rules[0].severity", "columns is about the whole frame"),
        ("scored: {rules: [{unique: id, severity: quarantine}], quarantine: rejected}",
         "scored.rules[0].severity", "unique is about the whole frame"),
        ("scored: {reconcile: [{input: people, rows: {max_lost: 0}, severity: quarantine}]}",
         "scored.reconcile[0].severity", "a reconcile cannot quarantine"),
        ("scored: {rules: [{not_null: id, severity: quarantine}], quarantine: nowhere}",
         "scored.quarantine", "expected the name of an output in CONFIG.outputs"),
        ("scored: {rules: [{not_null: id, severity: quarantine}]}",
         "scored.rules[0].severity", "quarantine needs"),
        ("scored: {rules: [{not_null: id, severity: quarantine}], quarantine: scored}",
         "scored.quarantine", "cannot quarantine into itself"),
        ("scored: {rules: [{not_null: id}], max_quarantine_rate: 0.1}",
         "scored.max_quarantine_rate", "needs at least one rule with severity quarantine"),
        ("scored: {rules: [{not_null: id, severity: quarantine}], quarantine: rejected, max_quarantine_rate: 2}",
         "scored.max_quarantine_rate", "from 0 to 1"),
        ("scored: {reconcile: [{input: peeple, rows: {max_lost: 0}}]}",
         "scored.reconcile[0].input", "expected the name of an input (people); got 'peeple'"),
        ("scored: {reconcile: [{input: people}]}", "scored.reconcile[0]", "expected rows, sum or both"),
        ("scored: {reconcile: [{input: people, rows: {max_lost: 1.5}}]}",
         "scored.reconcile[0].rows.max_lost", "whole number of rows"),
        ("scored: {reconcile: [{input: people, rows: {max_lost: 'lots'}}]}",
         "scored.reconcile[0].rows.max_lost", "a share like '1%'"),
        ("scored: {reconcile: [{input: people, sum: {column: amount, tolerance: -1}}]}",
         "scored.reconcile[0].sum.tolerance", "at least 0"),
        ("people: {rules: [{not_null: id}], quarantine: rejected}", "people.quarantine", "is an input"),
        ("people: {reconcile: [{input: people, rows: {max_lost: 0}}]}", "people.reconcile", "is an input"),
        ("scored: {rules: [{not_null: id}, {not_null: id}]}", "scored", "used twice"),
        ("nobody: {rules: []}", "nobody", "expected the name of an input or output"),
    ],
)
def test_bad_input_is_one_line_naming_file_and_key(expectations: str, key: str, says: str) -> None:
    text = error(expectations)
    assert f": CONFIG.expectations.{key}: " in text and says in text


def test_quarantine_output_cannot_be_shared_or_checked() -> None:
    text = error("""
scored: {rules: [{not_null: id, severity: quarantine}], quarantine: rejected}
rejected: {rules: [{not_null: id}]}
""")
    assert ": CONFIG.expectations.rejected: " in text and "receives 'scored'" in text


def entries(*rows: tuple[str, str, str, Any, int]) -> list[dict[str, Any]]:
    return [{"output": o, "rule": r, "kind": k, "column": c, "failed": f, "total": 5, "passed": f == 0,
             "severity": "fail"} for o, r, k, c, f in rows]


def test_both_forms_compare_as_the_same_rules() -> None:
    listed = entries(("scored", "unique", "unique", "id,day", 0), ("scored", "score_between", "between", "score", 0))
    old = entries(("scored", "id_day_unique", "unique", "id, day", 1), ("scored", "score_between", "between", "score", 0))
    diffs = {d.name: d for d in _compare_expectations(listed, old)}
    assert set(diffs) == {"scored.unique", "scored.score_between"}
    assert diffs["scored.unique"].verdict == "changed" and diffs["scored.unique"].detail["failed_changed"]
    assert diffs["scored.score_between"].verdict == "unchanged"


def test_different_rules_do_not_pair() -> None:
    a = entries(("scored", "unique", "unique", "id,day", 0))
    b = entries(("scored", "id_unique", "unique", "id", 0))
    assert sorted(d.verdict for d in _compare_expectations(a, b)) == ["missing", "missing"]


@pytest.mark.parametrize("rules", [
    [{"columns": {"id": "bigint"}}],
    [{"columns": {"id": ["int64", "integer"]}}],
])
def test_a_columns_type_that_is_no_kind_is_refused_when_read(rules: list) -> None:
    from ubunye.engine.expectation_sets import parse_set

    with pytest.raises(ConfigError, match=r"CONFIG\.expectations\.out\.rules\[0\]\.columns\.id: unknown type "
                                          r"'(bigint|integer)'; expected a kind as run records name them"):
        parse_set({"rules": rules}, Path("config.yaml"), "CONFIG.expectations.out", "out", {}, {"out": None})


def test_a_list_form_columns_type_that_is_no_kind_is_refused_when_read() -> None:
    from ubunye.engine.expectations import parse_rules

    with pytest.raises(ConfigError, match=r"x\[0\]\.columns\.id: unknown type 'long'"):
        parse_rules([{"kind": "columns", "columns": {"id": "long"}}], Path("config.yaml"), "x")
    (rule,) = parse_rules([{"kind": "columns", "columns": {"d": "decimal(10, 2)"}}], Path("config.yaml"), "x")
    assert rule.params["columns"] == {"d": "decimal(10,2)"}
