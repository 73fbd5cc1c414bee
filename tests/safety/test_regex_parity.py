"""Lying record: a ``matches`` rule means the same on pandas as on Spark (issue 35).

Java's regex classes are ASCII by default, Python's Unicode: a ``\\d`` rule quarantined ``١٢٣``
(Arabic-Indic digits) on Spark and kept it on pandas, so one task's verdict depended on its
backend. The cases (pattern, text, expected) in ``tests/fixtures/regex-parity/cases.json`` are
what Java does; this file runs them on pandas, ``integration/test_task_udfs.py`` on Spark.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness import Usecase, assert_one_line_error
from ubunye.engine.checks_pandas import evaluate_pandas
from ubunye.engine.errors import ConfigError
from ubunye.engine.expectations import parse_rule

CASES = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "regex-parity" / "cases.json").read_text())
CONFIG = Path("config.yaml")


def _rule(case: dict, column: str) -> object:
    from dataclasses import replace

    rule = parse_rule({"kind": "matches", "column": column, "pattern": case["pattern"]}, CONFIG, "r")
    return replace(rule, params={**rule.params, "anywhere": True}) if case["anywhere"] else rule


def test_lying_record_pandas_matches_as_java_does_on_every_shared_case() -> None:
    frame = pd.DataFrame({f"c{i}": [case["text"]] for i, case in enumerate(CASES)})
    outcomes = evaluate_pandas(frame, [_rule(case, f"c{i}") for i, case in enumerate(CASES)])
    wrong = [(c["pattern"], c["text"], c["why"]) for c, o in zip(CASES, outcomes) if (o.failed == 0) != c["matches"]]
    assert not wrong, wrong


@pytest.mark.parametrize("pattern, says", [
    (r"(?u)\d", "(?u) asks for Unicode classes"),
    (r"(a)?(?(1)b|c)", "conditional group"),
    (r"\p{L}", "not a valid regular expression"),
])
def test_lying_record_pattern_that_cannot_mean_the_same_on_both_backends_is_refused(pattern: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_rule({"kind": "matches", "column": "name", "pattern": pattern}, CONFIG, "CONFIG.expectations.people[0]")
    assert says in str(caught.value) and "CONFIG.expectations.people[0].pattern" in str(caught.value)


def _usecase(tmp_path: Path, side: str, pattern: str) -> Usecase:
    """A usecase with task ``t``: people.parquet to ``out``, one ``matches`` rule on ``side``'s name."""
    u = Usecase(tmp_path)
    u.parquet("people.parquet")
    u.task("t", f"""
        CONFIG:
          inputs:
            people: {{format: parquet, path: "{u.root}/data/people.parquet"}}
          outputs:
            kept: {{format: parquet, path: "{u.root}/out"}}
          expectations:
            {side}:
              - {{kind: matches, column: name, pattern: '{pattern}'}}
        """)
    return u


def test_traceback_unicode_pattern_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    result = _usecase(tmp_path, "people", r"(?u)\w+").run("-t", "t")
    assert_one_line_error(result, naming=["config.yaml", "CONFIG.expectations.people[0].pattern", "(?u)"])
    assert not (tmp_path / "out").exists()


def test_lying_record_output_a_failed_run_never_wrote_says_not_written(tmp_path: Path) -> None:
    """A ``matches`` rule that breaks stops the run before any write: the record's output step says
    so (before: a step with no hash and no word, as if it might have been written)."""
    u = _usecase(tmp_path, "kept", r"\d+")
    result = u.run("-t", "t", "--lineage")
    assert result.code == 1, str(result)
    (record,) = u.records("t")
    assert record["status"] == "error" and not (tmp_path / "out").exists()
    (step,) = record["outputs"]
    assert step["data_hash"] is None and step["hash_error"].startswith("not written: the run ended before"), step
