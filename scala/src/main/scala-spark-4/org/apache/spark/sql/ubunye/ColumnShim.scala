package org.apache.spark.sql.ubunye

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.ExpressionUtils

/** Column <-> Catalyst expression on Spark 4 (SPARK-49025 removed `Column(expr)`);
  * in Spark's package because `ExpressionUtils` is `private[sql]`.
  */
object ColumnShim {
  def column(expr: Expression): Column = ExpressionUtils.column(expr)
  def expression(col: Column): Expression = ExpressionUtils.expression(col)
}
