package io.ubunye.spark

import io.ubunye.spark.rowsv1.{Digests, Kinds, RowsV1Error, RowsV1Plan}

import org.apache.spark.sql.{AnalysisException, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData
import org.apache.spark.sql.functions.{col, expr}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** The plugin's surfaces besides the fixtures: the DataFrame API, runtime
  * registration, build information, grouping, wide rows, honest failures, and
  * agreement of the execution paths on a random table.
  */
class FunctionsSuite extends AnyFunSuite with SparkSessionManager {
  private lazy val session = spark
  import session.implicits._

  private lazy val people = Seq((1, "Anna", 1.5), (2, null, 2.0), (3, "Sipho", Double.NaN))
    .toDF("id", "name", "score")

  test("DataFrame functions equal the SQL functions") {
    people.createOrReplaceTempView("people")
    val sql = spark.sql("SELECT ubunye_rows_v1(*), ubunye_rows_v1_sums(*) FROM people").head()
    val api = people.select(functions.ubunye_rows_v1(col("id"), col("name"), col("score")),
      functions.ubunye_rows_v1_sums("id", "name", "score")).head()
    assert(api == sql)
    val lines = people.select(functions.ubunye_row_line(people.columns.toSeq.map(col): _*)).as[String].collect()
    assert(lines.toSeq == Seq("""{"id":1,"name":"Anna","score":1.5}""", """{"id":2,"score":2.0}""",
      """{"id":3,"name":"Sipho","score":"NaN"}"""))
  }

  test("the hash is the rows-v1 formula over the lines and the argument schema") {
    val lines = people.selectExpr("ubunye_row_line(*)").as[String].collect()
    val (a, b) = lines.foldLeft[(Long, Long)]((0L, 0L)) { case ((x, y), l) =>
      val d = java.security.MessageDigest.getInstance("SHA-256").digest(l.getBytes("UTF-8"))
      (x + java.nio.ByteBuffer.wrap(d, 0, 8).getLong, y + java.nio.ByteBuffer.wrap(d, 8, 8).getLong)
    }
    val kinds = Kinds.canonicalSchema(people.schema).toOption.get
    assert(kinds == Seq("id" -> "int32", "name" -> "string", "score" -> "float64"))
    val want = Digests.dataHash(Digests.schemaJson(kinds), 3, a, b)
    assert(people.selectExpr("ubunye_rows_v1(*)").as[String].head() == want)
    val sums = people.selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0)
    assert(sums.getDecimal(1).toBigInteger == new java.math.BigInteger(java.lang.Long.toUnsignedString(a)))
    assert(sums.getDecimal(2).toBigInteger == new java.math.BigInteger(java.lang.Long.toUnsignedString(b)))
  }

  test("GROUP BY gives the hash of each group's rows; row order and partitioning do not matter") {
    val t = spark.range(0, 2000).selectExpr("id % 7 AS k", "id", "cast(id AS string) AS s")
    val grouped = t.groupBy("k").agg(expr("ubunye_rows_v1(id, s)").as("h")).as[(Long, String)].collect().toMap
    (0L until 7L).foreach { k =>
      val one = t.where(col("k") === k).orderBy(col("id").desc).coalesce(1)
      assert(one.selectExpr("ubunye_rows_v1(id, s)").as[String].head() == grouped(k))
      assert(t.where(col("k") === k).repartition(5).selectExpr("ubunye_rows_v1(id, s)").as[String].head() == grouped(k))
    }
  }

  test("aliases and projections below the aggregate do not change the column names") {
    val base = spark.range(10).selectExpr("id AS x")
    val direct = base.selectExpr("ubunye_rows_v1(x)").as[String].head()
    val renamed = spark.range(10).select(col("id").as("y")).select(col("y").as("x"))
      .selectExpr("ubunye_rows_v1(x)").as[String].head()
    assert(direct == renamed)
    assert(spark.range(10).selectExpr("ubunye_rows_v1(id)").as[String].head() != direct)
  }

  test("a 1000-column row (SPARK-18207 shape): generated code and interpreted agree") {
    val cols = (0 until 1000).map(i => expr(s"id + $i").as(s"c$i"))
    val wide = spark.range(3).select(cols: _*)
    val results = executionModes.map { case (_, conf) =>
      withConf(conf)(wide.selectExpr("ubunye_rows_v1(*)").as[String].head())
    }
    assert(results.distinct.size == 1)
    val line = wide.selectExpr("ubunye_row_line(*)").as[String].head()
    assert(line.startsWith("""{"c0":0,"c1":1,"c10":10,"c100":100,"c101":101,"""))
  }

  test("execution paths agree on a random mixed table with nested types") {
    val t = spark.range(0, 3000).selectExpr(
      "id", "CASE WHEN id % 5 = 0 THEN NULL ELSE id * 0.1 END AS d", "cast(id AS float) / 3 AS f",
      "array(id, NULL, id * 2) AS arr", "named_struct('z', id, 'a', CASE WHEN id % 2 = 0 THEN 'e' END) AS st",
      "map(cast(id % 3 AS string), id, 'k', NULL) AS m", "cast(id AS decimal(20, 3)) / 7 AS dec",
      "timestamp_micros(id * 123456789) AS ts", "unhex(hex(id)) AS bin")
    val results = executionModes.map { case (mode, conf) =>
      mode -> withConf(conf)(t.repartition(4).selectExpr("ubunye_rows_v1(*)", "ubunye_rows_v1_sums(*)").head())
    }
    assert(results.map(_._2).distinct.size == 1, results)
  }

  test("generated code hashes each row once, member by member, without a struct row") {
    withConf(Map("spark.sql.adaptive.enabled" -> "false", "spark.sql.codegen.wholeStage" -> "true",
        "spark.sql.codegen.factoryMode" -> "CODEGEN_ONLY")) {
      val df = spark.range(10).selectExpr("id", "cast(id AS string) AS s").selectExpr("ubunye_rows_v1(*)")
      val code = org.apache.spark.sql.execution.debug.codegenString(df.queryExecution.executedPlan)
      assert("""\.begin\(\);""".r.findAllIn(code).size == 1, code)
      assert("""\.end\(\);""".r.findAllIn(code).size == 1, code)
      assert(!code.contains("hashRow("), code)
      assert(!code.contains("GenericInternalRow"), code)
      val interpreted = withConf(Map("spark.sql.codegen.wholeStage" -> "false",
        "spark.sql.codegen.factoryMode" -> "NO_CODEGEN"))(df.head().getString(0))
      assert(df.head().getString(0) == interpreted)
    }
  }

  test("lane sums wrap modulo 2^64 with ANSI mode on") {
    withConf(Map("spark.sql.ansi.enabled" -> "true")) {
      val s = spark.range(0, 5000).selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0)
      assert(s.getLong(0) == 5000L)
      // 5000 random 64-bit lanes: the plain sum exceeds 2^64, the result stays below it
      assert(s.getDecimal(1).toBigInteger.bitLength <= 64 && s.getDecimal(2).toBigInteger.bitLength <= 64)
    }
  }

  test("types without canonical text fail at analysis naming the column and type") {
    val bad = Seq(
      "INTERVAL '1' DAY AS iv" -> "'iv'",
      "map(array(1), 'x') AS m" -> "map key of kind list<int32>",
      "map(named_struct('a', 1), 'x') AS ms" -> "map key of kind struct<a:int32>")
    bad.foreach { case (column, culprit) =>
      Seq("ubunye_rows_v1", "ubunye_rows_v1_sums", "ubunye_rows_v1_sketch", "ubunye_row_line").foreach { fn =>
        val e = intercept[AnalysisException](spark.range(1).selectExpr(column).selectExpr(s"$fn(*)").collect())
        assert(e.getMessage.contains(culprit), e.getMessage)
        assert(e.getMessage.contains(fn), e.getMessage)
      }
    }
    val dup = intercept[AnalysisException](spark.range(1).selectExpr("id AS a", "id + 1 AS a")
      .selectExpr("ubunye_rows_v1(*)").collect())
    assert(dup.getMessage.contains("duplicate top-level column names: 'a'"), dup.getMessage)
  }

  test("a map holding one key twice has no canonical line: the error names the column") {
    // Spark refuses to build such maps itself (mapKeyDedupPolicy), but files written
    // elsewhere can hold them, so the kernel checks every map.
    val schema = StructType(Seq(StructField("m", MapType(StringType, IntegerType))))
    val kernel = RowsV1Plan(schema).newKernel()
    val keys = Array[Any](UTF8String.fromString("b"), UTF8String.fromString("a"), UTF8String.fromString("b"))
    val m = ArrayBasedMapData(keys, Array[Any](1, 2, 3))
    val e = intercept[RowsV1Error](kernel.hashRow(InternalRow(m)))
    assert(e.getMessage.contains("column 'm'") && e.getMessage.contains("\"b\" twice"), e.getMessage)
  }

  test("user-defined types are hashed as their SQL type") {
    val schema = StructType(Seq(StructField("p", new PointUDT), StructField("id", IntegerType)))
    val df = spark.createDataFrame(spark.sparkContext.parallelize(Seq(Row(Point(1.0, -2.5), 7), Row(null, 8))), schema)
    assert(Kinds.canonicalSchema(df.schema).toOption.get == Seq("id" -> "int32", "p" -> "struct<x:float64,y:float64>"))
    assert(df.selectExpr("ubunye_row_line(*)").as[String].collect().toSeq ==
      Seq("""{"id":7,"p":{"x":1.0,"y":-2.5}}""", """{"id":8}"""))
    val plain = spark.createDataFrame(spark.sparkContext.parallelize(Seq(Row(Row(1.0, -2.5), 7), Row(null, 8))),
      StructType(Seq(StructField("p", new PointUDT().sqlType), StructField("id", IntegerType))))
    assert(df.selectExpr("ubunye_rows_v1(*)").head() == plain.selectExpr("ubunye_rows_v1(*)").head())
  }

  test("Ubunye.install registers the functions on a session without the extension") {
    val other = spark.newSession()
    other.sessionState.functionRegistry.dropFunction(org.apache.spark.sql.ubunye.FunctionIds.of("ubunye_rows_v1"))
    intercept[AnalysisException](other.sql("SELECT ubunye_rows_v1(1)").collect())
    assert(Ubunye.install(other).toSet == Set("ubunye_rows_v1", "ubunye_rows_v1_sums", "ubunye_rows_v1_sketch", "ubunye_row_line", "ubunye_rows_v1_find"))
    assert(other.sql("SELECT ubunye_rows_v1(id) FROM range(3)").head().getString(0).startsWith("sha256:"))
    Ubunye.install(other) // idempotent
    assert(other.sql("SELECT ubunye_row_line(id) FROM range(1)").head().getString(0) == """{"id":0}""")
  }

  test("the jar says what it is built for") {
    assert(BuildInfo.sparkVersion == spark.version.split('.').take(2).mkString("."))
    assert(BuildInfo.scalaBinaryVersion == Ubunye.runtimeScalaBinaryVersion)
    assert(Ubunye.buildInfoJson.contains(s""""spark":"${BuildInfo.sparkVersion}""""))
    assert(BuildInfo.version == scala.io.Source.fromFile("VERSION").mkString.trim)
  }
}
