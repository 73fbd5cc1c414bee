package io.ubunye.spark.aggregate

import io.ubunye.spark.expressions.{RowsV1Lanes, WrappingAdd}

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, GetStructField, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.LongType

/** The pass shared by the rows-v1 aggregates (the shape of Spark's `Count`/`Sum`):
  * the buffer is the row count and the two lane sums, all `bigint`, never null.
  *
  * Buffer rules: every sum is exactly the sum modulo 2^64 ([[WrappingAdd]], whatever
  * the ANSI mode), so partial buffers merge in any order; an empty group keeps the
  * initial zeros (0 rows, sums [0,0]), which is a valid rows-v1 result. The lanes of a
  * row come from one [[RowsV1Lanes]] expression used by both sum updates; common
  * subexpression elimination evaluates it once per row.
  */
abstract class RowsV1LaneSums extends DeclarativeAggregate {

  /** The struct of the hashed columns (field names are the column names). */
  def child: Expression

  override def children: Seq[Expression] = Seq(child)
  override def nullable: Boolean = false

  override def checkInputDataTypes(): TypeCheckResult = RowsV1Lanes.check(prettyName, child)

  protected lazy val rows = AttributeReference("rows", LongType, nullable = false)()
  protected lazy val sumA = AttributeReference("sum_a", LongType, nullable = false)()
  protected lazy val sumB = AttributeReference("sum_b", LongType, nullable = false)()

  override lazy val aggBufferAttributes: Seq[AttributeReference] = Seq(rows, sumA, sumB)

  override lazy val initialValues: Seq[Expression] = Seq(Literal(0L), Literal(0L), Literal(0L))

  override lazy val updateExpressions: Seq[Expression] = {
    val lanes = RowsV1Lanes(child)
    Seq(
      WrappingAdd(rows, Literal(1L)),
      WrappingAdd(sumA, GetStructField(lanes, 0, Some("a"))),
      WrappingAdd(sumB, GetStructField(lanes, 1, Some("b"))))
  }

  override lazy val mergeExpressions: Seq[Expression] = Seq(
    WrappingAdd(rows.left, rows.right),
    WrappingAdd(sumA.left, sumA.right),
    WrappingAdd(sumB.left, sumB.right))

  override def sql(isDistinct: Boolean): String = {
    val distinct = if (isDistinct) "DISTINCT " else ""
    s"$prettyName($distinct${RowsV1Lanes.argumentsSql(child)})"
  }
}
