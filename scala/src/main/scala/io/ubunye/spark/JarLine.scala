package io.ubunye.spark

/** Whether this jar may serve the running Spark: its `BuildInfo` line (Spark "major.minor",
  * Scala binary) against the running `SPARK_VERSION` and Scala library. A jar of another line
  * put on `spark.jars` by hand is still found by Spark's service loader; it must not hash
  * with another line's internals, so [[UbunyeSparkExtensions.inject]] registers in place of
  * its functions ones that fail with [[problem]]'s line.
  *
  * Only `java.lang`/`scala` library calls and `org.apache.spark.SPARK_VERSION` here: this code
  * runs on a Spark it was not compiled against.
  */
object JarLine {

  /** "4.1" of "4.1.3" (the Spark line or Scala binary version of a release). */
  def lineOf(version: String): String = version.split('.').take(2).mkString(".")

  /** One line when a jar built for `builtSpark` / `builtScala` cannot serve Spark
    * `runningSpark` on Scala `runningScala`, naming both and the wheel user's command that
    * prints the jar to use; None when the lines match.
    */
  def problem(jarVersion: String, builtSpark: String, builtScala: String,
              runningSpark: String, runningScala: String): Option[String] = {
    val (spark, scala) = (lineOf(runningSpark), lineOf(runningScala))
    if (lineOf(builtSpark) == spark && lineOf(builtScala) == scala) None
    else Some(
      s"the ubunye-spark jar ubunye-spark_${builtSpark}_$builtScala-$jarVersion.jar is built for " +
        s"Spark $builtSpark / Scala $builtScala, but this session runs Spark $runningSpark / Scala " +
        s"$runningScala, so its SQL functions do not run here; put the jar of this line on " +
        s"spark.jars instead (`ubunye spark jar --spark $spark --scala $scala` prints its path)")
  }

  /** [[problem]] for this jar in this JVM. */
  def current: Option[String] =
    problem(BuildInfo.version, BuildInfo.sparkVersion, BuildInfo.scalaBinaryVersion,
      org.apache.spark.SPARK_VERSION, scala.util.Properties.versionNumberString)

  /** The error a function of a wrong-line jar fails with when called. */
  final class WrongLineError(message: String) extends UnsupportedOperationException(message)
}
