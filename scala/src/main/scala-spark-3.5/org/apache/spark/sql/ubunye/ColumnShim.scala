package org.apache.spark.sql.ubunye

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression

/** Column <-> Catalyst expression on Spark 3.5. */
object ColumnShim {
  def column(expr: Expression): Column = new Column(expr)
  def expression(col: Column): Expression = col.expr
}
