package io.ubunye.spark

import org.apache.spark.sql.{DataFrame, Observation, Row}
import org.apache.spark.sql.functions.expr
import org.scalatest.funsuite.AnyFunSuite

/** Observed sums (`DataFrame.observe`, what the Python engine attaches to a write to
  * hash it in the same pass) agree with the aggregate.
  */
class ObservedSumsSuite extends AnyFunSuite with SparkSessionManager {

  private def table: DataFrame = TestTables.mixed(spark)

  /** The observed sums of `df`, after a write to nowhere runs it once. */
  private def observed(df: DataFrame): Row = {
    val observation = Observation("rows_v1")
    // the columns by name: Spark 3.5 refuses `*` inside observed metrics
    val columns = df.columns.map(c => s"`$c`").mkString(", ")
    df.observe(observation, expr(s"ubunye_rows_v1_sums($columns)").as("s")).write.format("noop").mode("overwrite").save()
    observation.get("s").asInstanceOf[Row]
  }

  test("observed sums equal the aggregate in every execution path") {
    executionModes.foreach { case (label, conf) =>
      withConf(conf) {
        val sums = observed(table)
        assert(sums == table.selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0), label)
        assert(sums.getLong(0) == 3000L, label)
      }
    }
  }

  test("an empty observed frame gives zeros") {
    assert(observed(table.where("id < 0")) == Row(0L, java.math.BigDecimal.ZERO, java.math.BigDecimal.ZERO))
  }
}
