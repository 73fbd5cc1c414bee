"""An input's options and schema: validated in the config, passed to the pandas reader as to
Spark's, recorded on the input's step, and named by ``lineage compare`` when they change."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ubunye import run_task
from ubunye.cli.app import cli
from ubunye.engine.config import IOSpec, validate
from ubunye.engine.errors import ConfigError, IOSpecError
from ubunye.lineage.compare import compare_records
from ubunye.lineage.masking import mask_options
from ubunye.lineage.record import MalformedRecord, RunRecord, Step

COPY = """
from ubunye import Task


class Copy(Task):
    def transform(self, sources):
        return {"out": sources["raw"]}
"""


S_HASH, D_HASH = "sha256:" + "5" * 64, "sha256:" + "d" * 64  # well-formed stand-ins


def config(raw: str) -> str:
    return f"""
CONFIG:
  inputs:
    raw: {raw}
  outputs:
    out: {{format: parquet, path: "{{{{ task_dir }}}}/../../../lake/out"}}
"""


def make_task(root: Path, raw: str) -> Path:
    task = root / "shop" / "orders" / "copy"
    task.mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(config(raw), encoding="utf-8")
    (task / "transformations.py").write_text(COPY, encoding="utf-8")
    return task


@pytest.fixture
def usecase(tmp_path: Path) -> Path:
    parts = tmp_path / "data" / "parts"
    parts.mkdir(parents=True)
    pq.write_table(pa.table({"a": pa.array([1, 2], pa.int64())}), parts / "part-0.parquet")
    pq.write_table(pa.table({"a": pa.array([3], pa.int64()), "b": ["x"]}), parts / "part-1.parquet")
    (tmp_path / "data" / "people.csv").write_text("id,name\n1,ann\n")
    return tmp_path


PARTS = '{{format: parquet, path: "{{{{ task_dir }}}}/../../../data/parts", options: {opts}}}'


def run(usecase: Path, raw: str) -> dict[str, Any]:
    result = run_task(make_task(usecase, raw), backend="pandas", lineage=True)
    assert result.status == "success", result.error
    return json.loads(Path(result.record_path).read_text())


def validate_raw(body: Any) -> IOSpec:
    doc = {"CONFIG": {"inputs": {"raw": body}, "outputs": {"out": {"format": "parquet", "path": "/o"}}}}
    return validate(doc, Path("config.yaml")).inputs["raw"]


def test_config_takes_a_schema_string_and_refuses_anything_else_naming_the_key() -> None:
    assert validate_raw({"format": "csv", "path": "/x", "schema": "a INT"}).schema == "a INT"
    for bad in (["a INT"], {"a": "INT"}, 5, ""):
        with pytest.raises(ConfigError, match=r"CONFIG\.inputs\.raw\.schema: expected a Spark DDL string") as info:
            validate_raw({"format": "csv", "path": "/x", "schema": bad})
        assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match=r"CONFIG\.inputs\.raw\.schema: only file inputs"):
        validate_raw({"format": "delta", "path": "/x", "schema": "a INT"})
    with pytest.raises(ConfigError, match=r"CONFIG\.inputs\.raw\.options\.SEP: names the same option as 'sep'"):
        validate_raw({"format": "csv", "path": "/x", "options": {"sep": ";", "SEP": ","}})


def test_reader_options_are_spark_strings_with_the_engines_csv_defaults() -> None:
    spec = validate_raw({"format": "csv", "path": "/x", "options": {"Header": False, "sep": ";"}})
    assert spec.reader_options() == {"header": "false", "sep": ";", "inferschema": "true"}
    assert validate_raw({"format": "parquet", "path": "/x"}).reader_options() == {}


def test_pandas_reads_with_the_inputs_options_and_records_them(usecase: Path) -> None:
    merged = run(usecase, PARTS.format(opts="{mergeSchema: true}"))
    (step,) = merged["inputs"]
    assert step["options"] == {"mergeschema": "true"} and step["schema"] is None
    assert step["row_count"] == 3 and merged["outputs"][0]["options"] is None
    out = pq.read_table(next((usecase / "lake" / "out").glob("*.parquet")))
    assert out.column_names == ["a", "b"]  # merged: without the option only part-0's column a


def test_pandas_reads_with_the_inputs_schema_and_records_it(usecase: Path) -> None:
    raw = '{format: parquet, path: "{{ task_dir }}/../../../data/parts", schema: "A DECIMAL(25,0), b STRING"}'
    record = run(usecase, raw)
    (step,) = record["inputs"]
    assert step["schema"] == "A DECIMAL(25,0), b STRING" and step["options"] == {}
    out = pq.read_table(next((usecase / "lake" / "out").glob("*.parquet")))
    assert out.column_names == ["A", "b"] and out.schema.types == [pa.decimal128(25, 0), pa.string()]


def test_an_option_the_pandas_reader_does_not_follow_stops_the_run_naming_input_and_option(usecase: Path) -> None:
    task = make_task(usecase, PARTS.format(opts="{int96RebaseMode: CORRECTED}"))
    with pytest.raises(IOSpecError, match="input 'raw': option 'int96rebasemode' is not followed by the pandas "
                                          "reader of parquet"):
        run_task(task, backend="pandas")
    assert not (usecase / "lake").exists()  # refused before anything ran


def test_lineage_compare_gives_a_changed_option_as_the_reason(usecase: Path) -> None:
    first = run(usecase, PARTS.format(opts="{mergeSchema: true}"))
    second = run(usecase, PARTS.format(opts="{mergeSchema: false}"))
    comparison = compare_records(RunRecord.from_dict(first), RunRecord.from_dict(second))
    reason = "reader settings changed: option mergeschema 'true' -> 'false'"
    assert any(p.startswith("input 'raw': schema hash changed") and p.endswith(reason)
               for p in comparison.problems), comparison.problems
    shown = CliRunner().invoke(cli, ["lineage", "compare", "-d", str(usecase), "-u", "shop", "-p", "orders",
                                     "-t", "copy", "--run-id1", first["run_id"], "--run-id2", second["run_id"]])
    rows = [line.split() for line in shown.output.splitlines() if line.startswith("input raw")]
    assert ["input", "raw", "reader", "changed", "option", "mergeschema", "'true'", "->", "'false'"] in rows, \
        shown.output


def test_compare_names_a_schema_change_even_when_the_rows_are_the_same() -> None:
    def step(schema: Any) -> Step:
        return Step("raw", "input", "csv", "/x", 1, S_HASH, D_HASH, "rows-v1", options={"header": "true"},
                    schema=schema)

    a = RunRecord("a", status="success", inputs=[step(None)])
    b = RunRecord("b", status="success", inputs=[step("a INT")])
    (diff,) = compare_records(a, b).steps
    assert diff.verdict == "unchanged" and diff.reader is not None
    assert (diff.reader.verdict, diff.reader.reason) == ("changed", "schema inferred -> 'a INT'")
    older = RunRecord("c", status="success", inputs=[Step("raw", "input", "csv", "/x", 1, S_HASH, D_HASH,
                                                         "rows-v1")])
    (diff,) = compare_records(older, b).steps
    assert diff.reader is not None and diff.reader.verdict == "unknown"


def test_recorded_options_are_masked_and_checked_on_load() -> None:
    assert mask_options({"sep": ";", "fs.s3a.secret.key": "abc", "path": "s3://u:pw@h/x"}) == {
        "sep": ";", "fs.s3a.secret.key": "***", "path": "s3://u:***@h/x"}
    with pytest.raises(MalformedRecord, match=r"inputs\[0\]\.options must be an object"):
        RunRecord.from_dict({"run_id": "r", "inputs": [{"name": "raw", "options": ["sep"]}]})
    with pytest.raises(MalformedRecord, match=r"inputs\[0\]\.options\.sep must be a string"):
        RunRecord.from_dict({"run_id": "r", "inputs": [{"name": "raw", "options": {"sep": 1}}]})


def test_lineage_verify_reads_an_input_again_with_the_options_and_schema_the_run_used(usecase: Path) -> None:
    """Re-read with default options, the merged parquet parts (mergeSchema) and the widened
    column (schema "a DECIMAL(20,0), b STRING" over int64/string) would read as another table, and
    verify would call unchanged data changed."""
    raw = ('{format: parquet, path: "{{ task_dir }}/../../../data/parts", options: {mergeSchema: true}, '
           'schema: "a DECIMAL(20,0), b STRING"}')
    result = run_task(make_task(usecase, raw), backend="pandas", lineage=True)
    assert result.status == "success", result.error
    record = json.loads(Path(result.record_path).read_text())
    assert record["inputs"][0]["options"]["mergeschema"] == "true"
    verified = CliRunner().invoke(cli, ["lineage", "verify", "-d", str(usecase / "shop"), "--record",
                                        str(result.record_path), "--json"])
    assert verified.exit_code == 0, verified.output
    steps = {s["name"]: s for s in json.loads(verified.stdout)["steps"]}
    assert steps["raw"]["verdict"] == "unchanged", steps["raw"]



def test_lineage_verify_does_not_guess_a_masked_option(tmp_path: Path) -> None:
    """A recorded option whose value is masked cannot be read again as the run read it: unknown."""
    from ubunye.lineage.verify import verify_record

    (tmp_path / "a.parquet").write_bytes(b"")
    record = RunRecord.from_dict({
        "version": 2, "run_id": "r", "usecase": "u", "package": "p", "task": "t", "status": "success",
        "inputs": [{"name": "raw", "direction": "input", "format": "parquet", "location": str(tmp_path / "a.parquet"),
                    "row_count": 1, "schema_hash": "sha256:" + "0" * 64, "data_hash": "sha256:" + "0" * 64,
                    "options": {"token": "***"}}],
        "outputs": []})
    calls: list[Any] = []
    check = verify_record(record, hasher=lambda *a, **k: calls.append((a, k))).steps[0]
    assert check.verdict == "unknown" and "'token' is masked" in (check.reason or ""), check
    assert calls == []
