package io.ubunye.spark.rowsv1

import java.nio.file.Files

import org.apache.spark.sql.Row
import org.apache.spark.sql.execution.debug.codegenString
import org.scalatest.funsuite.AnyFunSuite

import io.ubunye.spark.SparkSessionManager

/** Arrays of strings as a vectorized Parquet scan hands them over (column vectors, not
  * rows), through the generated code's typed call and the interpreted node alike.
  */
class StringArrayScanSuite extends AnyFunSuite with SparkSessionManager {

  /** The canonical text of a string, escaped one character at a time (spec 2.2). */
  private def quoted(s: String): String = s.flatMap {
    case '"' => "\\\""
    case '\\' => "\\\\"
    case '\n' => "\\n"
    case c if c < 0x20 => f"\\u${c.toInt}%04X"
    case c => c.toString
  }.mkString("\"", "", "\"")

  private def expectedLine(r: Row): String = {
    val tags = if (r.isNullAt(1)) Nil else Seq("\"tags\":" +
      r.getSeq[String](1).map(e => if (e == null) "null" else quoted(e)).mkString("[", ",", "]"))
    (Seq("\"id\":" + r.getLong(0)) ++ tags).mkString("{", ",", "}")
  }

  test("arrays of strings read from Parquet give the same lines and hash in every execution path") {
    val dir = Files.createTempDirectory("rowsv1-string-arrays").toFile
    try {
      val path = new java.io.File(dir, "t").getPath
      spark.range(0, 400).selectExpr("id",
        """CASE WHEN id % 7 = 0 THEN NULL WHEN id % 11 = 0 THEN array()
          |ELSE array(cast(id AS string), NULL, concat('q"', id, '\\'), '', 'é😀\n', repeat('w', cast(id % 20 AS int)))
          |END AS tags""".stripMargin)
        .write.parquet(path)
      val df = spark.read.parquet(path)
      val want = df.collect().map(r => r.getLong(0) -> expectedLine(r)).toMap
      assert(want.size == 400 && want.values.exists(_.contains("\\\"")))

      // the plan as executed (no adaptive wrapper) shows the generated code
      withConf(executionModes.head._2 + ("spark.sql.adaptive.enabled" -> "false")) {
        val code = codegenString(df.selectExpr("ubunye_rows_v1(*)").queryExecution.executedPlan)
        assert(code.contains("putStringArray("), code)
      }
      val results = executionModes.map { case (mode, conf) =>
        withConf(conf) {
          val lines = df.selectExpr("id", "ubunye_row_line(*)").collect().map(r => r.getLong(0) -> r.getString(1)).toMap
          assert(lines == want, mode)
          df.selectExpr("ubunye_rows_v1(*)", "ubunye_rows_v1_sums(*)").head()
        }
      }
      assert(results.distinct.size == 1, results)
    } finally {
      def delete(f: java.io.File): Unit = {
        Option(f.listFiles()).foreach(_.foreach(delete))
        f.delete()
      }
      delete(dir)
    }
  }
}
