package io.ubunye.spark

import io.ubunye.spark.aggregate.{RowsV1Find, RowsV1Hash, RowsV1Sketch, RowsV1Sums}
import io.ubunye.spark.expressions.RowLine
import org.apache.spark.sql.ubunye.ColumnShim

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.functions.col

/** The plugin's SQL functions for the DataFrame API, under the same names. Work on
  * classic sessions without the extension being installed.
  */
// scalastyle:off method.name
object functions {

  /** `ubunye_rows_v1(cols...)`: the rows-v1 data hash of the columns (aggregate). */
  def ubunye_rows_v1(cols: Column*): Column = aggregate(c => RowsV1Hash(c), cols)

  /** `ubunye_rows_v1(cols...)` by column names. */
  def ubunye_rows_v1(colName: String, colNames: String*): Column =
    ubunye_rows_v1((colName +: colNames).map(col): _*)

  /** `ubunye_rows_v1_sums(cols...)`: row count and unsigned lane sums (aggregate). */
  def ubunye_rows_v1_sums(cols: Column*): Column = aggregate(c => RowsV1Sums(c), cols)

  /** `ubunye_rows_v1_sums(cols...)` by column names. */
  def ubunye_rows_v1_sums(colName: String, colNames: String*): Column =
    ubunye_rows_v1_sums((colName +: colNames).map(col): _*)

  /** `ubunye_rows_v1_sketch(cols...)`: the sums and the localisation sketch's cells (aggregate). */
  def ubunye_rows_v1_sketch(cols: Column*): Column = aggregate(c => RowsV1Sketch(c), cols)

  /** `ubunye_rows_v1_sketch(cols...)` by column names. */
  def ubunye_rows_v1_sketch(colName: String, colNames: String*): Column =
    ubunye_rows_v1_sketch((colName +: colNames).map(col): _*)

  /** `ubunye_rows_v1_find(names, cols...)`: the sums of every row and the lines of the
    * rows named (`sha256:<32 hex>`) (aggregate; `lineage diff --rows`).
    */
  def ubunye_rows_v1_find(names: Seq[String], cols: Column*): Column =
    aggregate(c => RowsV1Find(Literal(names.mkString(" ")), c), cols)

  /** `ubunye_row_line(cols...)`: the canonical line of each row. */
  def ubunye_row_line(cols: Column*): Column =
    ColumnShim.column(RowLine(struct(cols)))

  /** `ubunye_row_line(cols...)` by column names. */
  def ubunye_row_line(colName: String, colNames: String*): Column =
    ubunye_row_line((colName +: colNames).map(col): _*)

  // Spark's own `struct(...)` names the fields after the columns on every Spark line
  // (building CreateStruct from Spark 4 column nodes would name them col1, col2, ...).
  private def struct(cols: Seq[Column]): Expression =
    ColumnShim.expression(org.apache.spark.sql.functions.struct(cols: _*))

  private def aggregate(make: Expression => org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction,
      cols: Seq[Column]): Column =
    ColumnShim.column(make(struct(cols)).toAggregateExpression())
}
// scalastyle:on method.name
