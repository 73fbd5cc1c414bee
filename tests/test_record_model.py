"""The run record model: JSON round trip and loading records of other writers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ubunye.lineage.record import RECORD_VERSION, RunRecord, Step

RECORDS = Path(__file__).parent / "fixtures" / "records"
V1 = RECORDS / "v1" / "shop" / "orders" / "clean" / "5b0c3c1e-9a57-4d43-8d7e-2f1f0c6a9b10.json"
ENGINE_080 = RECORDS / "ubunye-engine-0.8.0" / "shop" / "orders"


def _full_record() -> RunRecord:
    return RunRecord(
        run_id="0b5e8a36-1c43-4c1e-9d42-2a53c8fd7c11",
        task_path="shop/orders/clean",
        usecase="shop",
        package="orders",
        task_name="clean",
        profile="PROD",
        model="etl",
        version="1.2.0",
        config_hash="sha256:" + "1" * 64,
        started_at="2026-01-02T03:04:05.000006+00:00",
        ended_at="2026-01-02T03:04:07.500000+00:00",
        duration_sec=2.499994,
        status="success",
        engine_version="9.9.9",
        backend="pandas",
        variables={"dt": "2026-01-02", "city": "Gqeberha – Ēast", "db_password": "***"},
        time_zone="Africa/Johannesburg",
        code_hash="sha256:" + "2" * 64,
        environment={"python": "3.12.1", "packages": {"pandas": "3.1.1"}},
        environment_hash="sha256:" + "3" * 64,
        timings=[{"step": "Reader:csv", "input": "people", "seconds": 0.25}],
        expectations=[{"output": "adults", "rule": "r", "kind": "not_null", "severity": "warn",
                       "column": "city", "failed": 1, "total": 2, "passed": False}],
        inputs=[Step(name="people", direction="input", format="csv", location="/d/people.csv", row_count=3,
                     schema_hash="sha256:" + "4" * 64, data_hash="sha256:" + "5" * 64, hash_method="rows-v1",
                     hash_seconds=0.001, hash_engine="arrow", hash_pass="materialised")],
        outputs=[Step(name="adults", direction="output", row_count=None, hash_method="rows-v1",
                      hash_error="RowsV1Error: column 'd' has type duration[s]")],
    )


def test_round_trip_is_lossless_and_two_space_utf8() -> None:
    record = _full_record()
    text = record.to_json()
    assert RunRecord.from_json(text) == record
    assert "Gqeberha – Ēast" in text  # UTF-8, not \\u escapes
    assert '\n  "run_id": ' in text  # 2-space indent
    assert json.loads(text)["record_version"] == RECORD_VERSION == 2


def test_written_record_has_every_spec_field() -> None:
    data = json.loads(_full_record().to_json())
    for key in ("record_version", "run_id", "task_path", "usecase", "package", "task_name", "profile", "model",
                "version", "config_hash", "started_at", "ended_at", "duration_sec", "status", "error",
                "engine_version", "backend", "variables", "time_zone", "code_hash", "environment",
                "environment_hash", "timings", "expectations", "inputs", "outputs"):
        assert key in data, key
    for key in ("name", "direction", "format", "location", "row_count", "schema_hash", "data_hash",
                "hash_method", "hash_error", "hash_seconds", "hash_engine"):
        assert key in data["inputs"][0], key


def test_numpy_scalars_in_evidence_are_written_as_numbers() -> None:
    np = pytest.importorskip("numpy")
    record = _full_record()
    record.expectations = [{"rule": "r", "failed": np.int64(3), "total": np.int32(7), "passed": np.bool_(False)}]
    data = json.loads(record.to_json())
    assert data["expectations"] == [{"rule": "r", "failed": 3, "total": 7, "passed": False}]


def test_v1_record_loads_with_empty_v2_fields() -> None:
    record = RunRecord.from_json(V1.read_text(encoding="utf-8"))
    assert record.record_version == 1
    assert record.run_id == "5b0c3c1e-9a57-4d43-8d7e-2f1f0c6a9b10"
    assert record.code_hash is None and record.environment == {} and record.environment_hash is None
    assert record.timings == [] and record.expectations == [] and record.variables == {}
    assert [s.hash_method for s in record.steps] == [None, None]
    assert record.outputs[0].row_count == 2
    assert record.inputs[0].row_count is None


@pytest.mark.parametrize("path", sorted(ENGINE_080.rglob("*.json")), ids=lambda p: p.stem[:8])
def test_engine_080_records_load_ignoring_unknown_fields(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    record = RunRecord.from_dict(raw)
    assert record.record_version == 2
    assert record.run_id == path.stem
    assert record.status == raw["status"]
    assert record.expectations == raw["expectations"]  # kept as the dicts they are
    assert record.timings == raw["timings"]
    assert record.environment == raw["environment"]
    for step, raw_step in zip(record.steps, raw["inputs"] + raw["outputs"]):
        assert step.data_hash == raw_step["data_hash"]
        assert step.row_count == raw_step["row_count"]
        assert step.hash_method == raw_step["hash_method"]
    written = json.loads(record.to_json())
    assert "llm_calls" not in written and "hash_basis" not in written["inputs"][0]
    assert "source_version" not in written["inputs"][0]


def test_record_without_run_id_is_refused() -> None:
    with pytest.raises(ValueError, match="run_id"):
        RunRecord.from_dict({"task_path": "a/b/c"})
