"""Which Spark session settings make the parquet writer store other values than the frame
(spark/stored.py): read with pyspark's types and a stand-in session, no JVM."""
from __future__ import annotations

from typing import Any, Optional

import pyspark.sql.types as T

from ubunye.spark.stored import read_back, stored_differently
from ubunye.engine.config import IOSpec

DEFAULTS = {"spark.sql.parquet.outputTimestampType": "INT96",
            "spark.sql.parquet.int96RebaseModeInWrite": "CORRECTED",
            "spark.sql.parquet.datetimeRebaseModeInWrite": "CORRECTED"}


class Conf:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = {**DEFAULTS, **values}

    def get(self, key: str) -> Optional[str]:
        if key not in self.values:
            raise RuntimeError(f"[SQL_CONF_NOT_FOUND] {key}")
        return self.values[key]


class Session:
    def __init__(self) -> None:
        self.conf = Conf({})


class Frame:
    def __init__(self, schema: Any) -> None:
        self.schema = schema


def out(fmt: str = "parquet", mode: str = "overwrite") -> IOSpec:
    return IOSpec(name="o", direction="output", format=fmt, path="/x", mode=mode)


STAMPED = Frame(T.StructType([T.StructField("id", T.LongType()),
                              T.StructField("inner", T.StructType([T.StructField("at", T.TimestampType())]))]))
DATED = Frame(T.StructType([T.StructField("day", T.DateType())]))
PLAIN = Frame(T.StructType([T.StructField("id", T.LongType())]))


def conf(**values: str) -> Session:
    session = Session()
    session.conf.values.update({f"spark.sql.parquet.{k}": v for k, v in values.items()})
    return session


def test_millis_refuses_the_frame_hash_of_a_nested_timestamp_and_micros_or_int96_do_not() -> None:
    reason = stored_differently(conf(outputTimestampType="TIMESTAMP_MILLIS"), STAMPED, out())
    assert reason == "spark.sql.parquet.outputTimestampType=TIMESTAMP_MILLIS"
    assert stored_differently(conf(outputTimestampType="TIMESTAMP_MICROS"), STAMPED, out()) is None
    assert stored_differently(conf(), STAMPED, out("delta")) is None  # INT96, CORRECTED: exact
    assert stored_differently(conf(outputTimestampType="TIMESTAMP_MILLIS"), PLAIN, out()) is None



def test_csv_and_json_always_hold_text_and_are_read_back_with_the_writer_options_and_schema() -> None:
    for fmt in ("csv", "json"):
        for frame in (PLAIN, STAMPED):  # whatever the columns and settings
            assert stored_differently(conf(), frame, out(fmt)) == f"{fmt} files hold the values as text"
        # an append or a partitioned write too: the files that write created are read back
        assert stored_differently(conf(), PLAIN, out(fmt, mode="append")) == f"{fmt} files hold the values as text"
        partitioned = IOSpec(name="o", direction="output", format=fmt, path="/x", mode="overwrite",
                             partition_by=["id"])
        assert stored_differently(conf(), PLAIN, partitioned) == f"{fmt} files hold the values as text"

    class Schema:
        def toDDL(self) -> str:
            return "id BIGINT, at TIMESTAMP"

    spec = IOSpec(name="o", direction="output", format="csv", path="/x", mode="overwrite",
                  options={"timestampFormat": "yyyy", "quoteAll": True, "mode": "PERMISSIVE"})
    options, ddl = read_back(Frame(Schema()), spec)
    assert ddl == "id BIGINT, at TIMESTAMP"
    # Spark's names lower-cased and values as strings, csv's header as the writer defaults it, and
    # FAILFAST whatever the config said (text the schema cannot take fails the hash)
    assert options == {"timestampformat": "yyyy", "quoteall": "true", "header": "true", "mode": "FAILFAST"}
    json_spec = IOSpec(name="o", direction="output", format="json", path="/x", mode="overwrite")
    assert read_back(Frame(Schema()), json_spec)[0] == {"mode": "FAILFAST"}


def test_legacy_rebase_refuses_dates_and_int96_timestamps() -> None:
    assert "datetimeRebaseModeInWrite=LEGACY" in stored_differently(
        conf(datetimeRebaseModeInWrite="LEGACY"), DATED, out())
    assert "int96RebaseModeInWrite=LEGACY" in stored_differently(
        conf(int96RebaseModeInWrite="LEGACY"), STAMPED, out("table"))
    assert stored_differently(conf(int96RebaseModeInWrite="LEGACY"), DATED, out()) is None


def test_a_char_column_refuses_the_frame_hash() -> None:
    frame = Frame(T.StructType([T.StructField("code", T.StringType(), True,
                                              {"__CHAR_VARCHAR_TYPE_STRING": "char(5)"})]))
    assert stored_differently(conf(), frame, out()) == \
        "column code is CHAR/VARCHAR (padded or checked by the writer or the reader)"
