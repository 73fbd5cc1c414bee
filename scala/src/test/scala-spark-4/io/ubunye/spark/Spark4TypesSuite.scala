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
    val plain = spark.sql("SELECT ubunye_rows_v1(s), ubunye_row_line(s) FROM VALUES ('Ab') AS t(s)").head()
    val collated = spark.sql("SELECT ubunye_rows_v1(s), ubunye_row_line(s) FROM " +
      "(SELECT collate(s, 'UTF8_LCASE') AS s FROM VALUES ('Ab') AS t(s))").head()
    assert(collated == plain)
    assert(plain.getString(1) == """{"s":"Ab"}""")
  }
}
