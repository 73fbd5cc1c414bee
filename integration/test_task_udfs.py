"""Task code on Spark's Python workers (issue 35): a UDF defined at module level in
``transformations.py``, one calling a helper module of the task folder, a ``pandas_udf``; two
tasks of one session each with its own ``helpers.py``; a write that fails leaves no folder that
was not there. All on the shared session (``integration/conftest.py``), small frames.

Before the fix every UDF case failed on the workers with ``ModuleNotFoundError: No module named
'ubunye_task_…'`` (or ``'helpers'``) and left an empty output folder behind.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import run_task

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "safety"))

from harness import task_folder  # noqa: E402

pytestmark = pytest.mark.spark

CONFIG = """
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ data }}/people.parquet"}
  outputs:
    out: {format: parquet, path: "{{ out }}"}
"""
HELPERS = "SUFFIX = {suffix!r}\n\n\ndef shout(text):\n    return text.upper() + SUFFIX\n"

MODULE_UDF = """
from pyspark.sql import functions as F, types as T
from ubunye import Task


def shout(text):
    return text.upper() + "!"


shout_udf = F.udf(shout, T.StringType())


class Loud(Task):
    def transform(self, sources):
        return {"out": sources["people"].withColumn("loud", shout_udf("name"))}
"""
HELPER_UDF = """
from pyspark.sql import functions as F, types as T
from ubunye import Task
import helpers


class Loud(Task):
    def transform(self, sources):
        loud = F.udf(lambda text: helpers.shout(text), T.StringType())
        return {"out": sources["people"].withColumn("loud", loud("name"))}
"""
PANDAS_UDF = """
import pandas as pd
from pyspark.sql import functions as F
from ubunye import Task
from helpers import shout


@F.pandas_udf("string")
def loud(names: pd.Series) -> pd.Series:
    return names.map(shout)


class Loud(Task):
    def transform(self, sources):
        return {"out": sources["people"].withColumn("loud", loud("name"))}
"""
FAILING_UDF = """
from pyspark.sql import functions as F, types as T
from ubunye import Task


def boom(text):
    raise ValueError("no " + text)


class Boom(Task):
    def transform(self, sources):
        return {"out": sources["people"].withColumn("x", F.udf(boom, T.StringType())("name"))}
"""


def _run(spark: Any, root: Path, name: str, code: str, suffix: str = "!", lineage: bool = False) -> Any:
    data = root / "data"
    data.mkdir(exist_ok=True)
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["ab", "cd"]}), data / "people.parquet")
    task = task_folder(root / "uc", name, CONFIG, code)
    (task / "helpers.py").write_text(HELPERS.format(suffix=suffix), encoding="utf-8")
    return run_task(task, spark=spark, raise_on_error=False, lineage=lineage,
                    variables={"data": str(data), "out": str(root / "out" / name)})


@pytest.mark.parametrize("code", [MODULE_UDF, HELPER_UDF, PANDAS_UDF], ids=["module_udf", "helper_udf", "pandas_udf"])
def test_task_udfs_run_on_the_workers(spark: Any, tmp_path: Path, code: str) -> None:
    result = _run(spark, tmp_path, "loud", code)
    assert result.error is None, str(result.error)[:2000]
    rows = pq.read_table(tmp_path / "out" / "loud").sort_by("id").to_pydict()
    assert rows["loud"] == ["AB!", "CD!"]


def test_two_tasks_each_run_their_own_helpers_on_the_workers(spark: Any, tmp_path: Path) -> None:
    first = _run(spark, tmp_path, "first", HELPER_UDF, suffix="-1")
    second = _run(spark, tmp_path, "second", HELPER_UDF, suffix="-2")
    assert first.error is None and second.error is None, str(first.error or second.error)[:2000]
    assert pq.read_table(tmp_path / "out" / "first").sort_by("id")["loud"].to_pylist() == ["AB-1", "CD-1"]
    assert pq.read_table(tmp_path / "out" / "second").sort_by("id")["loud"].to_pylist() == ["AB-2", "CD-2"]


def test_data_loss_failed_write_leaves_no_new_empty_output_folder(spark: Any, tmp_path: Path) -> None:
    result = _run(spark, tmp_path, "boom", FAILING_UDF, lineage=True)
    assert result.error is not None and ("no ab" in str(result.error) or "no cd" in str(result.error))
    assert not (tmp_path / "out" / "boom").exists()  # an empty folder made a next `mode: ignore` run skip its write
    (step,) = result.record.outputs  # the record says it was not written
    assert step.data_hash is None and step.hash_error.startswith("not written: the run ended before"), step


def test_lying_record_spark_matches_as_the_shared_regex_cases_say(spark: Any) -> None:
    """The cases ``tests/safety/test_regex_parity.py`` runs on pandas, here on Spark (Java): one row
    per case, each matched with its own Java pattern in one projection (0.1 s; one aggregate of a
    rule per case took 8 s of code generation), then the checks' own path on the issue's case."""
    import json

    from pyspark.sql import functions as F

    from ubunye.engine.checks_spark import evaluate_spark
    from ubunye.engine.expectations import parse_rule
    from ubunye.engine.regex import java_regex
    from ubunye.spark._compat import frame_from_arrow

    cases = json.loads((Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "regex-parity"
                        / "cases.json").read_text())
    frame = frame_from_arrow(spark, pa.table({
        "i": list(range(len(cases))), "text": [c["text"] for c in cases],
        "java": [java_regex(c["pattern"], anywhere=c["anywhere"]) for c in cases]}))
    found = {row["i"]: row["m"] for row in frame.select("i", F.expr("text RLIKE java").alias("m")).collect()}
    wrong = [(c["pattern"], c["text"], c["why"]) for i, c in enumerate(cases) if found[i] != c["matches"]]
    assert not wrong, wrong
    digits = frame_from_arrow(spark, pa.table({"n": ["123", "\u0661\u0662\u0663", None]}))
    rule = parse_rule({"kind": "matches", "column": "n", "pattern": r"\d+"}, Path("config.yaml"), "r")
    assert evaluate_spark(digits, [rule])[0].failed == 1  # as on pandas: the Arabic-Indic digits break it
