package io.ubunye.spark

import io.ubunye.spark.observe.RowsV1Observations
import io.ubunye.spark.shims.SessionShim

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.ubunye.FunctionIds

/** Entry points for callers that cannot set `spark.sql.extensions` before the session
  * starts (e.g. Python through py4j on a running classic session).
  */
object Ubunye {

  /** Registers the plugin's SQL functions, and the planning of observed frames
    * ([[RowsV1Observations]]), in `spark` (that session only); returns the function
    * names. Idempotent. Throws [[JarLine.WrongLineError]] (one line) when the jar is built
    * for another Spark line or Scala version than the session's.
    */
  def install(spark: SparkSession): Array[String] = {
    // A jar of another line never serves SQL (the same rule as UbunyeSparkExtensions.inject).
    JarLine.current.foreach(problem => throw new JarLine.WrongLineError(problem))
    val registry = SessionShim.functionRegistry(spark)
    // The session registry's own key: Spark 4.2+ takes only qualified names there
    // (`SparkSessionExtensions` qualifies the bare `f.identifier` itself).
    UbunyeFunctionRegistry.functions.foreach(f => registry.registerFunction(FunctionIds.of(f.name), f.info, f.builder))
    RowsV1Observations.install(spark)
    functionNames
  }

  /** The SQL function names of the plugin. */
  def functionNames: Array[String] = UbunyeFunctionRegistry.functions.map(_.name).toArray

  /** The plugin version. */
  def version: String = BuildInfo.version

  /** The Spark line ("4.1") the jar was built for. */
  def sparkVersion: String = BuildInfo.sparkVersion

  /** The Scala binary version ("2.13") the jar was built for. */
  def scalaBinaryVersion: String = BuildInfo.scalaBinaryVersion

  /** The Scala binary version of the running JVM's Scala library ("2.13"). */
  def runtimeScalaBinaryVersion: String =
    scala.util.Properties.versionNumberString.split('.').take(2).mkString(".")

  /** JSON describing the jar, for Python: `{"version":...,"spark":...,"scala":...}`. */
  def buildInfoJson: String =
    s"""{"version":"${BuildInfo.version}","spark":"${BuildInfo.sparkVersion}",""" +
      s""""sparkFull":"${BuildInfo.sparkFullVersion}","scala":"${BuildInfo.scalaBinaryVersion}"}"""
}
