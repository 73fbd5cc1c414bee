package io.ubunye.spark

import org.apache.spark.sql.execution.HiveResult
import org.scalatest.funsuite.AnyFunSuite

/** The documentation of every registered function is complete, and every example in
  * it runs and prints exactly the documented output (the shape of Spark's
  * ExpressionInfoSuite).
  */
class ExpressionInfoSuite extends AnyFunSuite with SparkSessionManager {

  /** `(query, expected output lines)` pairs of an `examples` block. */
  private def examples(text: String): Seq[(String, Seq[String])] = {
    val lines = text.split("\n").map(_.trim).filter(_.nonEmpty).filterNot(_ == "Examples:").toSeq
    val starts = lines.indices.filter(i => lines(i).startsWith("> "))
    starts.zipWithIndex.map { case (s, k) =>
      val end = if (k + 1 < starts.size) starts(k + 1) else lines.size
      (lines(s).stripPrefix("> ").stripSuffix(";"), lines.slice(s + 1, end))
    }
  }

  test("every function has usage with _FUNC_, arguments, examples, group and since") {
    assert(UbunyeFunctionRegistry.functions.map(_.name).toSet ==
      Set("ubunye_rows_v1", "ubunye_rows_v1_sums", "ubunye_rows_v1_sketch", "ubunye_row_line", "ubunye_rows_v1_find"))
    UbunyeFunctionRegistry.functions.foreach { f =>
      val info = f.info
      assert(info.getName == f.name)
      assert(info.getUsage.contains("_FUNC_") || info.getUsage.contains(f.name), f.name)
      assert(info.getArguments.contains("Arguments:"), f.name)
      assert(examples(info.getExamples).nonEmpty, f.name)
      assert(Set("agg_funcs", "misc_funcs").contains(info.getGroup), f.name)
      assert(info.getSince == BuildInfo.version.split('-').head || info.getSince.matches("""\d+\.\d+\.\d+"""), f.name)
    }
  }

  UbunyeFunctionRegistry.functions.foreach { f =>
    test(s"${f.name}: the documented examples print the documented output") {
      val cases = examples(f.info.getExamples)
      cases.foreach { case (query, expected) =>
        executionModes.foreach { case (mode, conf) =>
          withConf(conf) {
            val df = spark.sql(query)
            val got = HiveResult.hiveResultString(df.queryExecution.executedPlan).map(_.trim)
            assert(got == expected, s"$query ($mode)")
          }
        }
      }
    }
  }
}
