"""compare_records' whole report (``Comparison.to_dict``, what ``ubunye lineage compare --json``
prints) for two runs built to differ in every way the report names: each verdict, reason and
detail as the module's rules say (lineage/compare.py, shared/spec/run-record.md)."""
from __future__ import annotations

from typing import Any

from ubunye.lineage.compare import compare_records, status_problem
from ubunye.lineage.record import RunRecord, Step

H = "sha256:" + "a" * 64
S5 = "sha256:" + "5" * 64
S2 = "sha256:" + "2" * 64
S3 = "sha256:" + "3" * 64
S0 = "sha256:" + "0" * 64


def runs() -> tuple[RunRecord, RunRecord]:
    """Run A succeeded; run B (named by task path only) failed, with no environment, a changed
    reader option, an output gone, an expectation now failing, one renamed by default naming."""
    a = RunRecord(
        run_id="run-a", usecase="shop", package="orders", task_name="clean", started_at="2026-03-01T08:00:00+00:00",
        status="success", config_hash="sha256:c1", environment={"python": "3.11", "packages": {"x": "1"}},
        environment_hash="sha256:e1", duration_sec=10.0, engine_version="1.0", profile="dev", backend="pandas",
        time_zone="UTC", error="an earlier warning",
        inputs=[Step("people", "input", "csv", "/d/people.csv", 3, S5, H, "rows-v1", options={"sep": ","})],
        outputs=[Step("adults", "output", "parquet", "/d/adults", None, S2, H, "rows-v1"),
                 Step("gone", "output", "csv", "/d/gone.csv", 1, S3, H, "rows-v1")],
        timings=[{"step": "Reader", "input": "people", "seconds": 2.0}, {"step": "total", "seconds": 5}],
        expectations=[
            {"output": "adults", "rule": "age_between", "kind": "between", "column": "age", "passed": True,
             "failed": 0, "total": 3, "severity": "error"},
            {"output": "adults", "rule": "a_b_unique", "kind": "unique", "column": "a, b", "passed": True,
             "failed": 0, "total": 3, "severity": "warn"},
            {"output": "adults", "rule": "only_a", "kind": "not_null", "column": "c", "passed": True, "failed": 0,
             "total": 3}])
    b = RunRecord(
        run_id="run-b", task_path="shop/orders/clean", started_at="2026-03-02T08:00:00+00:00", status="error",
        error="boom", config_hash="sha256:c1", code_hash="sha256:k", environment={}, duration_sec=25.0,
        engine_version="1.0", profile="prod", backend="spark", time_zone="Europe/Paris",
        inputs=[Step("people", "input", "csv", "/d/people.csv", 3, S5, H, "rows-v1", options={"sep": ";"})],
        outputs=[Step("adults", "output", "parquet", "/d/adults", None, S2, H, "rows-v1")],
        timings=[{"step": "Reader", "input": "people", "seconds": 3.0}, {"step": "Writer", "output": "adults", "seconds": 1}],
        expectations=[
            {"output": "adults", "rule": "age_between", "kind": "between", "column": "age", "passed": False,
             "failed": 1, "total": 3, "severity": "error"},
            {"output": "adults", "rule": "unique_a_b", "kind": "unique", "column": "a,b", "passed": True,
             "failed": 0, "total": 3, "severity": "warn"}])
    return a, b


def same(name: str, value: object) -> dict[str, object]:
    return {"name": name, "verdict": "unchanged", "a": value, "b": value}


def test_the_whole_report_of_two_runs_that_differ_in_every_way() -> None:
    a, b = runs()
    got = compare_records(a, b).to_dict()
    identity = {"task_path": "shop/orders/clean", "record_version": 2, "engine_version": "1.0"}
    assert got["run_a"] == {"run_id": "run-a", "started_at": "2026-03-01T08:00:00+00:00", "status": "success",
                            **identity}
    assert got["run_b"] == {"run_id": "run-b", "started_at": "2026-03-02T08:00:00+00:00", "status": "error",
                            **identity}
    assert got["data_proven_same"] is False
    assert got["problems"] == [
        "run B did not succeed (status error)",
        "output 'adults': row count unknown (recorded in neither run A nor run B)",
        "output 'gone' is not in run B",
    ]
    assert got["fields"] == [
        same("task", "shop/orders/clean"),
        {"name": "status", "verdict": "changed", "a": "success", "b": "error"},
        {"name": "error", "verdict": "changed", "a": "an earlier warning", "b": "boom"},
        same("config", "sha256:c1"),
        {"name": "code", "verdict": "unknown", "a": None, "b": "sha256:k", "reason": "not recorded in run A"},
        {"name": "environment", "verdict": "unknown", "a": "sha256:e1", "b": None, "reason": "not recorded in run B",
         "packages": {"moved": [], "added": [], "removed": [{"name": "x", "value": "1"}]},
         "platform": {"moved": [], "added": [], "removed": [{"name": "python", "value": "3.11"}]}},
        {**same("variables", {}), "keys": {"moved": [], "added": [], "removed": []}},
        {"name": "profile", "verdict": "changed", "a": "dev", "b": "prod"},
        {"name": "backend", "verdict": "changed", "a": "pandas", "b": "spark"},
        same("engine_version", "1.0"),
        {"name": "time_zone", "verdict": "changed", "a": "UTC", "b": "Europe/Paris"},
        {"name": "outputs_handed_in", "verdict": "unchanged", "a": [], "b": []},
        {"name": "duration_sec", "verdict": "changed", "a": 10.0, "b": 25.0, "ratio": 2.5},
    ]
    people, adults, gone = got["steps"]
    assert people == {
        "direction": "input", "name": "people", "verdict": "unchanged",
        "row_count": same("row_count", 3), "schema_hash": same("schema_hash", S5),
        "data_hash": same("data_hash", H), "location": same("location", "/d/people.csv"),
        "reader": {"name": "reader", "verdict": "changed", "a": {"options": {"sep": ","}, "schema": None},
                   "b": {"options": {"sep": ";"}, "schema": None}, "reason": "option sep ',' -> ';'"},
    }
    assert adults == {
        "direction": "output", "name": "adults", "verdict": "unknown",
        "row_count": {"name": "row_count", "verdict": "unknown", "a": None, "b": None,
                      "reason": "recorded in neither run A nor run B"},
        "schema_hash": same("schema_hash", S2), "data_hash": same("data_hash", H),
        "location": same("location", "/d/adults"),
    }
    half = {"verdict": "missing", "b": None, "reason": "not in run B"}
    assert gone == {
        "direction": "output", "name": "gone", "verdict": "missing",
        "row_count": {"name": "row_count", "a": 1, **half},
        "schema_hash": {"name": "schema_hash", "a": S3, **half},
        "data_hash": {"name": "data_hash", "a": H, **half},
        "location": {"name": "location", "a": "/d/gone.csv", **half},
        "reason": "output 'gone' is not in run B",
    }
    rule = {"output": "adults"}
    assert got["expectations"] == [
        {"name": "adults.age_between", "verdict": "changed", **rule, "rule": "age_between",
         "a": {"passed": True, "failed": 0, "total": 3, "severity": "error"},
         "b": {"passed": False, "failed": 1, "total": 3, "severity": "error"},
         "outcome_changed": True, "failed_changed": True},
        {"name": "adults.a_b_unique", "verdict": "unchanged", **rule, "rule": "a_b_unique",  # paired by what it checks
         "a": {"passed": True, "failed": 0, "total": 3, "severity": "warn"},
         "b": {"passed": True, "failed": 0, "total": 3, "severity": "warn"},
         "outcome_changed": False, "failed_changed": False},
        {"name": "adults.only_a", "verdict": "missing", **rule, "rule": "only_a",
         "a": {"passed": True, "failed": 0, "total": 3, "severity": None}, "b": None,
         "reason": "not checked in run B"},
    ]
    assert got["timings"] == [
        {"name": "Reader(people)", "verdict": "changed", "a": 2.0, "b": 3.0, "step": "Reader", "target": "people",
         "ratio": 1.5},
        {"name": "total", "verdict": "missing", "a": 5, "b": None, "step": "total", "target": None,
         "reason": "not timed in run B"},
        {"name": "Writer(adults)", "verdict": "missing", "a": None, "b": 1, "step": "Writer", "target": "adults",
         "reason": "not timed in run A"},
    ]


def test_the_problems_of_a_run_that_did_not_end() -> None:
    running = RunRecord(run_id="r", status="running", started_at="2999-01-01T00:00:00+00:00")
    assert status_problem(running, "run A") == (
        "run A has not ended (status running: still running, or stopped before it could record its end): "
        "its record is not final")
    old = RunRecord(run_id="r", status="running", started_at="2000-01-01T00:00:00+00:00")
    assert status_problem(old, "run B") == (
        "run B was abandoned (status running, but it started more than 7 days ago on another host: it was "
        "stopped before it could record its end): its record is not final")
    assert status_problem(RunRecord(run_id="r", status="interrupted"), "the run") == (
        "the run did not succeed (status interrupted)")
    assert status_problem(RunRecord(run_id="r", status="success"), "run A") is None


def test_why_a_hash_is_unknown_in_each_run() -> None:
    from ubunye.lineage.compare import compare_steps

    failed = Step("t", "input", row_count=2, hash_method="rows-v1", hash_error="reader gave up")
    never = Step("t", "input")
    missing = Step("t", "input", row_count=2, hash_method="rows-v1")
    diff = compare_steps("input", "t", failed, never, labels=("recorded", "now"))
    assert diff.data_hash.reason == "recorded: hash failed: reader gave up; now: not hashed when the run was recorded"
    assert compare_steps("input", "t", missing, Step("t", "input", row_count=2, data_hash=H, hash_method="rows-v1")
                         ).data_hash.reason == "run A: no data hash recorded"
    assert compare_steps("input", "t", Step("t", "input", row_count=None, hash_method="rows-v1"),
                         Step("t", "input", row_count=2, data_hash=H, hash_method="rows-v1")).data_hash.reason == (
        "run A: no data hash recorded")  # a method recorded: it was hashed, the hash is what is missing
    assert compare_steps("input", "t", Step("t", "input", row_count=2),
                         Step("t", "input", row_count=2, data_hash=H, hash_method="rows-v1")).data_hash.reason == (
        "run A: no data hash recorded")  # a row count recorded: it was read


def test_reader_changes_name_each_option_and_the_schema() -> None:
    from ubunye.lineage.compare import reader_changes

    a = {"options": {"sep": ",", "header": "true", "quote": '"'}, "schema": None}
    b = {"options": {"sep": ";", "header": "true", "mode": "FAILFAST"}, "schema": "a INT"}
    assert reader_changes(a, b) == ["option mode 'FAILFAST' added", "option quote '\"' removed",
                                    "option sep ',' -> ';'", "schema inferred -> 'a INT'"]
    assert reader_changes(b, {**b, "schema": None}) == ["schema 'a INT' -> inferred"]
    assert reader_changes(a, a) == []


def test_reader_settings_recorded_on_one_side_only_are_unknown() -> None:
    from ubunye.lineage.compare import compare_steps

    with_settings = Step("t", "input", row_count=2, schema_hash="s", data_hash=H, hash_method="rows-v1",
                         options={"sep": ","})
    plain = Step("t", "input", row_count=2, schema_hash="s", data_hash=H, hash_method="rows-v1")
    reader = compare_steps("input", "t", plain, with_settings, labels=("recorded", "now")).reader
    assert (reader.verdict, reader.reason) == ("unknown", "reader settings not recorded in recorded")
    reader = compare_steps("input", "t", with_settings, plain).reader
    assert (reader.verdict, reader.reason) == ("unknown", "reader settings not recorded in run B")
    same_reader = compare_steps("input", "t", with_settings, with_settings).reader
    assert (same_reader.verdict, same_reader.reason) == ("unchanged", None)
    assert compare_steps("output", "t", plain, plain).reader is None


def test_a_step_only_in_run_b_is_missing_from_run_a() -> None:
    a = RunRecord(run_id="a", status="success")
    b = RunRecord(run_id="b", status="success", outputs=[Step("new", "output", "csv", "/d/new.csv", 4, "s", H,
                                                                "rows-v1")])
    c = compare_records(a, b)
    (new,) = c.steps
    assert new.to_dict() == {
        "direction": "output", "name": "new", "verdict": "missing", "reason": "output 'new' is not in run A",
        "row_count": {"name": "row_count", "verdict": "missing", "a": None, "b": 4, "reason": "not in run A"},
        "schema_hash": {"name": "schema_hash", "verdict": "missing", "a": None, "b": "s", "reason": "not in run A"},
        "data_hash": {"name": "data_hash", "verdict": "missing", "a": None, "b": H, "reason": "not in run A"},
        "location": {"name": "location", "verdict": "missing", "a": None, "b": "/d/new.csv",
                     "reason": "not in run A"},
    }
    assert c.problems == ["output 'new' is not in run A"]
    assert compare_records(a, RunRecord(run_id="a2", status="success")).problems == [
        "neither run recorded any input or output"]


def _rule(rule: str, kind: str, column: object, passed: bool = True, output: str = "o") -> dict[str, object]:
    return {"output": output, "rule": rule, "kind": kind, "column": column, "passed": passed, "failed": 0,
            "total": 1}


def test_a_renamed_rule_is_paired_only_by_the_same_output_kind_and_columns() -> None:
    def names(la: list[dict[str, object]], lb: list[dict[str, object]]) -> list[tuple[str, str]]:
        a = RunRecord(run_id="a", expectations=la)
        b = RunRecord(run_id="b", expectations=lb)
        return [(e.name, e.verdict) for e in compare_records(a, b).expectations]

    # columns written "a, b" and "a,b" are the same rule; None and None too
    assert names([_rule("x_y_unique", "unique", "x, y"), _rule("n1", "row_count", None)],
                 [_rule("unique_x_y", "unique", "x,y"), _rule("n2", "row_count", None)]) == [
        ("o.x_y_unique", "unchanged"), ("o.n1", "unchanged")]
    # another output, another kind, other columns: never paired
    for other in (_rule("r2", "unique", "x", output="p"), _rule("r2", "not_null", "x"), _rule("r2", "unique", "y")):
        assert names([_rule("r1", "unique", "x")], [other]) == [
            ("o.r1", "missing"), (f"{other['output']}.r2", "missing")]
    # two candidates in run B: which one is meant cannot be told
    assert names([_rule("r1", "unique", "x")], [_rule("r2", "unique", "x"), _rule("r3", "unique", "x")]) == [
        ("o.r1", "missing"), ("o.r2", "missing"), ("o.r3", "missing")]
    # reconcile rules keep their names
    assert names([_rule("r1", "reconcile", None)], [_rule("r2", "reconcile", None)]) == [
        ("o.r1", "missing"), ("o.r2", "missing")]


def test_a_step_diff_reports_where_and_which_partitions() -> None:
    from ubunye.lineage.compare import FieldDiff, StepDiff

    class Where:
        summary = "rows near the end"

        def to_dict(self) -> dict[str, object]:
            return {"summary": self.summary}

    f = FieldDiff("data_hash", "changed", "h1", "h2")
    diff = StepDiff("output", "o", "changed", f, f, f, f, where=Where(),
                    partitions=[{"partition": "d=1", "rows_before": 1, "rows_after": 2}])
    got = diff.to_dict()
    assert got["where"] == {"summary": "rows near the end"}
    assert got["partitions"] == [{"partition": "d=1", "rows_before": 1, "rows_after": 2}]
    assert "reader" not in got and "reason" not in got


def test_a_problem_line_says_what_changed_where_and_with_which_reader_settings() -> None:
    from ubunye.lineage.compare import FieldDiff, StepDiff, describe_problem

    class Where:
        summary = "rows near the end differ"

    rows = FieldDiff("row_count", "changed", 120, 121)
    schema = FieldDiff("schema_hash", "unknown", None, "s", reason="run A: hash failed: boom")
    data = FieldDiff("data_hash", "changed", "h1", "h2")
    reader = FieldDiff("reader", "changed", reason="option sep ',' -> ';'")
    step = StepDiff("input", "people", "changed", rows, schema, data, FieldDiff("location", "unchanged"),
                    reader=reader, where=Where(),
                    partitions=[{"partition": "day=1", "rows_before": 120, "rows_after": 121},
                                {"partition": "day=2", "rows_before": None, "rows_after": 5}])
    assert describe_problem(step) == (
        "input 'people': row count changed (120 -> 121), schema hash unknown (run A: hash failed: boom), "
        "data hash changed (h1 -> h2); rows near the end differ; partitions changed: day=1 (120 -> 121 rows), "
        "day=2 (added, 5 rows); reader settings changed: option sep ',' -> ';'")
    step.reader = FieldDiff("reader", "unknown", reason="reader settings not recorded in run A")
    step.where = None
    step.partitions = []
    assert describe_problem(step) == (
        "input 'people': row count changed (120 -> 121), schema hash unknown (run A: hash failed: boom), "
        "data hash changed (h1 -> h2)")


def test_a_ratio_only_of_two_numbers_over_a_positive_one() -> None:
    def ratio(da: object, db: object) -> object:
        a, b = RunRecord(run_id="a", duration_sec=da), RunRecord(run_id="b", duration_sec=db)  # type: ignore[arg-type]
        (duration,) = [f for f in compare_records(a, b).fields if f.name == "duration_sec"]
        return duration.detail["ratio"]

    assert ratio(3.0, 1.0) == 0.3333  # four decimals
    assert ratio(0, 5.0) is None and ratio(-2.0, 1.0) is None and ratio(None, 1.0) is None
    assert ratio(2.0, None) is None and ratio("2", 1.0) is None


def test_timings_without_a_step_name_are_matched_by_target() -> None:
    a = RunRecord(run_id="a", timings=[{"output": "o", "seconds": 1.0}])
    b = RunRecord(run_id="b", timings=[{"output": "o", "seconds": 2.0}])
    (timing,) = compare_records(a, b).timings
    assert (timing.name, timing.verdict, timing.detail["step"]) == ("(o)", "changed", "")


def test_hashes_of_other_methods_are_not_comparable_with_the_reason() -> None:
    from ubunye.lineage.compare import compare_steps

    new = Step("t", "output", row_count=2, schema_hash=S5, data_hash=H, hash_method="rows-v1")
    old = Step("t", "output", row_count=2, schema_hash=S5, data_hash=H, hash_method="sha256-of-files")
    legacy = Step("t", "output", row_count=2, schema_hash=S5, data_hash=H)
    assert compare_steps("output", "t", old, new).data_hash.to_dict() == {
        "name": "data_hash", "verdict": "not comparable", "a": H, "b": H,
        "reason": "hashed by different methods: sha256-of-files vs rows-v1",
        "method_a": "sha256-of-files", "method_b": "rows-v1"}
    assert compare_steps("output", "t", legacy, new).schema_hash.to_dict() == {
        "name": "schema_hash", "verdict": "not comparable", "a": S5, "b": S5,
        "reason": "hashed by different methods: none recorded vs rows-v1", "method_a": None, "method_b": "rows-v1"}
    assert compare_steps("output", "t", old, old).data_hash.to_dict() == {
        "name": "data_hash", "verdict": "not comparable", "a": H, "b": H,
        "reason": "both hashed by a method older than rows-v1 (sha256-of-files); the hash does not prove the rows",
        "method_a": "sha256-of-files", "method_b": "sha256-of-files"}
    changed = compare_steps("output", "t", new, Step("t", "output", row_count=2, schema_hash=S5,
                                                     data_hash=S0, hash_method="rows-v1"))
    assert (changed.data_hash.verdict, changed.schema_hash.verdict, changed.verdict) == ("changed", "unchanged",
                                                                                          "changed")


def test_a_value_recorded_on_one_side_or_neither_is_unknown() -> None:
    from ubunye.lineage.compare import compare_steps

    counted = Step("t", "input", row_count=2, schema_hash="s", data_hash=H, hash_method="rows-v1")
    uncounted = Step("t", "input", schema_hash="s", data_hash=H, hash_method="rows-v1")
    rows = compare_steps("input", "t", uncounted, counted, labels=("recorded", "now")).row_count
    assert (rows.verdict, rows.reason) == ("unknown", "not recorded in recorded")
    rows = compare_steps("input", "t", counted, uncounted, labels=("recorded", "now")).row_count
    assert (rows.verdict, rows.reason) == ("unknown", "not recorded in now")
    rows = compare_steps("input", "t", uncounted, uncounted, labels=("recorded", "now")).row_count
    assert (rows.verdict, rows.reason) == ("unknown", "recorded in neither recorded nor now")

    def fields(a: RunRecord, b: RunRecord) -> dict[str, tuple[object, ...]]:
        return {f.name: (f.verdict, f.reason) for f in compare_records(a, b).fields}

    bare, full = RunRecord(run_id="a"), RunRecord(run_id="b", config_hash="c", code_hash="k",
                                                  environment={"python": "3.11"}, environment_hash="e")
    assert fields(bare, bare)["config"] == ("unknown", "recorded in neither run A nor run B")
    assert fields(bare, bare)["environment"] == ("unknown", "recorded in neither run A nor run B")
    assert fields(bare, full)["code"] == ("unknown", "not recorded in run A")
    assert fields(full, bare)["config"] == ("unknown", "not recorded in run B")
    assert fields(bare, full)["environment"] == ("unknown", "not recorded in run A")
    assert fields(full, full)["environment"] == ("unchanged", None)
    assert fields(full, full)["config"] == ("unchanged", None)
    moved = RunRecord(run_id="c", config_hash="c2", code_hash="k", environment={"python": "3.12"}, environment_hash="e")
    assert fields(full, moved)["config"] == ("changed", None)
    assert fields(full, moved)["environment"] == ("changed", None)  # a platform fact moved, the hash alike


def test_the_status_problem_of_each_run_names_it() -> None:
    from ubunye.lineage import ending

    gone = {"host": ending.socket.gethostname(), "pid": 2**22 + 1, "boot_id": None, "start_ticks": None}
    stopped = RunRecord(run_id="r", status="running", process=gone)
    assert status_problem(stopped, "run A") == (
        f"run A was abandoned (status running, but its process (pid {2**22 + 1} on {gone['host']}) is gone: it "
        "was stopped before it could record its end): its record is not final")
    failed, fine = RunRecord(run_id="a", status="error"), RunRecord(run_id="b", status="success")
    assert compare_records(failed, fine).problems[0] == "run A did not succeed (status error)"
    assert compare_records(fine, failed).problems[0] == "run B did not succeed (status error)"


def test_a_value_missing_on_one_side_keeps_the_other_sides_value() -> None:
    from ubunye.lineage.compare import compare_steps

    full = Step("t", "input", row_count=2, schema_hash="s", data_hash=H, hash_method="rows-v1")
    bare = Step("t", "input", hash_method="rows-v1")
    for a, b in ((full, bare), (bare, full)):
        diff = compare_steps("input", "t", a, b, labels=("recorded", "now"))
        side = "now" if a is full else "recorded"
        assert diff.row_count.to_dict() == {"name": "row_count", "verdict": "unknown", "a": a.row_count,
                                            "b": b.row_count, "reason": f"not recorded in {side}"}
        assert diff.schema_hash.to_dict() == {"name": "schema_hash", "verdict": "unknown", "a": a.schema_hash,
                                              "b": b.schema_hash, "reason": f"{side}: no data hash recorded"}
        assert (diff.data_hash.a, diff.data_hash.b) == (a.data_hash, b.data_hash)
    with_config = RunRecord(run_id="a", config_hash="c", environment={"python": "3.11"}, environment_hash="e1")
    without = RunRecord(run_id="b", environment={"python": "3.11"}, environment_hash="e2")
    fields = {f.name: f.to_dict() for f in compare_records(with_config, without).fields}
    assert fields["config"] == {"name": "config", "verdict": "unknown", "a": "c", "b": None,
                                "reason": "not recorded in run B"}
    assert (fields["environment"]["verdict"], fields["environment"]["a"], fields["environment"]["b"]) == (
        "changed", "e1", "e2")


def test_a_changed_data_hash_says_which_rows_and_partitions() -> None:
    from ubunye.hashing.digest import LaneSums
    from ubunye.hashing.partition_sums import to_record
    from ubunye.hashing.sketch import row_name, sketch_of_lanes
    from ubunye.lineage.compare import compare_steps, describe_problem

    def step(data: str, lanes: list[tuple[int, int]], days: list[str]) -> Step:
        sums = {f"day={d}": LaneSums(1, *lane) for d, lane in zip(days, lanes)}
        return Step("t", "output", row_count=2, schema_hash="s", data_hash=data, hash_method="rows-v1",
                    sketch=sketch_of_lanes(lanes).to_record(), partitions=to_record(["day"], sums))

    before = step(H, [(1, 2), (3, 4)], ["1", "2"])
    after = step("sha256:" + "b" * 64, [(1, 2), (5, 6)], ["1", "3"])
    diff = compare_steps("output", "t", before, after)
    assert diff.where is not None and diff.where.to_dict() == {
        "complete": True, "summary": "1 row removed, 1 added", "removed": [row_name(3, 4)], "added": [row_name(5, 6)]}
    assert diff.partitions == [{"partition": "day=2", "rows_before": 1, "rows_after": None},
                               {"partition": "day=3", "rows_before": None, "rows_after": 1}]
    assert describe_problem(diff).endswith("; 1 row removed, 1 added; partitions changed: day=2 (removed, 1 rows), "
                                           "day=3 (added, 1 rows)")
    same = compare_steps("output", "t", before, before)
    assert (same.where, same.partitions) == (None, None)  # only a changed hash is localised


def test_the_reader_entry_of_an_input_in_each_case() -> None:
    from ubunye.lineage.compare import compare_steps

    def reader(options: Any, schema: Any = None) -> Step:
        return Step("t", "input", row_count=2, schema_hash="s", data_hash=H, hash_method="rows-v1",
                    options=options, schema=schema)

    comma = {"options": {"sep": ","}, "schema": None}
    assert compare_steps("input", "t", reader(None), reader({"sep": ","})).reader.to_dict() == {
        "name": "reader", "verdict": "unknown", "a": None, "b": comma,
        "reason": "reader settings not recorded in run A"}
    assert compare_steps("input", "t", reader({"sep": ","}), reader(None)).reader.to_dict() == {
        "name": "reader", "verdict": "unknown", "a": comma, "b": None,
        "reason": "reader settings not recorded in run B"}
    assert compare_steps("input", "t", reader({"sep": ","}), reader({"sep": ","})).reader.to_dict() == {
        "name": "reader", "verdict": "unchanged", "a": comma, "b": comma}
    moved = compare_steps("input", "t", reader({"sep": ","}), reader({"sep": ";"}, "a INT")).reader.to_dict()
    assert moved == {"name": "reader", "verdict": "changed", "a": comma, "b": {"options": {"sep": ";"}, "schema": "a INT"},
                     "reason": "option sep ',' -> ';'; schema inferred -> 'a INT'"}


def test_rules_without_columns_pair_and_a_rule_in_both_runs_is_never_re_paired() -> None:
    def names(la: list[dict[str, object]], lb: list[dict[str, object]]) -> list[tuple[str, str]]:
        compared = compare_records(RunRecord(run_id="a", expectations=la), RunRecord(run_id="b", expectations=lb))
        return [(e.name, e.verdict) for e in compared.expectations]

    no_column = {k: v for k, v in _rule("n1", "row_count", None).items() if k != "column"}
    assert names([no_column], [_rule("n2", "row_count", "")]) == [("o.n1", "unchanged")]  # absent, null, "": none
    both, other = _rule("kept", "unique", "x"), _rule("other", "unique", "x", passed=False)
    assert names([_rule("old", "unique", "x"), both], [both]) == [("o.old", "missing"), ("o.kept", "unchanged")]
    assert names([both], [other, both]) == [("o.kept", "unchanged"), ("o.other", "missing")]


def test_a_rule_checked_in_one_run_only_keeps_the_other_runs_outcome() -> None:
    a = RunRecord(run_id="a", expectations=[_rule("r1", "unique", "x")])
    b = RunRecord(run_id="b", expectations=[_rule("r2", "not_null", "y")])
    outcome = {"passed": True, "failed": 0, "total": 1, "severity": None}
    assert [e.to_dict() for e in compare_records(a, b).expectations] == [
        {"name": "o.r1", "verdict": "missing", "a": outcome, "b": None, "reason": "not checked in run B",
         "output": "o", "rule": "r1"},
        {"name": "o.r2", "verdict": "missing", "a": None, "b": outcome, "reason": "not checked in run A",
         "output": "o", "rule": "r2"}]


def test_an_equal_timing_is_unchanged() -> None:
    a = RunRecord(run_id="a", timings=[{"step": "Reader", "input": "p", "seconds": 2.0}])
    (timing,) = compare_records(a, a).timings
    assert (timing.name, timing.verdict, timing.detail) == ("Reader(p)", "unchanged",
                                                            {"step": "Reader", "target": "p", "ratio": 1.0})
