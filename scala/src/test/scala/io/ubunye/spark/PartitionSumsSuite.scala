package io.ubunye.spark

import java.nio.file.{Files, Path}
import java.util.UUID

import io.ubunye.spark.observe.{PartitionTally, RowsV1Observations}
import io.ubunye.spark.rowsv1.RowsV1Error

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HadoopPath}
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, expr}
import org.apache.spark.sql.types.{DoubleType, StringType}
import org.scalatest.funsuite.AnyFunSuite

/** The planner node's per-partition sums (`docs/spec/rows-v1-localise.md` section 7):
  * keyed by the folders Spark's `partitionBy` writes, each folder's rows and lane sums,
  * the same on every execution path, adding up to the frame's sums.
  */
class PartitionSumsSuite extends AnyFunSuite with SparkSessionManager {

  private val columns = Seq("s", "d", "t", "m", "f", "n")

  /** Partition columns of every kind with folder text, text that needs escaping, nulls and empties. */
  private def table: DataFrame = spark.range(0, 600, 1, 4).selectExpr(
    "id",
    "CASE id % 5 WHEN 0 THEN 'a/b' WHEN 1 THEN 'x=y:%' WHEN 2 THEN '' WHEN 3 THEN NULL ELSE 'plain' END AS s",
    "date_add(DATE'2024-01-30', CAST(id % 3 AS INT)) AS d",
    "CAST(id % 2 AS BOOLEAN) AS t",
    "CAST((id % 4) / 4 AS DECIMAL(5, 2)) AS m",
    "CASE WHEN id % 7 = 0 THEN 1.0E10 ELSE 0.5 END AS f",
    "CAST(id % 3 AS INT) AS n",
    "id * 3 AS v")

  /** The observed `(rows, a, b)` of each key and the total, after one write to nowhere. */
  private def observed(df: DataFrame, by: Seq[String]): (Map[String, Seq[Long]], Seq[Long]) = {
    val id = UUID.randomUUID().toString
    RowsV1Observations.attach(df, id, sketch = true, by.toArray).write.format("noop").mode("overwrite").save()
    val lines = RowsV1Observations.resultWithParts(id, forget = true).split("\n").toSeq
    val parts = lines.tail.map { l =>
      val f = l.split("\t")
      f(0) -> f.tail.map(_.toLong).toSeq
    }
    assert(parts.map(_._1) == parts.map(_._1).sorted, "keys sorted")
    (parts.toMap, lines.head.split(" ").take(3).map(_.toLong).toSeq)
  }

  /** The partition folders Spark writes for `df` partitioned by `by` (UTC session). */
  private def folders(df: DataFrame, by: Seq[String]): Map[String, Long] = {
    val dir = Files.createTempDirectory("ubunye-parts")
    withConf(Map("spark.sql.session.timeZone" -> "UTC")) {
      df.write.mode("overwrite").partitionBy(by: _*).parquet(dir.resolve("t").toString)
    }
    val root = dir.resolve("t")
    val files = Files.walk(root).toArray.map(_.asInstanceOf[Path]).filter(_.toString.endsWith(".parquet"))
    // each folder's rows from its files' parquet footers (a Spark job per folder took ~50 s for ~600)
    val conf = spark.sparkContext.hadoopConfiguration
    files.groupBy(_.getParent).map { case (leaf, inLeaf) =>
      val rel = root.relativize(leaf)
      (0 until rel.getNameCount).map(i => rel.getName(i).toString).mkString("/") ->
        inLeaf.map(f => footerRows(f, conf)).sum
    }
  }

  private def footerRows(file: Path, conf: Configuration): Long = {
    val input = HadoopInputFile.fromPath(new HadoopPath(file.toUri), conf)
    val reader = ParquetFileReader.open(input)
    try reader.getRecordCount finally reader.close()
  }

  test("the keys are the folders Spark writes, with their row counts; the lane sums are each group's; all paths agree") {
    val by = columns
    val written = folders(table, by)
    // an empty text and a null share a folder (__HIVE_DEFAULT_PARTITION__): one group
    val grouped = table.groupBy(by.map(c => if (c == "s") expr("nullif(s, '')") else col(c)): _*)
      .agg(expr("ubunye_rows_v1_sums(id, s, d, t, m, f, n, v)").as("x"))
      .select("x.*").collect().map(r => Seq(r.getLong(0), r.getDecimal(1).longValue, r.getDecimal(2).longValue))
    val results = executionModes.map { case (label, conf) => label -> withConf(conf)(observed(table, by)) }
    val (parts, total) = results.head._2
    results.foreach { case (label, r) => assert(r == results.head._2, label) }
    assert(parts.map { case (k, s) => k -> s.head } == written)
    assert(parts.values.map(_.head).sum == 600L && total.head == 600L)
    assert(Seq(1, 2).map(i => parts.values.map(_(i)).sum) == total.tail) // sums modulo 2^64 add up
    assert(parts.values.toSeq.sortBy(_.mkString(",")) == grouped.toSeq.sortBy(_.mkString(",")))
    val aggregate = table.selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0)
    assert(total.tail == Seq(aggregate.getDecimal(1).longValue, aggregate.getDecimal(2).longValue))
  }

  test("partition columns are matched ignoring case, named as the frame names them") {
    val (parts, _) = observed(table, Seq("N"))
    assert(parts.keySet == Set("n=0", "n=1", "n=2"))
  }

  test("instants are UTC text with the fraction's trailing zeros dropped") {
    val df = spark.sql("SELECT * FROM VALUES (TIMESTAMP'2024-01-02 03:04:05.5Z', 1), (TIMESTAMP'2024-01-02 03:04:05Z', 2) AS x(ts, v)")
    assert(observed(df, Seq("ts"))._1.keySet == Set("ts=2024-01-02 03%3A04%3A05", "ts=2024-01-02 03%3A04%3A05.5"))
    assert(observed(df, Seq("ts"))._1.keySet == folders(df, Seq("ts")).keySet)
  }

  test("no partition columns: no lines; a missing or unsupported column is refused naming it") {
    val id = UUID.randomUUID().toString
    RowsV1Observations.attach(table, id, sketch = false).write.format("noop").mode("overwrite").save()
    assert(!RowsV1Observations.resultWithParts(id, forget = true).contains("\n"))
    assert(intercept[RowsV1Error](RowsV1Observations.attach(table, "x", true, Array("nope"))).getMessage.contains("nope"))
    val arr = table.selectExpr("array(v) AS a", "v")
    assert(intercept[RowsV1Error](RowsV1Observations.attach(arr, "y", true, Array("a"))).getMessage.contains("'a'"))
  }

  test("folder text of single values") {
    assert(PartitionTally.text(null, StringType) == "__HIVE_DEFAULT_PARTITION__")
    assert(PartitionTally.text(java.lang.Double.valueOf(1e10), DoubleType) == "1.0E10")
    assert(PartitionTally.escape("a\u0001#b\u007f") == "a%01%23b%7F")
  }
}
