package io.ubunye.spark.shims

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry

/** Session internals on Spark 4: they live on the classic session. */
object SessionShim {
  def functionRegistry(spark: SparkSession): FunctionRegistry = spark match {
    case classic: org.apache.spark.sql.classic.SparkSession => classic.sessionState.functionRegistry
    case other => throw new IllegalArgumentException(
      s"ubunye: runtime registration needs a classic SparkSession, got ${other.getClass.getName} " +
        "(for Spark Connect set spark.sql.extensions=io.ubunye.spark.UbunyeSparkExtensions on the server)")
  }
}
