package io.ubunye.spark

import org.apache.spark.sql.SparkSession
import org.scalatest.{BeforeAndAfterAll, Suite}

/** One local Spark (local[2]) per suite, with the plugin's extension installed and a
  * session time zone far from UTC (the rows-v1 text must not depend on it).
  */
trait SparkSessionManager extends BeforeAndAfterAll { self: Suite =>

  @transient protected var spark: SparkSession = _

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    spark = SparkSession.builder()
      .master("local[2]")
      .appName(getClass.getSimpleName)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "3")
      .config("spark.sql.extensions", classOf[UbunyeSparkExtensions].getName)
      .config("spark.sql.session.timeZone", "Pacific/Kiritimati")
      .config("spark.sql.datetime.java8API.enabled", "true")
      .getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
  }

  override protected def afterAll(): Unit = {
    try if (spark != null) spark.stop()
    finally super.afterAll()
  }

  /** The execution paths every result must agree across: generated code and the
    * interpreted path, each with ANSI mode on and off.
    */
  protected val executionModes: Seq[(String, Map[String, String])] = for {
    codegen <- Seq("CODEGEN_ONLY", "NO_CODEGEN")
    ansi <- Seq("true", "false")
  } yield s"$codegen, ansi=$ansi" -> Map(
    "spark.sql.codegen.factoryMode" -> codegen,
    "spark.sql.codegen.wholeStage" -> (codegen == "CODEGEN_ONLY").toString,
    "spark.sql.ansi.enabled" -> ansi)

  /** Runs `body` with the given SQL settings, restoring the previous ones after. */
  protected def withConf[T](conf: Map[String, String])(body: => T): T = {
    val before = conf.keys.map(k => k -> spark.conf.getOption(k)).toMap
    conf.foreach { case (k, v) => spark.conf.set(k, v) }
    try body
    finally before.foreach {
      case (k, Some(v)) => spark.conf.set(k, v)
      case (k, None) => spark.conf.unset(k)
    }
  }
}
