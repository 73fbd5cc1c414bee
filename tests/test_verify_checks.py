"""verify_record step by step, with a stand-in hasher: the reason for each step that cannot be
re-hashed, what the hasher is given, the report (``Verification.to_dict``), formats and notes."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage import verify
from ubunye.lineage.verify import VerifyError, file_format, verify_record

H = "sha256:" + "b" * 64
S5 = "sha256:" + "5" * 64


def fp(rows: int = 2, data: str = H, engine: Any = "arrow") -> SimpleNamespace:
    return SimpleNamespace(row_count=rows, schema_hash=S5, data_hash=data, method="rows-v1", engine=engine,
                           error=None)


class Hasher:
    def __init__(self, result: Any) -> None:
        self.result = result
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((args, kwargs))
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result


def one(step: Step, hasher: Any = None, **kw: Any) -> Any:
    record = RunRecord("r", status="success", outputs=[step] if step.direction == "output" else [],
                       inputs=[step] if step.direction == "input" else [])
    return verify_record(record, hasher=hasher or Hasher(fp()), **kw)


def test_the_report_of_a_verified_step(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a\n1\n2\n", encoding="utf-8")
    step = Step("t", "output", "csv", "t.csv", 2, S5, H, "rows-v1")
    record = RunRecord("r", task_path="u/p/t", started_at="2026-03-01T08:00:00+00:00", status="success",
                       backend="pandas", outputs=[step], time_zone="UTC")
    hasher = Hasher(fp(engine=None))
    got = verify_record(record, engine="pandas", base_dir=tmp_path, hasher=hasher).to_dict()
    assert hasher.calls == [((str(tmp_path / "t.csv"), "csv", "pandas"), {})]  # relative: against base_dir
    (check,) = got.pop("steps")
    assert got == {"run": {"run_id": "r", "task_path": "u/p/t", "started_at": "2026-03-01T08:00:00+00:00",
                           "status": "success", "backend": "pandas", "engine": "pandas"},
                   "data_proven_same": True, "problems": [], "notes": []}
    seconds = check.pop("seconds")
    assert isinstance(seconds, float) and seconds >= 0
    same = {"verdict": "unchanged"}
    assert check == {
        "direction": "output", "name": "t", "location": "t.csv", "format": "csv", "engine": "pandas", "verdict":
        "unchanged", "reason": None,
        "now": {"row_count": 2, "schema_hash": S5, "data_hash": H, "method": "rows-v1", "engine": None,
                "error": None},
        "row_count": {"name": "row_count", **same, "a": 2, "b": 2},
        "schema_hash": {"name": "schema_hash", **same, "a": S5, "b": S5},
        "data_hash": {"name": "data_hash", **same, "a": H, "b": H},
    }


def test_a_changed_step_says_so_in_the_recorded_and_now_words(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a\n", encoding="utf-8")
    step = Step("t", "output", "csv", str(tmp_path / "t.csv"), 2, S5, H, "rows-v1")
    result = one(step, Hasher(fp(rows=3, data="sha256:" + "c" * 64)))
    assert result.steps[0].engine == "arrow"  # the hasher's own engine name
    assert result.problems == [f"output 't': row count changed (2 -> 3), data hash changed ({H} -> sha256:{'c' * 64})"]


@pytest.mark.parametrize("location, fmt, engine, verdict, reason", [
    (None, "csv", "pandas", "unknown", "no location recorded"),
    ("{tmp}/gone.csv", "csv", "pandas", "missing", "{tmp}/gone.csv no longer exists"),
    ("s3://b/t", "parquet", "pandas", "unknown", "s3://b/t is remote: re-hash it with --engine spark"),
    ("{tmp}/t.dat", "text", "pandas", "unknown",
     "cannot tell the file format of {tmp}/t.dat (recorded format 'text')"),
    ("{tmp}/t.dat", "delta", "arrow", "unknown", "format delta needs --engine spark"),
])
def test_why_a_step_cannot_be_re_hashed(tmp_path: Path, location: Any, fmt: str, engine: str, verdict: str,
                                        reason: str) -> None:
    (tmp_path / "t.dat").write_text("x", encoding="utf-8")
    where = location.format(tmp=tmp_path) if location else None
    hasher = Hasher(fp())
    result = one(Step("t", "input", fmt, where, 2, S5, H, "rows-v1"), hasher, engine=engine)
    check = result.steps[0]
    why = reason.format(tmp=tmp_path)
    assert (check.verdict, check.reason, check.diff, check.now, check.engine) == (verdict, why, None, None, engine)
    assert check.location == where
    assert check.format == ("delta" if fmt == "delta" else None)
    assert result.problems == [f"input 't': {verdict} ({why})"]
    assert hasher.calls == []


def test_a_reader_failure_is_a_verdict_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a\n", encoding="utf-8")
    check = one(Step("t", "output", "csv", str(tmp_path / "t.csv"), 2, "s", H, "rows-v1"),
                Hasher(ValueError("bad\n  row 3"))).steps[0]
    assert (check.verdict, check.reason, check.format) == ("unknown", "could not read it now: ValueError: bad row 3",
                                                           "csv")


def test_the_hasher_gets_the_reader_settings_the_run_used(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a\n", encoding="utf-8")
    hasher = Hasher(fp())
    one(Step("t", "input", "csv", str(tmp_path / "t.csv"), 2, S5, H, "rows-v1", schema="a INT"), hasher)
    assert hasher.calls[-1][1] == {"options": {}, "schema": "a INT"}
    one(Step("t", "input", "csv", str(tmp_path / "t.csv"), 2, S5, H, "rows-v1", options={"sep": ";"}), hasher)
    assert hasher.calls[-1][1] == {"options": {"sep": ";"}, "schema": None}
    check = one(Step("t", "input", "csv", str(tmp_path / "t.csv"), 2, "s", H, "rows-v1",
                     options={"z": "***", "sep": ";", "a": "***"}), hasher).steps[0]
    assert check.reason == ("the run's reader option 'a' is masked in the record: it cannot be read again as "
                            "the run read it")
    assert (check.verdict, check.format) == ("unknown", "csv")
    assert len(hasher.calls) == 2


@pytest.mark.parametrize("zone, noted", [("Europe/Paris", True), ("utc", False), ("Etc/UTC", False), ("Z", False),
                                         (None, False)])
def test_a_run_in_another_time_zone_gets_a_note(zone: Any, noted: bool) -> None:
    notes = verify_record(RunRecord("r", status="success", time_zone=zone), hasher=Hasher(fp())).notes
    assert notes == ([f"the run used time zone {zone}; files are re-read in UTC as `ubunye hash` reads them, so a "
                      "text timestamp column may hash differently"] if noted else [])


def test_the_format_from_file_names(tmp_path: Path) -> None:
    for name, fmt in (("a.PQ", "parquet"), ("b.ndjson", "json"), ("c.jsonl", "json"), ("d.txt", None)):
        (tmp_path / name).write_text("x", encoding="utf-8")
        assert file_format(Step("x", "output"), tmp_path / name) == fmt, name
    mixed = tmp_path / "mixed"
    (mixed / "sub").mkdir(parents=True)
    (mixed / "sub" / "p.csv").write_text("x", encoding="utf-8")
    (mixed / ".hidden.json").write_text("x", encoding="utf-8")
    (mixed / "_meta.json").write_text("x", encoding="utf-8")
    assert file_format(Step("x", "output"), mixed) == "csv"  # hidden and _ files are not data
    (mixed / "q.json").write_text("x", encoding="utf-8")
    assert file_format(Step("x", "output"), mixed) is None  # two formats: cannot tell
    (tmp_path / "tbl" / "_delta_log").mkdir(parents=True)
    assert file_format(Step("x", "output", "parquet"), tmp_path / "tbl") == "parquet"  # the recorded one first
    assert file_format(Step("x", "output"), tmp_path / "tbl") == "delta"
    assert file_format(Step("x", "output"), tmp_path / "absent") is None


def test_an_unknown_engine_is_refused_naming_the_engines() -> None:
    with pytest.raises(VerifyError, match=r"^unknown engine 'polars': use auto, pandas, arrow, spark$"):
        verify_record(RunRecord("r", status="success"), engine="polars", hasher=Hasher(fp()))


def test_spark_re_hashes_remote_locations_and_delta_tables(tmp_path: Path) -> None:
    (tmp_path / "tbl" / "_delta_log").mkdir(parents=True)
    hasher = Hasher(fp())
    remote = one(Step("t", "input", "parquet", "s3://b/t", 2, S5, H, "rows-v1"), hasher, engine="spark")
    assert remote.steps[0].verdict == "unchanged" and remote.problems == []
    delta = one(Step("t", "output", None, str(tmp_path / "tbl"), 2, S5, H, "rows-v1"), hasher,
                engine="spark")
    assert delta.steps[0].verdict == "unchanged" and delta.steps[0].format == "delta"
    assert hasher.calls == [(("s3://b/t", "parquet", "spark"), {}), ((str(tmp_path / "tbl"), "delta", "spark"), {})]


def test_a_relative_location_without_a_usecase_folder_is_read_from_the_working_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.csv").write_text("a\n1\n2\n", encoding="utf-8")
    hasher = Hasher(fp())
    assert one(Step("t", "output", "csv", "t.csv", 2, S5, H, "rows-v1"), hasher).problems == []
    assert hasher.calls == [(("t.csv", "csv", "pandas"), {})]


def test_the_time_a_step_took_to_re_hash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "t.csv").write_text("a\n", encoding="utf-8")
    ticks = iter([10.0, 10.12345678])
    monkeypatch.setattr(verify.time, "perf_counter", lambda: next(ticks))
    check = one(Step("t", "output", "csv", str(tmp_path / "t.csv"), 2, S5, H, "rows-v1")).steps[0]
    assert check.seconds == 0.123457  # rounded to the microsecond


def test_each_side_is_named_recorded_or_now_in_the_reasons(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a\n", encoding="utf-8")
    failed = SimpleNamespace(row_count=None, schema_hash=S5, data_hash=None, method="rows-v1",
                             engine="arrow", error="boom")
    step = Step("t", "output", "csv", str(tmp_path / "t.csv"), None, S5, None, None)
    result = one(step, Hasher(failed))
    assert result.problems == ["output 't': row count unknown (recorded in neither recorded nor now), schema hash not "
                               "comparable (hashed by different methods: none recorded vs rows-v1), data hash "
                               "unknown (recorded: not hashed when the run was recorded; now: hash failed: boom)"]
    assert result.steps[0].diff.location.to_dict() == {"name": "location", "verdict": "unchanged",
                                                       "a": step.location, "b": step.location}


def test_the_problems_of_a_run_that_failed_or_recorded_nothing() -> None:
    failed = verify_record(RunRecord("r", status="error"), hasher=Hasher(fp()))
    assert failed.problems == ["the run did not succeed (status error)", "the run recorded no input or output"]
    assert not failed.data_proven_same


def test_the_real_hasher_reads_with_the_recorded_format_options_and_schema(tmp_path: Path) -> None:
    from ubunye.hashing import fingerprint
    from ubunye.io import read_table

    path = tmp_path / "people.txt"  # the name says no format: the recorded one is used
    path.write_text("id;name\n1;Thabo\n2;Anna\n", encoding="utf-8")
    got = verify.default_hasher(str(path), "csv", "pandas", {"sep": ";"}, "id STRING, name STRING")
    want = fingerprint(read_table(str(path), "csv", options={"sep": ";"}, schema="id STRING, name STRING"))
    assert (got.row_count, got.schema_hash, got.data_hash) == (2, want.schema_hash, want.data_hash)
    inferred = verify.default_hasher(str(path), "csv", "pandas", {"sep": ";"})
    assert inferred.schema_hash != got.schema_hash  # the schema given is the one read with (id inferred as int)
    unseparated = verify.default_hasher(str(path), "csv", "pandas", {}, "id STRING, name STRING")
    assert unseparated.data_hash != want.data_hash  # the options given are the ones read with
