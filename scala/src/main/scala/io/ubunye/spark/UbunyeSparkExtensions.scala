package io.ubunye.spark

import io.ubunye.spark.observe.RowsV1ObservedStrategy

import org.apache.spark.sql.SparkSessionExtensions

/** `spark.sql.extensions=io.ubunye.spark.UbunyeSparkExtensions`: the plugin's SQL
  * functions, and the planning of observed frames, exist in every session the
  * application (or Spark Connect server) creates. Must be set before the first session starts.
  */
class UbunyeSparkExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    // One injection per SQL function of the registry (ubunye_rows_v1, ...).
    UbunyeFunctionRegistry.functions.foreach { f =>
      extensions.injectFunction((f.identifier, f.info, f.builder))
    }
    extensions.injectPlannerStrategy(_ => RowsV1ObservedStrategy)
  }
}
