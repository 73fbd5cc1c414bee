package io.ubunye.spark.aggregate

import io.ubunye.spark.expressions.{RowsV1Lanes, UnsignedDecimal}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, GenericInternalRow, MutableProjection}
import org.apache.spark.sql.catalyst.expressions.aggregate.ImperativeAggregate
import org.apache.spark.sql.types.{DataType, LongType, StructField, StructType}

/** [[RowsV1Sums]] for observed metrics (`DataFrame.observe`): the same buffer (row
  * count and the two lane sums modulo 2^64) and the same result, as an
  * `ImperativeAggregate`. Not a SQL function: [[ObservedRowsV1Sums]] puts it in place
  * of `ubunye_rows_v1_sums` inside `CollectMetrics`.
  *
  * Why: Spark's observation accumulator evaluates declarative update expressions
  * over a `JoinedRow` of buffer and input, so every column read of the canonical line
  * goes through it; an imperative function is handed the input row itself, which the
  * generated lanes projection below reads directly.
  */
case class RowsV1ObservedSums(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
  extends ImperativeAggregate {

  override def children: Seq[Expression] = Seq(child)
  override def nullable: Boolean = false
  override def dataType: DataType = RowsV1Sums.ResultType

  override def checkInputDataTypes(): TypeCheckResult = RowsV1Lanes.check(prettyName, child)

  override def aggBufferSchema: StructType = RowsV1ObservedSums.BufferSchema

  override lazy val aggBufferAttributes: Seq[AttributeReference] =
    aggBufferSchema.map(f => AttributeReference(f.name, f.dataType, f.nullable)())

  override lazy val inputAggBufferAttributes: Seq[AttributeReference] = aggBufferAttributes.map(_.newInstance())

  /** The lanes of one input row, by generated code reading the row's columns where
    * they lie (one per task: the projection owns the kernel and its buffers).
    */
  @transient private lazy val lanesOf: MutableProjection =
    MutableProjection.create(Seq(RowsV1Lanes(child))).target(new GenericInternalRow(1))

  override def initialize(buffer: InternalRow): Unit = {
    buffer.setLong(mutableAggBufferOffset, 0L)
    buffer.setLong(mutableAggBufferOffset + 1, 0L)
    buffer.setLong(mutableAggBufferOffset + 2, 0L)
  }

  override def update(buffer: InternalRow, input: InternalRow): Unit = {
    val lanes = lanesOf(input).getStruct(0, 2)
    add(buffer, 1L, lanes.getLong(0), lanes.getLong(1))
  }

  override def merge(buffer: InternalRow, input: InternalRow): Unit =
    add(buffer, input.getLong(inputAggBufferOffset), input.getLong(inputAggBufferOffset + 1),
      input.getLong(inputAggBufferOffset + 2))

  /** Adds to the buffer, wrapping (JVM long arithmetic is modulo 2^64). */
  private def add(buffer: InternalRow, rows: Long, a: Long, b: Long): Unit = {
    val at = mutableAggBufferOffset
    buffer.setLong(at, buffer.getLong(at) + rows)
    buffer.setLong(at + 1, buffer.getLong(at + 1) + a)
    buffer.setLong(at + 2, buffer.getLong(at + 2) + b)
  }

  override def eval(buffer: InternalRow): Any = {
    val at = mutableAggBufferOffset
    InternalRow(buffer.getLong(at), UnsignedDecimal.of(buffer.getLong(at + 1)), UnsignedDecimal.of(buffer.getLong(at + 2)))
  }

  override def withNewMutableAggBufferOffset(offset: Int): ImperativeAggregate = copy(mutableAggBufferOffset = offset)

  override def withNewInputAggBufferOffset(offset: Int): ImperativeAggregate = copy(inputAggBufferOffset = offset)

  override def prettyName: String = "ubunye_rows_v1_sums"

  override def sql(isDistinct: Boolean): String = {
    val distinct = if (isDistinct) "DISTINCT " else ""
    s"$prettyName($distinct${RowsV1Lanes.argumentsSql(child)})"
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RowsV1ObservedSums =
    copy(child = newChildren.head)
}

object RowsV1ObservedSums {
  val BufferSchema: StructType = StructType(Seq(
    StructField("rows", LongType, nullable = false),
    StructField("sum_a", LongType, nullable = false),
    StructField("sum_b", LongType, nullable = false)))
}
