"""compare_records on the sample records and on records built to differ in one way each."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

from ubunye.lineage.compare import (
    CHANGED,
    MISSING,
    NOT_COMPARABLE,
    UNCHANGED,
    UNKNOWN,
    Comparison,
    FieldDiff,
    StepDiff,
    compare_records,
)
from ubunye.lineage.record import RunRecord, Step

RECORDS = Path(__file__).parent / "fixtures" / "records"


def load(prefix: str) -> RunRecord:
    (path,) = [p for p in RECORDS.rglob("*.json") if p.stem.startswith(prefix)]
    return RunRecord.from_json(path.read_text(encoding="utf-8"))


def step(c: Comparison, direction: str, name: str) -> StepDiff:
    (found,) = [s for s in c.steps if (s.direction, s.name) == (direction, name)]
    return found


def field(c: Comparison, name: str) -> FieldDiff:
    (found,) = [f for f in c.fields if f.name == name]
    return found


def test_two_080_runs_of_identical_data_are_unchanged() -> None:
    c = compare_records(load("f8d3"), load("0ec7"))
    assert c.data_proven_same and c.problems == []
    for s in c.steps:
        assert (s.verdict, s.row_count.verdict, s.schema_hash.verdict, s.data_hash.verdict) == (UNCHANGED,) * 4
    # what did change between them is still reported
    assert field(c, "config").verdict == CHANGED
    assert field(c, "code").verdict == UNCHANGED
    assert field(c, "environment").verdict == UNCHANGED
    variables = field(c, "variables")
    assert variables.verdict == CHANGED
    assert variables.detail["keys"]["moved"] == [{"name": "dt", "from": "2024-01-01", "to": "2024-01-02"}]
    assert variables.detail["keys"]["removed"] == [{"name": "db_password", "value": "***"}]


def test_unhashed_notebook_input_is_unknown_not_unchanged() -> None:
    c = compare_records(load("0ec7"), load("13fc"))
    people = step(c, "input", "people")
    assert people.verdict == UNKNOWN
    assert people.data_hash.verdict == UNKNOWN and "run B" in (people.data_hash.reason or "")
    assert people.row_count.verdict == UNKNOWN
    assert step(c, "output", "adults").verdict == UNCHANGED
    assert not c.data_proven_same
    assert len(c.problems) == 1 and c.problems[0].startswith("input 'people'")
    assert field(c, "code").verdict == UNKNOWN  # the notebook run has no code hash
    assert all(t.verdict == MISSING for t in c.timings)  # and no timings


def test_two_missing_hashes_are_never_unchanged() -> None:
    a = load("13fc")
    c = compare_records(a, copy.deepcopy(a))
    assert step(c, "input", "people").data_hash.verdict == UNKNOWN
    assert not c.data_proven_same


def test_version_1_record_is_not_comparable_never_changed() -> None:
    v1 = load("5b0c")
    assert v1.record_version == 1
    for other in ("f8d3", "0ec7", "13fc"):
        c = compare_records(v1, load(other))
        adults = step(c, "output", "adults")
        assert adults.data_hash.verdict == NOT_COMPARABLE
        assert adults.schema_hash.verdict == NOT_COMPARABLE
        assert adults.verdict == NOT_COMPARABLE
        assert CHANGED not in {s.data_hash.verdict for s in c.steps}
        assert not c.data_proven_same


def test_old_method_against_itself_proves_nothing() -> None:
    v1 = load("5b0c")
    c = compare_records(v1, copy.deepcopy(v1))
    assert step(c, "output", "adults").data_hash.verdict == NOT_COMPARABLE
    assert not c.data_proven_same


def test_changed_rows_and_missing_step() -> None:
    a = load("f8d3")
    b = copy.deepcopy(a)
    b.run_id = "another run"  # one run against itself is never proven anything (test_verdicts.py)
    b.outputs[0].data_hash = "sha256:" + "0" * 64
    b.outputs[0].row_count = 5
    b.outputs.append(Step("rejects", "output", "csv", "/tmp/rejects", 1, "sha256:1", "sha256:2", "rows-v1"))
    c = compare_records(a, b)
    adults = step(c, "output", "adults")
    assert (adults.verdict, adults.row_count.verdict, adults.data_hash.verdict) == (CHANGED, CHANGED, CHANGED)
    assert (adults.row_count.a, adults.row_count.b) == (2, 5)
    assert step(c, "output", "rejects").verdict == MISSING
    assert step(c, "input", "people").verdict == UNCHANGED
    assert len(c.problems) == 2


def test_same_hashes_with_both_row_counts_missing_prove_nothing() -> None:
    """Two steps alike in everything but a row count neither run recorded: unknown, never proven."""
    a = load("f8d3")
    for s in a.inputs + a.outputs:
        s.row_count = None
    c = compare_records(a, copy.deepcopy(a))
    adults = step(c, "output", "adults")
    assert adults.row_count.verdict == UNKNOWN and "neither" in (adults.row_count.reason or "")
    assert adults.verdict == UNKNOWN and adults.data_hash.verdict == UNCHANGED
    assert not c.data_proven_same
    assert any("row count unknown" in p for p in c.problems), c.problems


def test_a_changed_environment_hash_alone_is_a_change() -> None:
    """Equal environment facts but a different environment hash (a fact the record does not
    list, or an edited one): changed, not unchanged."""
    a = load("f8d3")
    b = copy.deepcopy(a)
    assert field(compare_records(a, b), "environment").verdict == UNCHANGED
    b.environment_hash = "sha256:" + "1" * 64
    env = field(compare_records(a, b), "environment")
    assert env.verdict == CHANGED
    assert env.detail["packages"] == {"moved": [], "added": [], "removed": []}


def test_a_changed_hash_outranks_an_unknown_count() -> None:
    """A step whose data hash changed and whose row count is unknown is changed: the most
    serious verdict of its parts (changed above missing, not comparable and unknown)."""
    a = load("f8d3")
    b = copy.deepcopy(a)
    b.outputs[0].row_count = None
    b.outputs[0].data_hash = "sha256:" + "0" * 64
    adults = step(compare_records(a, b), "output", "adults")
    assert (adults.row_count.verdict, adults.data_hash.verdict) == (UNKNOWN, CHANGED)
    assert adults.verdict == CHANGED
    b.outputs[0].schema_hash = None  # unknown schema too: still changed
    assert step(compare_records(a, b), "output", "adults").verdict == CHANGED
    b.outputs[0].hash_method = "sha256-of-files"  # not comparable beside an unknown: not comparable
    b.outputs[0].schema_hash = a.outputs[0].schema_hash
    worst = step(compare_records(a, b), "output", "adults")
    assert (worst.row_count.verdict, worst.data_hash.verdict, worst.verdict) == (
        UNKNOWN, NOT_COMPARABLE, NOT_COMPARABLE)


def test_environment_packages_moved_added_removed() -> None:
    a = load("f8d3")
    b = copy.deepcopy(a)
    b.environment["packages"] = {**a.environment["packages"], "pandas": "3.2.0", "polars": "2.1.0"}
    del b.environment["packages"]["narwhals"]
    b.environment["python"] = "3.12.1"
    b.environment_hash = "sha256:other"
    env = field(compare_records(a, b), "environment")
    assert env.verdict == CHANGED
    assert env.detail["packages"] == {
        "moved": [{"name": "pandas", "from": "3.1.1", "to": "3.2.0"}],
        "added": [{"name": "polars", "value": "2.1.0"}],
        "removed": [{"name": "narwhals", "value": "2.29.0"}],
    }
    assert env.detail["platform"]["moved"] == [{"name": "python", "from": "3.11.7", "to": "3.12.1"}]


def test_expectations_matched_by_output_and_rule() -> None:
    c = compare_records(load("0ec7"), load("d848"))  # the failed run of another task
    by_name = {e.name: e for e in c.expectations}
    age = by_name["adults.age_between"]
    assert age.verdict == CHANGED
    assert age.detail["outcome_changed"] and age.detail["failed_changed"]
    assert (age.a["passed"], age.b["passed"], age.a["failed"], age.b["failed"]) == (True, False, 0, 1)
    assert by_name["adults.city_not_null"].verdict == UNCHANGED
    assert field(c, "status").verdict == CHANGED


def test_timings_matched_by_step_and_target_with_ratio() -> None:
    c = compare_records(load("f8d3"), load("0ec7"))
    by_name = {t.name: t for t in c.timings}
    reader = by_name["Reader:s3(people)"]
    assert reader.a == pytest.approx(0.37957) and reader.b == pytest.approx(0.400945)
    assert reader.detail["ratio"] == pytest.approx(0.400945 / 0.37957, abs=1e-4)
    assert by_name["Writer:s3(adults)"].detail["target"] == "adults"


def test_to_dict_is_json_ready_and_complete() -> None:
    import json

    c = compare_records(load("f8d3"), load("0ec7"))
    d = json.loads(json.dumps(c.to_dict()))
    assert d["data_proven_same"] is True
    assert {f["name"] for f in d["fields"]} >= {"status", "config", "code", "environment", "variables"}
    assert [(s["direction"], s["name"], s["data_hash"]["verdict"]) for s in d["steps"]] == [
        ("input", "people", "unchanged"), ("output", "adults", "unchanged")]


@pytest.mark.parametrize("status", ["error", "interrupted", "running"])
@pytest.mark.parametrize("side", ["a", "b"])
def test_either_run_not_succeeded_is_never_proven_same(status: str, side: str) -> None:
    """The status of each run is a reason, run B's as much as run A's."""
    a, b = load("f8d3"), load("0ec7")
    assert compare_records(a, b).data_proven_same  # the control: the same data, both succeeded
    changed = copy.deepcopy(a if side == "a" else b)
    changed.status = status
    c = compare_records(changed, b) if side == "a" else compare_records(a, changed)
    label = "run A" if side == "a" else "run B"
    assert not c.data_proven_same and c.verdict is not None and c.verdict.exit_code == 1
    assert any(p.startswith(label) and status in p for p in c.problems), c.problems


@pytest.mark.parametrize("tail", ["00", "\n", " x"])
def test_a_hash_with_anything_after_its_64_digits_proves_nothing(tail: str) -> None:
    """``sha256:<64 hex>`` is the whole value: a longer (forged or damaged) text is no rows-v1 hash,
    even when both runs carry the same one."""
    a, b = load("f8d3"), load("0ec7")
    for record in (a, b):
        for s in record.outputs:
            assert s.data_hash is not None and len(s.data_hash) == 71
            s.data_hash += tail
    c = compare_records(a, b)
    assert not c.data_proven_same
    out = c.steps[[s.direction for s in c.steps].index("output")]
    assert out.data_hash.verdict == NOT_COMPARABLE and "not a rows-v1 hash" in (out.data_hash.reason or "")
