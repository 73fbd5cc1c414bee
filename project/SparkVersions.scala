import sbt._

/** One line of Spark the plugin is built for.
  *
  * @param short         the Spark line as it appears in artifact names ("4.1")
  * @param full          the Spark release compiled against (spark-sql, `provided`)
  * @param scalaVersions Scala releases for this line; the first is the default
  * @param release       the JVM release the classes target (`-release`); at least 11,
  *                      as the float text needs `Math.multiplyHigh` (so no Java 8)
  * @param shimDirs      folders under `scala/src/main/` (and `scala/src/test/`) added
  *                      for this line only: the few objects whose bodies differ
  *                      between Spark lines, under the same name and signature
  */
case class SparkVersionSpec(
    short: String,
    full: String,
    scalaVersions: Seq[String],
    release: String,
    shimDirs: Seq[String]) {

  /** The Scala release for a binary version ("2.12"), or the default one. */
  def scalaFor(binary: Option[String]): String = binary match {
    case None => scalaVersions.head
    case Some(b) =>
      scalaVersions.find(_.startsWith(b + ".")).getOrElse(
        sys.error(s"Spark $short is not built for Scala $b (only ${scalaVersions.mkString(", ")})"))
  }
}

/** The version matrix, written once. Selected with `-DsparkVersion=3.5` and
  * `-DscalaBinary=2.12` (defaults: the first entry and its first Scala release).
  */
object SparkVersions {
  val all: Seq[SparkVersionSpec] = Seq(
    SparkVersionSpec("4.1", "4.1.1", Seq("2.13.17"), "17", Seq("scala-spark-4")),
    SparkVersionSpec("3.5", "3.5.7", Seq("2.12.18", "2.13.8"), "11", Seq("scala-spark-3.5"))
  )

  val default: SparkVersionSpec = all.head

  def selected: SparkVersionSpec = sys.props.get("sparkVersion") match {
    case None => default
    case Some(v) =>
      all.find(s => s.short == v || s.full == v).getOrElse(
        sys.error(s"unknown -DsparkVersion=$v (known: ${all.map(_.short).mkString(", ")})"))
  }

  def selectedScalaBinary: Option[String] = sys.props.get("scalaBinary")

  /** The matrix as JSON, for CI and scripts (`scripts/sbt sparkVersionsJson`). */
  def json: String = all.map { s =>
    val scalas = s.scalaVersions.map(v => "\"" + v + "\"").mkString("[", ",", "]")
    s"""{"spark":"${s.short}","sparkFull":"${s.full}","scala":$scalas,"release":"${s.release}"}"""
  }.mkString("[", ",", "]")
}
