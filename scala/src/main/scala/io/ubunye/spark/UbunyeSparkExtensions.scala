package io.ubunye.spark

import io.ubunye.spark.observe.RowsV1ObservedStrategy

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}

/** `spark.sql.extensions=io.ubunye.spark.UbunyeSparkExtensions`: the plugin's SQL
  * functions, and the planning of observed frames, exist in every session the
  * application (or Spark Connect server) creates. Must be set before the first session starts.
  * The jar also registers itself through Spark's service loader
  * ([[UbunyeSparkExtensionsProvider]]), so setting both does the work once.
  */
class UbunyeSparkExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = UbunyeSparkExtensions.inject(extensions)
}

object UbunyeSparkExtensions {
  /** The extension objects already given our injections (weakly held: one per session builder). */
  private val injected = java.util.Collections.synchronizedMap(
    new java.util.WeakHashMap[SparkSessionExtensions, java.lang.Boolean]())

  /** Injects the functions and the planner strategy into `extensions`, once: Spark
    * applies the service-loaded provider and then `spark.sql.extensions` to the same
    * object, and a second injection would add the strategy twice.
    */
  def inject(extensions: SparkSessionExtensions): Unit = inject(extensions, JarLine.current)

  /** [[inject]] for a jar whose line check gave `wrongLine`: None injects the functions
    * and the strategy; a problem injects, under the same names, functions that fail with
    * it when called (a jar of another line never serves SQL), and no strategy.
    */
  def inject(extensions: SparkSessionExtensions, wrongLine: Option[String]): Unit = {
    if (injected.put(extensions, java.lang.Boolean.TRUE) == null) wrongLine match {
      case None =>
        // One injection per SQL function of the registry (ubunye_rows_v1, ...).
        UbunyeFunctionRegistry.functions.foreach { f =>
          extensions.injectFunction((f.identifier, f.info, f.builder))
        }
        extensions.injectPlannerStrategy(_ => RowsV1ObservedStrategy)
      case Some(problem) =>
        UbunyeFunctionRegistry.names.foreach { name =>
          val info = new ExpressionInfo(classOf[JarLine.WrongLineError].getName, name)
          extensions.injectFunction((FunctionIdentifier(name), info,
            (_: Seq[Expression]) => throw new JarLine.WrongLineError(problem)))
        }
    }
  }
}

/** Found by Spark (3.2+) through
  * `META-INF/services/org.apache.spark.sql.SparkSessionExtensionsProvider`: with the jar
  * on the classpath (`spark.jars`, `--jars`, a cluster library) every new session gets
  * the plugin, without `spark.sql.extensions`.
  */
class UbunyeSparkExtensionsProvider extends SparkSessionExtensionsProvider {
  override def apply(extensions: SparkSessionExtensions): Unit = UbunyeSparkExtensions.inject(extensions)
}
