package io.ubunye.spark

import org.apache.spark.sql.AnalysisException
import org.scalatest.funsuite.AnyFunSuite

/** Types that only Spark 4 has: those without a canonical text fail at analysis
  * naming the column and type; collated strings are strings.
  */
class Spark4TypesSuite extends AnyFunSuite with SparkSessionManager {

  test("variant and time of day have no canonical text") {
    Seq("parse_json('{\"a\":1}') AS v" -> "'v' of type variant", "TIME'12:34:56' AS tod" -> "'tod' of type time(6)")
      .foreach { case (column, culprit) =>
        val e = intercept[AnalysisException](spark.range(1).selectExpr(column).selectExpr("ubunye_rows_v1(*)").collect())
        assert(e.getMessage.contains(culprit), e.getMessage)
      }
  }

  test("a collated string is hashed as a string") {
    val plain = "VALUES ('Ab'), ('b'), ('a') AS t(s)"
    val collated = s"(SELECT collate(s, 'UTF8_LCASE') AS s FROM $plain)"
    Seq("ubunye_rows_v1(s)", "ubunye_row_line(s)", "ubunye_row_line(map(s, 1, 'Z', 2))").foreach { f =>
      val want = spark.sql(s"SELECT $f FROM $plain").collect().toSeq
      assert(spark.sql(s"SELECT $f FROM $collated").collect().toSeq == want, f)
    }
    assert(spark.sql(s"SELECT ubunye_row_line(s) FROM $collated").head().getString(0) == """{"s":"Ab"}""")
  }
}
