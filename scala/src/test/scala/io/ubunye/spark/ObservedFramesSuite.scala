package io.ubunye.spark

import java.util.UUID

import io.ubunye.spark.observe.{RowsV1Observations, RowsV1ObservedExec}
import io.ubunye.spark.rowsv1.{Digests, Kinds, RowsV1Error}

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.WholeStageCodegenExec
import org.scalatest.funsuite.AnyFunSuite

/** Frames observed by [[RowsV1Observations]] (what the Python engine attaches to a
  * write to hash it in the same pass) give the aggregate's sums, on every execution
  * path, for every shared fixture, and count a partition once however often it runs.
  */
class ObservedFramesSuite extends AnyFunSuite with SparkSessionManager {

  private def table: DataFrame = TestTables.mixed(spark)

  /** `Row(rows, sum_a, sum_b)` as the aggregate gives it (sums unsigned). */
  private def aggregate(df: DataFrame): Row = df.selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0)

  private def unsigned(v: Long): java.math.BigDecimal =
    new java.math.BigDecimal(new java.math.BigInteger(java.lang.Long.toUnsignedString(v)))

  /** Attaches an observation, runs `writes` writes to nowhere, returns the observed
    * `Row(rows, sum_a, sum_b)` and the observed frame.
    */
  private def observed(df: DataFrame, writes: Int = 1): (Row, DataFrame) = {
    val id = UUID.randomUUID().toString
    val o = RowsV1Observations.attach(df, id)
    (1 to writes).foreach(_ => o.write.format("noop").mode("overwrite").save())
    val s = RowsV1Observations.sums(id)
    val parts = RowsV1Observations.partitions(id)
    assert(RowsV1Observations.result(id, forget = true) == s"${s(0)} ${s(1)} ${s(2)} $parts")
    assert(intercept[NoSuchElementException](RowsV1Observations.sums(id)).getMessage.contains(id)) // forgotten
    (Row(s(0), unsigned(s(1)), unsigned(s(2))), o)
  }

  test("observed sums equal the aggregate in every execution path, fused into the stage's code when generated") {
    executionModes.foreach { case (label, conf) =>
      withConf(conf) {
        val (sums, o) = observed(table.where("id % 7 <> 3"))
        assert(sums == aggregate(table.where("id % 7 <> 3")), label)
        val fused = o.queryExecution.executedPlan.collect {
          case w: WholeStageCodegenExec => w.collect { case e: RowsV1ObservedExec => e }
        }.flatten
        assert(fused.nonEmpty == label.startsWith("CODEGEN_ONLY"), s"$label: ${o.queryExecution.executedPlan}")
      }
    }
  }

  test("every fixture: the observed data hash is the fixture's") {
    Fixtures.all.filter(f => f.error.isEmpty && f.columns.nonEmpty).foreach { f =>
      executionModes.foreach { case (label, conf) =>
        withConf(conf) {
          val df = spark.createDataFrame(spark.sparkContext.parallelize(f.sparkRows, 3), f.schema)
          val (sums, _) = observed(df)
          val kinds = Kinds.canonicalSchema(f.schema).fold(e => fail(e), identity)
          val hash = Digests.dataHash(Digests.schemaJson(kinds), sums.getLong(0),
            sums.getDecimal(1).longValue, sums.getDecimal(2).longValue)
          assert(hash == f.dataHash && sums.getLong(0) == f.rowCount, s"${f.name} ($label)")
        }
      }
    }
  }

  test("a query that reads some columns of an observed frame: the sums are still of every column") {
    // the optimizer must not prune the unread columns below the node (they would be hashed
    // no more, with the row count still right)
    val pq = java.nio.file.Files.createTempDirectory("ubunye-prune").resolve("t").toString
    table.write.parquet(pq)
    Seq(table, spark.read.parquet(pq)).foreach { df =>
      executionModes.foreach { case (label, conf) =>
        withConf(conf) {
          val id = UUID.randomUUID().toString
          RowsV1Observations.attach(df, id).select("id").where("id % 2 = 0").write.format("noop").mode("overwrite").save()
          val s = RowsV1Observations.sums(id)
          RowsV1Observations.forget(id)
          assert(Row(s(0), unsigned(s(1)), unsigned(s(2))) == aggregate(df), label)
        }
      }
    }
  }

  test("a partition computed again counts once: the frame written twice, and after a shuffle") {
    val (twice, _) = observed(table, writes = 2)
    assert(twice == aggregate(table) && twice.getLong(0) == 3000L)
    val t = table
    val shuffled = t.repartition(5, t("day"))
    val (afterShuffle, _) = observed(shuffled)
    assert(afterShuffle == aggregate(table))
  }

  test("a wide frame (its line in several generated functions) and a frame with no columns") {
    // 150 columns of 3 argument slots each (null flag, long value) and some of other
    // types: more than one member function per line
    val wide = spark.range(0, 500, 1, 3).selectExpr(
      (0 until 150).map(i => s"IF(id % ${i % 7 + 2} = 0, NULL, id * $i) AS c$i") ++
        Seq("cast(id AS string) AS s", "id / 3.0D AS d", "array(cast(id AS string)) AS a"): _*)
    executionModes.foreach { case (label, conf) =>
      withConf(conf)(assert(observed(wide)._1 == aggregate(wide), label))
    }
    val none = spark.range(0, 5, 1, 2).select()
    assert(observed(none)._1 == none.selectExpr("ubunye_rows_v1_sums()").head().getStruct(0))
    assert(observed(none)._1.getLong(0) == 5L)
  }

  test("lines that outgrow the line buffer, long names, escapes and edge values: the aggregate's sums") {
    // rows of 0 to 40,000 bytes (the buffer starts at 512 and grows mid-line), a name too
    // long for two prefix words, strings needing escapes after a plain start, and the
    // integer, float and time values and the string arrays written at a position of the line
    val edgy = spark.range(0, 60, 1, 3).selectExpr(
      "repeat('x', CAST(id * id * 11 AS INT)) AS long_text",
      "IF(id % 4 = 0, NULL, concat(repeat('plain', CAST(id AS INT)), '\"q\\\t', CAST(id AS STRING))) AS a_column_name_longer_than_sixteen_bytes",
      "IF(id % 3 = 0, -9223372036854775808L, id - 30) AS n",
      "CAST(id AS INT) - 30 AS i", "CAST(id % 2 AS BOOLEAN) AS flag",
      "IF(id % 5 = 0, CAST('NaN' AS DOUBLE), id / 7.0D) AS d", "CAST(id / 3.0 AS FLOAT) AS f",
      "timestamp_micros(id * 86400123456789L - 2000000000000000L) AS ts",
      "CAST(timestamp_micros(id * 1000001L) AS TIMESTAMP_NTZ) AS ntz",
      "date_add(DATE'1969-12-25', CAST(id * 1000 AS INT)) AS day",
      "IF(id % 6 = 0, NULL, IF(id % 6 = 1, array(), array(IF(id % 4 = 0, NULL, 'a'), NULL, " +
        "repeat('y', CAST(id * 60 AS INT)), concat('e\\\"', CAST(id AS STRING))))) AS tags")
    executionModes.foreach { case (label, conf) =>
      withConf(conf)(assert(observed(edgy)._1 == aggregate(edgy), label))
    }
  }

  test("an empty frame gives zeros; a column with no text, an unknown name and a name in use are refused clearly") {
    assert(observed(table.where("id < 0"))._1 == Row(0L, unsigned(0L), unsigned(0L)))
    val bad = spark.sql("SELECT 1 AS a, 2 AS a")
    val e = intercept[RowsV1Error](RowsV1Observations.attach(bad, UUID.randomUUID().toString))
    assert(e.getMessage.contains("'a'"), e.getMessage)
    val unknown = intercept[NoSuchElementException](RowsV1Observations.sums("no-such-observation"))
    assert(unknown.getMessage.contains("no-such-observation"))
    val id = UUID.randomUUID().toString
    RowsV1Observations.attach(table, id)
    val twice = intercept[IllegalArgumentException](RowsV1Observations.attach(table, id))
    assert(twice.getMessage.contains(id))
    RowsV1Observations.forget(id)
  }
}
