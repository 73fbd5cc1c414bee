"""Differential suite, Spark variant (issue 42): Spark is the oracle of the Python reference.

The fast variant's generator (tests/oracle_frames.py) draws frames over every kind of rows-v1;
each is built as a Spark DataFrame from its Arrow table (``spark.createDataFrame``: far years,
instants in other zones, bytes that are not UTF-8 arrive as Spark holds them) and hashed by the
plugin's native aggregate and by the ``mapInArrow`` fallback; both must give the port's
``(schema_hash, data_hash, rows)`` (the reference writer on the Python values), or all refuse.
A frame Arrow or Spark cannot hold counts as refused by Spark. Hypothesis runs derandomized (a
fixed seed); ``UBUNYE_ORACLE_SPARK_EXAMPLES=2000`` is the large run by hand (docs/testing.md).
Kept cases (tests/fixtures/oracle/) are replayed too.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import oracle_frames as O  # noqa: E402

EXAMPLES = int(os.environ.get("UBUNYE_ORACLE_SPARK_EXAMPLES", "10"))
ENGINES = ("spark-native", "spark-sql")


def spark_outcomes(spark: Any, case: O.Case) -> dict[str, O.Outcome]:
    from ubunye.spark import fingerprint_spark

    try:
        df = spark_frame(spark, case)
    except Exception:  # noqa: BLE001 - Arrow or Spark cannot hold a value: Spark refuses
        return {engine: O.REFUSED for engine in ENGINES}
    return {engine: O.outcome(fingerprint_spark(df, engine=engine)) for engine in ENGINES}


def spark_frame(spark: Any, case: O.Case) -> Any:
    """The case on Spark, from its Arrow table; from its Python rows when pyspark cannot take the
    table (pyspark 4.1 turns a valid ``map<int8,null>`` into an invalid Arrow array)."""
    from ubunye.spark.testing import spark_value

    table = O.arrow_table(case)
    if not table.num_columns:
        return spark.range(table.num_rows).select()
    ddl = ", ".join(f"{O.quoted(n)} {O.spark_ddl(k)}" for n, k in case.columns)
    try:
        df = spark.createDataFrame(table, ddl)
        df.schema  # noqa: B018 - pyspark refuses the table here
        return df
    except Exception:  # noqa: BLE001 - then the rows, as pyspark takes Python values
        rows = [tuple(spark_value(row.get(n), k) for n, k in case.columns) for row in case.rows]
        return spark.createDataFrame(rows, ddl)


def disagreement(spark: Any, case: O.Case) -> str:
    want = O.outcome(__import__("ubunye").fingerprint(O.Port(case)))
    got = spark_outcomes(spark, case)
    wrong = {engine: result for engine, result in got.items() if result != want}
    return "" if not wrong else f"port: {want}\n" + "\n".join(f"{e}: {r}" for e, r in wrong.items())


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(case=O.cases(max_rows=8))
def test_spark_agrees_with_the_reference(spark: Any, case: O.Case) -> None:
    found = disagreement(spark, case)
    assert not found, found + "\n" + O.case_to_json(case)


@pytest.mark.parametrize("name,case", O.fixture_cases(), ids=lambda x: x if isinstance(x, str) else "")
def test_kept_cases_agree_on_spark(spark: Any, name: str, case: O.Case) -> None:
    found = disagreement(spark, case)
    assert not found, f"{name}:\n{found}"
