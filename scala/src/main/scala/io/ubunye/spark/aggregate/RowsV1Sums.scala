package io.ubunye.spark.aggregate

import io.ubunye.spark.expressions.UnsignedDecimal

import org.apache.spark.sql.catalyst.expressions.{CreateNamedStruct, Expression, ExpressionDescription, Literal}
import org.apache.spark.sql.types._

/** The three numbers of a rows-v1 pass (spec section 1): the row count and the two
  * lane sums modulo 2^64, read as unsigned. What the Python side turns into a
  * `data_hash` together with the schema, e.g. when observing a write.
  *
  * @param child the struct of the columns; the registry builds it from the SQL arguments
  */
// scalastyle:off line.size.limit
@ExpressionDescription(
  usage = "_FUNC_(col1, col2, ...) - Returns struct<rows: bigint, sum_a: decimal(20,0), sum_b: decimal(20,0)>: the row count and the unsigned sums modulo 2^64 of the two SHA-256 lanes of the rows-v1 canonical lines of the given columns.",
  arguments = """
    Arguments:
      * col1, col2, ... - columns of any type with a rows-v1 kind; `*` takes every column
  """,
  examples = """
    Examples:
      > SELECT _FUNC_(*) FROM VALUES (1, 'a'), (2, NULL) AS tab(id, name);
       {"rows":2,"sum_a":2129681774160927889,"sum_b":8345721550289181509}
      > SELECT _FUNC_(id) FROM VALUES (1) AS tab(id) WHERE id > 1;
       {"rows":0,"sum_a":0,"sum_b":0}
  """,
  group = "agg_funcs",
  since = "0.1.0")
// scalastyle:on line.size.limit
case class RowsV1Sums(child: Expression) extends RowsV1LaneSums {

  override def dataType: DataType = RowsV1Sums.ResultType

  override lazy val evaluateExpression: Expression = CreateNamedStruct(Seq(
    Literal("rows"), rows,
    Literal("sum_a"), UnsignedDecimal(sumA),
    Literal("sum_b"), UnsignedDecimal(sumB)))

  override def prettyName: String = "ubunye_rows_v1_sums"

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RowsV1Sums =
    copy(child = newChildren.head)
}

object RowsV1Sums {
  val ResultType: StructType = StructType(Seq(
    StructField("rows", LongType, nullable = false),
    StructField("sum_a", DecimalType(20, 0), nullable = false),
    StructField("sum_b", DecimalType(20, 0), nullable = false)))
}
