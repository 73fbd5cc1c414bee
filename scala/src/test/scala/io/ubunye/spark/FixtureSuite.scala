package io.ubunye.spark

import org.apache.spark.sql.{AnalysisException, DataFrame}
import org.scalatest.funsuite.AnyFunSuite

/** Every shared fixture (tests/fixtures/rows-v1): each row's canonical line, and the
  * row count and data hash through the aggregate, on every execution path (generated
  * code and interpreted, ANSI on and off) and over several partitions. Error fixtures
  * must fail at analysis with a message naming the culprit. The kinds and schema hash,
  * which need no session, are checked by FixtureKindsSuite.
  */
class FixtureSuite extends AnyFunSuite with SparkSessionManager {

  private def frame(f: Fixture, partitions: Int): DataFrame = {
    val df = spark.createDataFrame(spark.sparkContext.parallelize(f.sparkRows, partitions), f.schema)
    df
  }

  private def args(f: Fixture): String = if (f.columns.isEmpty) "" else "*"

  Fixtures.all.foreach { f =>
    f.error match {
      case None =>
        executionModes.foreach { case (mode, conf) =>
          test(s"fixture ${f.name}: lines, rows and data hash ($mode)") {
            withConf(conf) {
              val lines = frame(f, 1).selectExpr(s"ubunye_row_line(${args(f)})").collect().map(_.getString(0)).toSeq
              assert(lines == f.lines)
              val r = frame(f, 3).selectExpr(s"ubunye_rows_v1(${args(f)})", s"ubunye_rows_v1_sums(${args(f)})")
                .collect().head
              assert(r.getString(0) == f.dataHash)
              assert(r.getStruct(1).getLong(0) == f.rowCount)
            }
          }
        }
      case Some(reason) =>
        test(s"fixture ${f.name}: fails at analysis naming the culprit") {
          Seq("ubunye_rows_v1", "ubunye_rows_v1_sums", "ubunye_row_line").foreach { fn =>
            val e = intercept[AnalysisException](frame(f, 1).selectExpr(s"$fn(*)").collect())
            assert(e.getMessage.contains(reason), e.getMessage)
            assert(e.getMessage.contains(s"'${f.columns.last._1}'"), e.getMessage)
          }
        }
    }
  }
}
