"""ubunye.io.ddl against Spark's own DDL parser: the same strings give the same kinds.

Each DDL string of tests/test_io_ddl.py is handed to ``spark.read.schema(...)`` over
an empty csv file; the kinds of Spark's schema must equal those of ``ddl.parse``.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_io_ddl import CASES  # noqa: E402

from ubunye.hashing.arrow import arrow_kinds  # noqa: E402
from ubunye.io.ddl import parse  # noqa: E402
from ubunye.spark.kinds import spark_kinds  # noqa: E402


@pytest.mark.parametrize("ddl", sorted(CASES))
def test_spark_reads_the_ddl_as_ddl_parse_does(spark: Any, tmp_path: Path, ddl: str) -> None:
    path = tmp_path / "empty.json"
    path.write_text("")
    frame = spark.read.schema(ddl).json(str(path))
    assert [(n, str(k)) for n, k in spark_kinds(frame.schema)] == [(n, str(k)) for n, k in arrow_kinds(parse(ddl))]
