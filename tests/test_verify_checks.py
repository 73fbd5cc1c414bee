"""verify_record step by step, with a stand-in hasher: the reason for each step that cannot be
re-hashed, what the hasher is given, the report (``Verification.to_dict``), formats and notes."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.verify import file_format, verify_record

H = "sha256:" + "b" * 64


def fp(rows: int = 2, data: str = H, engine: Any = "arrow") -> SimpleNamespace:
    return SimpleNamespace(row_count=rows, schema_hash="sha256:s", data_hash=data, method="rows-v1", engine=engine,
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
    step = Step("t", "output", "csv", "t.csv", 2, "sha256:s", H, "rows-v1")
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
        "now": {"row_count": 2, "schema_hash": "sha256:s", "data_hash": H, "method": "rows-v1", "engine": None,
                "error": None},
        "row_count": {"name": "row_count", **same, "a": 2, "b": 2},
        "schema_hash": {"name": "schema_hash", **same, "a": "sha256:s", "b": "sha256:s"},
        "data_hash": {"name": "data_hash", **same, "a": H, "b": H},
    }


def test_a_changed_step_says_so_in_the_recorded_and_now_words(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a\n", encoding="utf-8")
    step = Step("t", "output", "csv", str(tmp_path / "t.csv"), 2, "sha256:s", H, "rows-v1")
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
    result = one(Step("t", "input", fmt, where, 2, "sha256:s", H, "rows-v1"), hasher, engine=engine)
    check = result.steps[0]
    why = reason.format(tmp=tmp_path)
    assert (check.verdict, check.reason, check.diff, check.now, check.engine) == (verdict, why, None, None, engine)
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
    one(Step("t", "input", "csv", str(tmp_path / "t.csv"), 2, "sha256:s", H, "rows-v1", schema="a INT"), hasher)
    assert hasher.calls[-1][1] == {"options": {}, "schema": "a INT"}
    one(Step("t", "input", "csv", str(tmp_path / "t.csv"), 2, "sha256:s", H, "rows-v1", options={"sep": ";"}), hasher)
    assert hasher.calls[-1][1] == {"options": {"sep": ";"}, "schema": None}
    check = one(Step("t", "input", "csv", str(tmp_path / "t.csv"), 2, "s", H, "rows-v1",
                     options={"z": "***", "sep": ";", "a": "***"}), hasher).steps[0]
    assert check.reason == ("the run's reader option 'a' is masked in the record: it cannot be read again as "
                            "the run read it")
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
