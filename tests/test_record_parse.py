"""The record parser (lineage/record.py) read directly: each damaged field is refused in one line
with its exact text, each lenient default is what the spec says, and the seal is the sha256 of the
spec's canonical text (sorted keys, no spaces), written out by hand here."""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import fields
from datetime import date, datetime, timedelta, timezone
from pathlib import PurePosixPath
from typing import Any

import pytest

from ubunye.lineage.record import MalformedRecord, RunRecord, Step, check_seal, parse_moment, seal


def _base(**extra: Any) -> dict[str, Any]:
    return {"run_id": "r1", **extra}


def _refused(data: Any) -> str:
    with pytest.raises(MalformedRecord) as caught:
        RunRecord.from_dict(data)
    return str(caught.value)


@pytest.mark.parametrize("data, message", [
    ([], "a run record must be a JSON object, not list"),
    (None, "a run record must be a JSON object, not null"),
    ({}, "a run record needs a run_id"),
    ({"run_id": ""}, "run_id must be a non-empty string"),
    ({"run_id": None}, "run_id must be a non-empty string"),
    ({"run_id": 5}, "run_id must be a string, not 5"),
    (_base(task_path=True), "task_path must be a string, not True"),
    (_base(usecase=[]), "usecase must be a string, not list"),
    (_base(package={}), "package must be a string, not dict"),
    (_base(task_name=1.5), "task_name must be a string, not 1.5"),
    (_base(task_path=10 ** 50), "task_path must be a string, not " + str(10 ** 50)[:40]),
    (_base(record_version=-1), "record_version must be a whole number >= 0, not -1"),
    (_base(record_version=True), "record_version must be a whole number >= 0, not True"),
    (_base(record_version=2.0), "record_version must be a whole number >= 0, not 2.0"),
    (_base(record_version="2"), "record_version must be a whole number >= 0, not str"),
    (_base(profile=[]), "profile must be a string or a number, not list"),
    (_base(model=False), "model must be a string or a number, not False"),
    (_base(version={}), "version must be a string or a number, not dict"),
    (_base(config_hash=1), "config_hash must be a string, not 1"),
    (_base(environment_hash=[]), "environment_hash must be a string, not list"),
    (_base(error=2), "error must be a string, not 2"),
    (_base(started_at=5), "started_at must be a string, not 5"),
    (_base(started_at="yesterday"), "started_at 'yesterday' is not an ISO-8601 date-time"),
    (_base(ended_at="9" * 50), f"ended_at {'9' * 40!r} is not an ISO-8601 date-time"),
    (_base(started_at=""), "started_at '' is not an ISO-8601 date-time"),
    (_base(duration_sec="1"), "duration_sec must be a number, not str"),
    (_base(duration_sec=True), "duration_sec must be a number, not True"),
    (_base(status=0), "status must be a string, not 0"),
    (_base(inputs=5), "inputs must be a list, not int"),
    (_base(outputs={}), "outputs must be a list, not dict"),
    (_base(inputs=[5]), "inputs[0] must be an object, not int"),
    (_base(outputs=[{"name": "a"}, "b"]), "outputs[1] must be an object, not str"),
    (_base(outputs=[{"name": "a", "direction": "input"}]), "outputs[0].direction must be 'output', not 'input'"),
    (_base(inputs=[{"name": "a", "direction": "x" * 30}]), f"inputs[0].direction must be 'input', not {'x' * 20!r}"),
    (_base(variables=[]), "variables must be an object, not list"),
    (_base(environment="py"), "environment must be an object, not str"),
    (_base(process=[1]), "process must be an object, not list"),
    (_base(environment={"packages": []}), "environment.packages must be an object, not list"),
    (_base(pipeline=5), "pipeline must be an object, not int"),
    (_base(pipeline={"run_id": 5}), "pipeline.run_id must be a string, not 5"),
    (_base(pipeline={"name": []}), "pipeline.name must be a string, not list"),
    (_base(timings={}), "timings must be a list, not dict"),
    (_base(timings=[1]), "timings[0] must be an object, not int"),
    (_base(timings=[{"step": 1}]), "timings[0].step must be a string, not 1"),
    (_base(timings=[{}, {"input": 1}]), "timings[1].input must be a string, not 1"),
    (_base(timings=[{"output": 1}]), "timings[0].output must be a string, not 1"),
    (_base(timings=[{"seconds": "1"}]), "timings[0].seconds must be a number, not str"),
    (_base(expectations=[None]), "expectations[0] must be an object, not null"),
    (_base(expectations=[{"output": 1}]), "expectations[0].output must be a string, not 1"),
    (_base(expectations=[{"rule": 1}]), "expectations[0].rule must be a string, not 1"),
    (_base(expectations=[{}, {"severity": 1}]), "expectations[1].severity must be a string, not 1"),
], ids=lambda v: json.dumps(v, default=str)[:50] if not isinstance(v, str) else v[:50])
def test_each_damaged_record_field_is_refused_in_one_line_naming_it(data: Any, message: str) -> None:
    assert _refused(data) == message


@pytest.mark.parametrize("step, message", [
    ({"name": 1}, "inputs[0].name must be a string, not 1"),
    ({"direction": 1}, "inputs[0].direction must be a string, not 1"),
    ({"format": 1}, "inputs[0].format must be a string, not 1"),
    ({"location": []}, "inputs[0].location must be a string, not list"),
    ({"data_hash": 1}, "inputs[0].data_hash must be a string, not 1"),
    ({"schema": {}}, "inputs[0].schema must be a string, not dict"),
    ({"storage_signature": 1}, "inputs[0].storage_signature must be a string, not 1"),
    ({"row_count": -1}, "inputs[0].row_count must be a whole number >= 0, not -1"),
    ({"row_count": 1.0}, "inputs[0].row_count must be a whole number >= 0, not 1.0"),
    ({"row_count": False}, "inputs[0].row_count must be a whole number >= 0, not False"),
    ({"delta_version": "3"}, "inputs[0].delta_version must be a whole number >= 0, not str"),
    ({"hash_seconds": "0.1"}, "inputs[0].hash_seconds must be a number, not str"),
    ({"options": []}, "inputs[0].options must be an object, not list"),
    ({"options": {"header": True}}, "inputs[0].options.header must be a string, not True"),
    ({"sketch": "x"}, "inputs[0].sketch must be an object, not str"),
    ({"partitions": []}, "inputs[0].partitions must be an object, not list"),
    ({"columns": {}}, "inputs[0].columns must be a list, not dict"),
    ({"columns": [{"name": "a", "type": "int64"}, 5]}, "inputs[0].columns[1] must be an object, not int"),
    ({"columns": [{"name": 5}]}, "inputs[0].columns[0].name must be a string, not 5"),
    ({"columns": [{"name": "a", "type": None}, {"type": 5}]}, "inputs[0].columns[1].type must be a string, not 5"),
])
def test_each_damaged_step_field_is_refused_naming_the_step_and_field(step: dict, message: str) -> None:
    assert _refused(_base(inputs=[step])) == message


def test_a_step_alone_is_named_step_and_must_be_an_object() -> None:
    with pytest.raises(MalformedRecord) as caught:
        Step.from_dict([])
    assert str(caught.value) == "step must be an object, not list"
    with pytest.raises(MalformedRecord) as caught:
        Step.from_dict({"format": 5})
    assert str(caught.value) == "step.format must be a string, not 5"
    assert Step.from_dict({"row_count": 0, "unknown": 1}) == Step(name="", direction="", row_count=0)


def test_missing_fields_take_their_empty_values_and_unknown_fields_are_ignored() -> None:
    record = RunRecord.from_dict({"run_id": "r1", "llm_calls": 3, "inputs": [{"name": "a"}],
                                  "outputs": [{"name": "b", "direction": None}], "profile": 5, "model": 1.5,
                                  "version": "2.0", "record_version": 0, "variables": None, "pipeline": None})
    assert (record.task_path, record.usecase, record.package, record.task_name) == ("", "", "", "")
    assert record.record_version == 1  # 0 or missing: a version 1 record
    assert record.status == "unknown"
    assert (record.profile, record.model, record.version) == ("5", "1.5", "2.0")
    assert record.variables == {} and record.environment == {} and record.process == {}
    assert record.timings == [] and record.expectations == [] and record.pipeline is None
    assert [(s.name, s.direction) for s in record.steps] == [("a", "input"), ("b", "output")]
    assert RunRecord.from_dict({"run_id": "r1", "record_version": 3}).record_version == 3
    assert RunRecord.from_dict({"run_id": "r1", "profile": None}).profile is None


def test_values_of_their_kinds_load_as_they_are() -> None:
    class Name(str):
        pass

    step = {"name": Name("a"), "direction": "input", "row_count": 0, "delta_version": 7, "hash_seconds": 0,
            "options": {"header": "true"}, "sketch": {"version": "v"}, "partitions": {"sums": []},
            "columns": [{"name": "a", "type": "int64"}]}
    data = {"run_id": Name("r1"), "task_path": "a/b/c", "duration_sec": 1, "status": "success",
            "started_at": "2026-01-02T03:04:05Z", "ended_at": "2026-01-02T03:04:06+02:00",
            "environment": {"packages": {"pandas": "3"}}, "pipeline": {"run_id": "p", "name": "a.b"},
            "timings": [{"step": "s", "input": "a", "output": "b", "seconds": 0.5}],
            "expectations": [{"output": "b", "rule": "r", "severity": "warn", "failed": 0}], "inputs": [step]}
    record = RunRecord.from_dict(data)
    assert record.inputs[0].options == {"header": "true"} and record.inputs[0].delta_version == 7
    assert record.inputs[0].sketch == {"version": "v"} and record.inputs[0].partitions == {"sums": []}
    assert record.inputs[0].columns == [{"name": "a", "type": "int64"}]
    assert record.pipeline == {"run_id": "p", "name": "a.b"} and record.duration_sec == 1
    assert record.timings == data["timings"] and record.expectations == data["expectations"]
    assert record.started_at == "2026-01-02T03:04:05Z"


@pytest.mark.parametrize("text, moment", [
    ("2026-01-02T03:04:05Z", datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)),
    (" 2026-01-02T03:04:05Z\n", datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)),
    ("2026-01-02T03:04:05", datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)),  # naive: UTC
    ("2026-01-02T05:04:05+02:00", datetime(2026, 1, 2, 5, 4, 5, tzinfo=timezone(timedelta(hours=2)))),
    ("2026-01-02", datetime(2026, 1, 2, tzinfo=timezone.utc)),
    ("", None), ("noon", None), (None, None), (1767322800, None), (b"2026-01-02", None),
])
def test_parse_moment_reads_iso_texts_as_aware_times(text: Any, moment: Any) -> None:
    got = parse_moment(text)
    assert got == moment
    if moment is not None:
        assert got.utcoffset() == moment.utcoffset()


def test_steps_and_records_write_optional_fields_only_when_set() -> None:
    bare = Step(name="a", direction="input")
    assert not {"sketch", "partitions", "columns"} & set(bare.to_dict())
    full = Step(name="a", direction="input", sketch={"k": 1}, partitions={"p": 1}, columns=[{"name": "a"}])
    written = full.to_dict()
    assert (written["sketch"], written["partitions"], written["columns"]) == ({"k": 1}, {"p": 1}, [{"name": "a"}])
    record = RunRecord(run_id="r1", inputs=[bare])
    assert "pipeline" not in record.to_dict()
    assert record.to_dict()["inputs"] == [bare.to_dict()]
    record.pipeline = {"run_id": "p", "name": "a.b"}
    assert record.to_dict()["pipeline"] == {"run_id": "p", "name": "a.b"}


def test_written_values_json_cannot_write_take_their_json_form() -> None:
    class NoItem:
        def item(self) -> Any:
            raise TypeError("no")

        def __str__(self) -> str:
            return "no-item"

    class BadValue(NoItem):
        def item(self) -> Any:
            raise ValueError("no")

    class NotCallable:
        item = 5
        isoformat = "x"

        def __str__(self) -> str:
            return "plain"

    record = RunRecord(run_id="r1", variables={"day": date(2026, 1, 2), "path": PurePosixPath("/a/b"),
                                               "set": {3}, "frozen": frozenset({"x"}), "no": NoItem(),
                                               "bad": BadValue(), "plain": NotCallable(),
                                               "at": datetime(2026, 1, 2, 3, 4, 5)})
    written = json.loads(record.to_json())["variables"]
    assert written == {"day": "2026-01-02", "path": "/a/b", "set": [3], "frozen": ["x"], "no": "no-item",
                       "bad": "no-item", "plain": "plain", "at": "2026-01-02T03:04:05"}
    from ubunye.lineage.record import _jsonable

    assert _jsonable((1, 2)) == [1, 2]  # (json writes tuples itself; the helper answers them too)


def test_seal_is_the_sha256_of_the_sorted_compact_text() -> None:
    data = {"b": [1, 2], "a": "Ē", "seal": "ignored", "c": {"y": None, "x": 1.5}}
    text = '{"a":"Ē","b":[1,2],"c":{"x":1.5,"y":null}}'  # written by hand: sorted keys, no spaces, UTF-8
    assert seal(data) == "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert seal({"x": math.nan}) == "sha256:" + hashlib.sha256(b'{"x":NaN}').hexdigest()
    assert seal({"x": "\ud800"}) == "sha256:" + hashlib.sha256(b'{"x":"\xed\xa0\x80"}').hexdigest()


def test_to_json_writes_every_field_two_spaces_utf8_and_its_seal() -> None:
    record = RunRecord(run_id="r1", task_path="Ē/b/c")
    text = record.to_json()
    assert text.endswith("}\n") and '\n  "task_path": "Ē/b/c",\n' in text
    data = json.loads(text)
    assert data["seal"] == seal(data) and list(data)[-1] == "seal"
    assert RunRecord.from_json(text) == record


def test_a_seal_that_is_not_the_records_own_is_refused() -> None:
    data = json.loads(RunRecord(run_id="r1").to_json())
    check_seal(data)  # its own: accepted
    for written in (None, 5, data["seal"].upper(), ""):
        with pytest.raises(MalformedRecord) as caught:
            check_seal({**data, "seal": written})
        assert str(caught.value) == ("the record does not match its seal: it was changed or damaged after it "
                                     "was written")
        with pytest.raises(MalformedRecord, match="does not match its seal"):
            RunRecord.from_dict({**data, "seal": written})
    # a wrong type in a sealed record names the field, not the seal
    assert _refused({**data, "status": 5}) == "status must be a string, not 5"


def test_an_unknown_kind_of_check_is_a_programming_error() -> None:
    from ubunye.lineage.record import _check

    with pytest.raises(KeyError) as caught:
        _check("x", 1, "a colour")
    assert caught.value.args == ("a colour",)
    assert _check("x", None, "a colour") is None


def test_loading_works_with_the_field_name_cache_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    """The field names of each record class are looked up once per process (``_NAMES``): a fresh
    process (the cache empty) loads the same records as a warm one."""
    from ubunye.lineage import record as record_module

    monkeypatch.setattr(record_module, "_NAMES", {})
    record = RunRecord.from_dict({"run_id": "r1", "unknown": 1, "outputs": [{"name": "b", "other": 2}]})
    assert record == RunRecord(run_id="r1", record_version=1, status="unknown",
                               outputs=[Step(name="b", direction="output")])
    assert set(record_module._NAMES) == {RunRecord, Step}
    assert record_module._NAMES[Step] == frozenset(f.name for f in fields(Step))


def test_to_dict_writes_outputs_as_steps_write_themselves() -> None:
    out = Step(name="b", direction="output", row_count=2)
    record = RunRecord(run_id="r1", inputs=[Step(name="a", direction="input")], outputs=[out])
    written = record.to_dict()
    assert written["outputs"] == [out.to_dict()] and "sketch" not in written["outputs"][0]
    assert set(written) == {f.name for f in fields(RunRecord)} - {"pipeline"}
