package io.ubunye.spark.expressions

import io.ubunye.spark.rowsv1.RowsV1Plan

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{DataType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

/** The rows-v1 canonical line of the argument columns (spec section 2), for debugging
  * and conformance tests: the text whose SHA-256 the rows-v1 aggregates add up.
  *
  * @param child the struct of the columns; the registry builds it from the SQL
  *              arguments, so its field names are the argument names
  */
// scalastyle:off line.size.limit
@ExpressionDescription(
  usage = "_FUNC_(col1, col2, ...) - Returns the rows-v1 canonical line of the given columns: a JSON object of the non-null columns sorted by name, as the rows-v1 table hash writes it before hashing.",
  arguments = """
    Arguments:
      * col1, col2, ... - columns of any type with a rows-v1 kind; their names become the member names
  """,
  examples = """
    Examples:
      > SELECT _FUNC_(id, name, score) FROM VALUES (1, 'Anna', 1e23D), (2, NULL, CAST('NaN' AS DOUBLE)) AS tab(id, name, score);
       {"id":1,"name":"Anna","score":1.0E23}
       {"id":2,"score":"NaN"}
      > SELECT _FUNC_(m, d) FROM VALUES (map('b', 2, 'a', 1), DATE'2024-02-29') AS tab(m, d);
       {"d":"2024-02-29","m":{"a":1,"b":2}}
  """,
  group = "misc_funcs",
  since = "0.1.0")
// scalastyle:on line.size.limit
case class RowLine(child: Expression) extends UnaryExpression with CodegenFallback {

  override def dataType: DataType = StringType
  override def nullable: Boolean = false

  override def checkInputDataTypes(): TypeCheckResult = RowsV1Lanes.check(prettyName, child)

  @transient private lazy val kernel = RowsV1Plan(child.dataType.asInstanceOf[StructType]).newKernel()

  /** The kernel (its line buffer and SHA-256 state) is reused row after row: Spark
    * gives every projection a fresh copy instead of sharing this instance.
    */
  override def stateful: Boolean = true

  override def eval(input: InternalRow): Any =
    UTF8String.fromBytes(kernel.lineBytes(child.eval(input).asInstanceOf[InternalRow]))

  override def prettyName: String = "ubunye_row_line"

  override def sql: String = s"$prettyName(${RowsV1Lanes.argumentsSql(child)})"

  override protected def withNewChildInternal(newChild: Expression): RowLine = copy(child = newChild)
}
