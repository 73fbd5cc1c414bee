package io.ubunye.spark.shims

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry

/** Session internals on Spark 3.5. */
object SessionShim {
  def functionRegistry(spark: SparkSession): FunctionRegistry = spark.sessionState.functionRegistry
}
