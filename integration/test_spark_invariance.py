"""The digest does not move with the session's settings.

Session time zone (UTC, Africa/Johannesburg, America/Los_Angeles), ANSI on
and off, 1 or 64 partitions, adaptive query execution on and off, code
generation on and off: both Spark engines give each fixture's expected digest
under each setting. The tables are built under the setting, as a job would.
"""
from __future__ import annotations

from typing import Any, Callable, ContextManager, Mapping

import pytest

from ubunye.spark import fingerprint_spark
from ubunye.spark.testing import fixture_dataframe
from ubunye.testing.fixtures import fixtures_dir, load_fixture

# instants, wall-clock values, dates, temporal map keys, floats, strings, nesting
FIXTURES = ("timestamps", "timestamp_ntz", "map_temporal_keys", "mixed_random_1000", "structs")

SETTINGS: dict[str, tuple[Mapping[str, str], int | None]] = {
    "tz-utc": ({"spark.sql.session.timeZone": "UTC"}, None),
    "tz-johannesburg": ({"spark.sql.session.timeZone": "Africa/Johannesburg"}, None),
    "tz-los-angeles": ({"spark.sql.session.timeZone": "America/Los_Angeles"}, None),
    "ansi-on": ({"spark.sql.ansi.enabled": "true"}, None),
    "ansi-off": ({"spark.sql.ansi.enabled": "false"}, None),
    "one-partition": ({}, 1),
    "64-partitions": ({}, 64),
    "aqe-on": ({"spark.sql.adaptive.enabled": "true"}, 7),
    "aqe-off": ({"spark.sql.adaptive.enabled": "false"}, 7),
    "codegen-off": ({"spark.sql.codegen.wholeStage": "false",
                     "spark.sql.codegen.factoryMode": "NO_CODEGEN"}, 3),
    "codegen-only": ({"spark.sql.codegen.wholeStage": "true",
                      "spark.sql.codegen.factoryMode": "CODEGEN_ONLY"}, 3),
}


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_digest_is_the_same_under_session_settings(
    spark: Any, spark_conf: Callable[[Mapping[str, str]], ContextManager[None]], setting: str
) -> None:
    conf, partitions = SETTINGS[setting]
    with spark_conf(conf):
        for name in FIXTURES:
            fx = load_fixture(fixtures_dir() / f"{name}.json")
            df = fixture_dataframe(spark, fx, partitions=partitions)
            if partitions is not None:
                assert df.rdd.getNumPartitions() == partitions
            for engine in ("spark-native", "spark-sql"):
                fp = fingerprint_spark(df, engine=engine)
                assert (fp.engine, fp.error, fp.row_count, fp.data_hash) == (
                    engine, None, fx.expect.row_count, fx.expect.data_hash), (name, engine)
