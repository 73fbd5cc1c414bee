package io.ubunye.spark

import io.ubunye.spark.aggregate.{RowsV1ObservedSums, RowsV1Sums}

import org.apache.spark.sql.{DataFrame, Observation, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.CollectMetrics
import org.apache.spark.sql.functions.expr
import org.scalatest.funsuite.AnyFunSuite

/** Observed sums (`DataFrame.observe`, what the Python engine attaches to a write)
  * take the imperative form inside `CollectMetrics` and agree with the aggregate.
  */
class ObservedSumsSuite extends AnyFunSuite with SparkSessionManager {

  /** Strings with escapes, doubles, dates, arrays of strings, structs, maps and nulls,
    * over several partitions.
    */
  private def table(s: SparkSession): DataFrame = s.range(0, 3000, 1, 4).selectExpr(
    "id",
    "IF(id % 11 = 0, NULL, concat('n\"', cast(id % 97 AS string), '\\n'))  AS name",
    "id * 1.37e-3 AS score",
    "date_add(DATE'2024-01-01', cast(id % 365 AS int)) AS day",
    "array('a', IF(id % 5 = 0, NULL, cast(id % 10 AS string))) AS tags",
    "named_struct('x', id % 3, 'y', cast(id AS float) / 7) AS point",
    "map(cast(id % 4 AS string), id) AS m")

  /** The observed sums of `df`, after a write to nowhere runs it once. */
  private def observed(df: DataFrame): (Row, DataFrame) = {
    val observation = Observation("rows_v1")
    val withMetrics = df.observe(observation, expr("ubunye_rows_v1_sums(*)").as("s"))
    withMetrics.write.format("noop").mode("overwrite").save()
    (observation.get("s").asInstanceOf[Row], withMetrics)
  }

  private def observedFunctions(df: DataFrame): Seq[String] =
    df.queryExecution.optimizedPlan.collect { case c: CollectMetrics => c.metrics }.flatten.flatMap { m =>
      m.collect { case a: AggregateExpression => a.aggregateFunction.getClass.getSimpleName }
    }

  test("observed sums are computed imperatively and equal the aggregate in every execution path") {
    executionModes.foreach { case (label, conf) =>
      withConf(conf) {
        val df = table(spark)
        val (sums, withMetrics) = observed(df)
        assert(observedFunctions(withMetrics) == Seq(classOf[RowsV1ObservedSums].getSimpleName), label)
        assert(sums == df.selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0), label)
        assert(sums.getLong(0) == 3000L, label)
      }
    }
  }

  test("an aggregation keeps the declarative function; an empty observed frame gives zeros") {
    val agg = table(spark).selectExpr("ubunye_rows_v1_sums(*)")
    val functions = agg.queryExecution.optimizedPlan.expressions.flatMap(_.collect { case a: AggregateExpression => a })
    assert(functions.map(_.aggregateFunction.getClass) == Seq(classOf[RowsV1Sums]))
    val (sums, _) = observed(table(spark).where("id < 0"))
    assert(sums == Row(0L, java.math.BigDecimal.ZERO, java.math.BigDecimal.ZERO))
  }

  test("Ubunye.install adds the rule to a session without the extension, once") {
    val other = spark.newSession()
    other.experimental.extraOptimizations = Nil
    Ubunye.install(other)
    Ubunye.install(other)
    assert(other.experimental.extraOptimizations.count(_ eq aggregate.ObservedRowsV1Sums) == 1)
    val (sums, withMetrics) = observed(table(other))
    assert(observedFunctions(withMetrics).contains(classOf[RowsV1ObservedSums].getSimpleName))
    assert(sums == table(other).selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0))
  }
}
