import sbt._

import sjsonnew.shaded.scalajson.ast.unsafe._
import sjsonnew.support.scalajson.unsafe.{CompactPrinter, Parser}

/** One line of Spark the plugin is built for (one entry of project/spark-lines.json).
  *
  * @param short         the Spark line as it appears in artifact names ("4.1")
  * @param full          the Spark release compiled against (spark-sql, `provided`)
  * @param scalaVersions Scala releases for this line; the first is the default
  * @param release       the Java release of the class files (`-release`): 8 for 3.5
  *                      (Databricks 14.3/15.4 run it on JDK 8), 17 for 4.x
  * @param shimDirs      folders under `scala/src/main/` (and `scala/src/test/`, where
  *                      they exist) added for this line only: the few objects whose
  *                      bodies differ between Spark lines, under the same name and
  *                      signature. A folder may serve a range of lines
  *                      (`scala-spark-4.1-4.3`), so an identical shim is written once.
  * @param jars          where Spark's jars come from: "maven" (spark-sql resolved as
  *                      `provided`) or "pyspark" (the jars inside the pyspark archive,
  *                      extracted by scripts/pyspark-jars into .tools/pyspark-jars/)
  * @param oldest        the oldest patch of the line a major platform ships, on which
  *                      the fixture suite also runs (`-DsparkRuntime=`)
  * @param fullTests     the Scala binary versions on which every suite runs
  */
case class SparkVersionSpec(
    short: String,
    full: String,
    scalaVersions: Seq[String],
    release: String,
    shimDirs: Seq[String],
    jars: String,
    oldest: Option[String],
    fullTests: Seq[String]) {

  /** The Scala release for a binary version ("2.12"), or the default one. */
  def scalaFor(binary: Option[String]): String = binary match {
    case None => scalaVersions.head
    case Some(b) =>
      scalaVersions.find(_.startsWith(b + ".")).getOrElse(
        sys.error(s"Spark $short is not built for Scala $b (only ${scalaVersions.mkString(", ")})"))
  }

  /** The class file major version of `release` (8 -> 52, 17 -> 61). */
  def classFileMajor: Int = release.toInt + 44
}

/** The version matrix, read from project/spark-lines.json (which the scripts read
  * too, so no list of versions is written twice). Selected with `-DsparkVersion=3.5`
  * and `-DscalaBinary=2.12` (defaults: the file's "default" line, its first Scala).
  */
object SparkVersions {
  val file: File = new File("project/spark-lines.json").getAbsoluteFile

  private lazy val root: Map[String, JValue] = Parser.parseFromFile(file).get match {
    case o: JObject => fields(o)
    case _ => sys.error(s"$file: expected a JSON object")
  }

  private def fields(o: JObject): Map[String, JValue] = o.value.map(f => f.field -> f.value).toMap

  private def str(v: JValue, what: String): String = v match {
    case JString(s) => s
    case _ => sys.error(s"$file: $what must be a string")
  }

  private def strs(v: JValue, what: String): Seq[String] = v match {
    case JArray(a) => a.toSeq.map(str(_, what))
    case _ => sys.error(s"$file: $what must be a list of strings")
  }

  val all: Seq[SparkVersionSpec] = root("lines") match {
    case JArray(lines) => lines.toSeq.map {
      case o: JObject =>
        val f = fields(o)
        def get(k: String) = f.getOrElse(k, sys.error(s"$file: a line has no '$k'"))
        val short = str(get("spark"), "spark")
        SparkVersionSpec(short, str(get("full"), s"$short full"), strs(get("scala"), s"$short scala"),
          str(get("release"), s"$short release"), strs(get("shims"), s"$short shims"),
          str(get("jars"), s"$short jars"),
          get("oldest") match { case JNull => None; case v => Some(str(v, s"$short oldest")) },
          strs(get("fullTests"), s"$short fullTests"))
      case _ => sys.error(s"$file: each line must be an object")
    }
    case _ => sys.error(s"$file: 'lines' must be a list")
  }

  val default: SparkVersionSpec = {
    val d = str(root("default"), "default")
    all.find(_.short == d).getOrElse(sys.error(s"$file: default line $d is not in 'lines'"))
  }

  def selected: SparkVersionSpec = sys.props.get("sparkVersion") match {
    case None => default
    case Some(v) =>
      all.find(s => s.short == v || s.full == v).getOrElse(
        sys.error(s"unknown -DsparkVersion=$v (known: ${all.map(_.short).mkString(", ")})"))
  }

  def selectedScalaBinary: Option[String] = sys.props.get("scalaBinary")

  /** `-DsparkRuntime=3.5.0`: run the tests on this Spark release (same line) instead
    * of the one compiled against.
    */
  def selectedRuntime(spec: SparkVersionSpec): Option[String] = sys.props.get("sparkRuntime").map { v =>
    if (!v.startsWith(spec.short + ".")) sys.error(s"-DsparkRuntime=$v is not a release of Spark ${spec.short}")
    v
  }

  /** The matrix as JSON, for CI and scripts (`scripts/sbt sparkVersionsJson`). */
  def json: String = CompactPrinter(root("lines"))
}
