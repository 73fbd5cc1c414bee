"""The digest does not move with the session's settings.

Session time zone (UTC, Africa/Johannesburg, America/Los_Angeles), ANSI on
and off, 1 or 64 partitions (16 for the fallback), adaptive query execution on and off, code
generation off (interpreted) and forced on: both Spark engines give each
fixture's expected digest under each setting. Each value of each setting
occurs in at least one of the combinations below. The tables are built under
the setting, as a job would.
"""
from __future__ import annotations

from typing import Any, Callable, ContextManager, Mapping

import pytest

from ubunye.spark import fingerprint_spark
from ubunye.spark.testing import fixture_dataframe
from ubunye.testing.fixtures import fixtures_dir, load_fixture

# instants, wall-clock values, dates, temporal map keys, floats, strings, nesting
FIXTURES = ("timestamps", "map_temporal_keys", "mixed_random_1000")

_NO_CODEGEN = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"}
_CODEGEN_ONLY = {"spark.sql.codegen.wholeStage": "true", "spark.sql.codegen.factoryMode": "CODEGEN_ONLY"}

# Each value of each setting occurs at least once; combined so that the suite stays short.
# The fallback runs one Python task per partition (about 0.12 s each on this 2-core machine: 8 s
# per table at 64 partitions, 2 s at 16), so it hashes at most FALLBACK_PARTITIONS of them; with
# two rows in map_temporal_keys, 14 of its 16 are still empty.
FALLBACK_PARTITIONS = 16
SETTINGS: dict[str, tuple[Mapping[str, str], int]] = {
    "utc-ansi-on-1-partition-aqe-on": (
        {"spark.sql.session.timeZone": "UTC", "spark.sql.ansi.enabled": "true",
         "spark.sql.adaptive.enabled": "true", **_CODEGEN_ONLY}, 1),
    "johannesburg-ansi-off-64-partitions-aqe-off-no-codegen": (
        {"spark.sql.session.timeZone": "Africa/Johannesburg", "spark.sql.ansi.enabled": "false",
         "spark.sql.adaptive.enabled": "false", **_NO_CODEGEN}, 64),
    "los-angeles-ansi-on-7-partitions-aqe-on-no-codegen": (
        {"spark.sql.session.timeZone": "America/Los_Angeles", "spark.sql.ansi.enabled": "true",
         "spark.sql.adaptive.enabled": "true", **_NO_CODEGEN}, 7),
    "los-angeles-ansi-off-1-partition-aqe-off-codegen-only": (
        {"spark.sql.session.timeZone": "America/Los_Angeles", "spark.sql.ansi.enabled": "false",
         "spark.sql.adaptive.enabled": "false", **_CODEGEN_ONLY}, 1),
}


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_digest_is_the_same_under_session_settings(
    spark: Any, spark_conf: Callable[[Mapping[str, str]], ContextManager[None]], setting: str
) -> None:
    conf, partitions = SETTINGS[setting]
    with spark_conf(conf):
        # 64 mostly empty partitions cost a task each: two tables are enough there
        names = FIXTURES if partitions != 64 else ("map_temporal_keys", "mixed_random_1000")
        for name in names:
            fx = load_fixture(fixtures_dir() / f"{name}.json")
            for engine in ("spark-native", "spark-sql"):
                n = partitions if engine == "spark-native" else min(partitions, FALLBACK_PARTITIONS)
                df = fixture_dataframe(spark, fx, partitions=n).cache()
                try:
                    assert df.rdd.getNumPartitions() == n
                    fp = fingerprint_spark(df, engine=engine)
                    assert (fp.engine, fp.error, fp.row_count, fp.data_hash) == (
                        engine, None, fx.expect.row_count, fx.expect.data_hash), (name, engine, n)
                finally:
                    df.unpersist()
