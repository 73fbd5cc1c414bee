package org.apache.spark.sql.ubunye

import io.ubunye.spark.{JarLine, UbunyeFunctionRegistry, UbunyeSparkExtensions, UbunyeSparkExtensionsProvider}
import io.ubunye.spark.observe.{RowsV1Observed, RowsV1ObservedExec, RowsV1ObservedStrategy, RowsV1SumsAccumulator}

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.scalatest.funsuite.AnyFunSuite

/** The jar registers itself through Spark's service loader: a session started with
  * the jar alone (no `spark.sql.extensions`, no `Ubunye.install`) has the SQL
  * functions and plans observed frames; naming the extension as well does no harm.
  * (In Spark's package to read `SparkSessionExtensions.buildPlannerStrategies`.)
  */
class ExtensionsRegistrationSuite extends AnyFunSuite {

  private def withSession[T](conf: (String, String)*)(body: SparkSession => T): T =
    withBuilder(identity, conf: _*)(body)

  private def withBuilder[T](prepare: SparkSession.Builder => SparkSession.Builder, conf: (String, String)*)(
      body: SparkSession => T): T = {
    SparkSession.getActiveSession.foreach(_.stop())
    SparkSession.getDefaultSession.foreach(_.stop())
    val b = prepare(SparkSession.builder().master("local[1]").appName(getClass.getSimpleName)
      .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1"))
    val spark = conf.foldLeft(b) { case (b, (k, v)) => b.config(k, v) }.getOrCreate()
    try body(spark)
    finally spark.stop()
  }

  /** The functions answer and an observed frame is planned by our node (which no
    * built-in strategy plans): the frame is built here, not through `attach`, which
    * would add the strategy itself.
    */
  private def checkPlugin(spark: SparkSession): Unit = {
    val row = spark.sql("SELECT ubunye_rows_v1(*), ubunye_rows_v1_sums(*) FROM VALUES (1, 'a'), (2, 'b') AS t(i, s)").head()
    assert(row.getString(0).nonEmpty)
    assert(row.getStruct(1).getLong(0) == 2L)
    val df = spark.range(5).toDF("id")
    val observed = PlanFrames.ofRows(spark,
      RowsV1Observed("registration-test", new RowsV1SumsAccumulator, PlanFrames.logicalPlan(df)))
    val plan = observed.queryExecution.executedPlan
    assert(plan.collect { case e: RowsV1ObservedExec => e }.size == 1, plan.toString)
  }

  test("a session started with neither spark.sql.extensions nor install() has the functions and the planner node") {
    withSession() { spark =>
      assert(spark.sparkContext.getConf.getOption("spark.sql.extensions").isEmpty)
      assert(spark.experimental.extraStrategies.isEmpty)
      checkPlugin(spark)
    }
  }

  test("naming the extension in spark.sql.extensions as well is harmless") {
    withSession("spark.sql.extensions" -> classOf[UbunyeSparkExtensions].getName) { spark =>
      checkPlugin(spark)
    }
  }

  test("the provider and the extension applied to one session's extensions inject the strategy once") {
    val extensions = new SparkSessionExtensions
    new UbunyeSparkExtensionsProvider().apply(extensions)
    new UbunyeSparkExtensions().apply(extensions)
    new UbunyeSparkExtensionsProvider().apply(extensions)
    assert(extensions.buildPlannerStrategies(null) == Seq(RowsV1ObservedStrategy))
    val other = new SparkSessionExtensions // another builder's: injected afresh
    new UbunyeSparkExtensions().apply(other)
    assert(other.buildPlannerStrategies(null) == Seq(RowsV1ObservedStrategy))
  }

  test("the service file names the provider") {
    val in = getClass.getResourceAsStream(
      "/META-INF/services/org.apache.spark.sql.SparkSessionExtensionsProvider")
    assert(in != null)
    val text = try scala.io.Source.fromInputStream(in, "UTF-8").mkString finally in.close()
    assert(text.trim == classOf[UbunyeSparkExtensionsProvider].getName)
  }

  test("this jar's line is the running one: the line check finds nothing") {
    assert(JarLine.current.isEmpty, JarLine.current)
    assert(JarLine.problem("0.1.0", "4.1", "2.13", "4.1.3", "2.13.17").isEmpty)
    assert(JarLine.problem("0.1.0", "3.5", "2.12", "3.5.0", "2.12.18").isEmpty)
  }

  test("a jar of another line is named with the running line and the wheel user's command, in one line") {
    val spark = JarLine.problem("0.1.0", "4.3", "2.13", "4.1.3", "2.13.17").get
    assert(spark.contains("ubunye-spark_4.3_2.13-0.1.0.jar is built for Spark 4.3 / Scala 2.13"), spark)
    assert(spark.contains("this session runs Spark 4.1.3 / Scala 2.13.17"), spark)
    assert(spark.contains("`ubunye spark jar --spark 4.1 --scala 2.13` prints its path"), spark)
    assert(!spark.contains("\n") && !spark.contains("build-jar"), spark)
    val scala = JarLine.problem("0.1.0", "3.5", "2.13", "3.5.9", "2.12.18").get  // same Spark, other Scala
    assert(scala.contains("`ubunye spark jar --spark 3.5 --scala 2.12`"), scala)
  }

  test("the names of the failing functions are the registry's") {
    assert(UbunyeFunctionRegistry.names == UbunyeFunctionRegistry.functions.map(_.name))
  }

  test("a wrong-line jar's functions fail with its one line and it plans nothing") {
    val problem = JarLine.problem("0.1.0", "4.3", "2.13", "4.1.3", "2.13.17").get
    val extensions = new SparkSessionExtensions
    UbunyeSparkExtensions.inject(extensions, Some(problem))
    assert(extensions.buildPlannerStrategies(null).isEmpty)
    // The session's builder gets the failing injection first; the service loader's is then a no-op.
    withBuilder(_.withExtensions(e => UbunyeSparkExtensions.inject(e, Some(problem)))) { spark =>
      assert(spark.experimental.extraStrategies.isEmpty)
      UbunyeFunctionRegistry.names.foreach { name =>
        assert(spark.catalog.functionExists(name), name)
        val error = intercept[JarLine.WrongLineError] {
          spark.sql(s"SELECT $name(*) FROM VALUES (1, 'a') AS t(i, s)").collect()
        }
        assert(error.getMessage == problem)
      }
    }
  }
}
