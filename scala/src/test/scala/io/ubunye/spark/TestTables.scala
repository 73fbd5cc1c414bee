package io.ubunye.spark

import org.apache.spark.sql.{DataFrame, SparkSession}

/** Frames shared by the suites. */
object TestTables {

  /** 3000 rows over 4 partitions: strings with escapes, doubles, dates, arrays of
    * strings, structs, maps and nulls.
    */
  def mixed(spark: SparkSession): DataFrame = spark.range(0, 3000, 1, 4).selectExpr(
    "id",
    "IF(id % 11 = 0, NULL, concat('n\"', cast(id % 97 AS string), '\\n'))  AS name",
    "id * 1.37e-3 AS score",
    "date_add(DATE'2024-01-01', cast(id % 365 AS int)) AS day",
    "array('a', IF(id % 5 = 0, NULL, cast(id % 10 AS string))) AS tags",
    "named_struct('x', id % 3, 'y', cast(id AS float) / 7) AS point",
    "map(cast(id % 4 AS string), id) AS m")
}
