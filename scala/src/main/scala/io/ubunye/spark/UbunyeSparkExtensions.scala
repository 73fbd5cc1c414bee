package io.ubunye.spark

import org.apache.spark.sql.SparkSessionExtensions

/** `spark.sql.extensions=io.ubunye.spark.UbunyeSparkExtensions`: the plugin's SQL
  * functions exist in every session the application (or Spark Connect server)
  * creates. Must be set before the first session starts.
  */
class UbunyeSparkExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit =
    // One injection per SQL function of the registry (ubunye_rows_v1, ...).
    UbunyeFunctionRegistry.functions.foreach { f =>
      extensions.injectFunction((f.identifier, f.info, f.builder))
    }
}
