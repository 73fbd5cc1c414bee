package io.ubunye.spark.aggregate

import java.nio.{ByteBuffer, ByteOrder}

import io.ubunye.spark.expressions.{RowsV1Lanes, UnsignedDecimal}
import io.ubunye.spark.rowsv1.SketchCells

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, MutableProjection}
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate
import org.apache.spark.sql.types._

/** The three numbers of [[RowsV1Sums]] and, from the same lanes in the same pass, the
  * cells of the localisation sketch (`docs/spec/rows-v1-localise.md`, 320 cells, k = 5).
  * A function of its own, so that `ubunye_rows_v1_sums` keeps its three-number buffer
  * (and its cost) when no sketch is asked for.
  *
  * The buffer is one `long[3 + 4 * 320]`: rows, sum A, sum B, then the cells; merge
  * adds them element by element, modulo 2^64. A row's lanes come from the same
  * [[RowsV1Lanes]] expression as the other aggregates, evaluated by a projection
  * generated once per task (the interpreted one when code generation is off).
  *
  * @param child the struct of the columns; the registry builds it from the SQL arguments
  */
// scalastyle:off line.size.limit
@ExpressionDescription(
  usage = "_FUNC_(col1, col2, ...) - Returns struct<rows: bigint, sum_a: decimal(20,0), sum_b: decimal(20,0), cells: binary>: the numbers of ubunye_rows_v1_sums and the rows-v1 localisation sketch of the same rows (320 cells of four little-endian u64: count, sum A, sum B, sum check).",
  arguments = """
    Arguments:
      * col1, col2, ... - columns of any type with a rows-v1 kind; `*` takes every column
  """,
  examples = """
    Examples:
      > SELECT s.rows, s.sum_a, length(s.cells), sha2(s.cells, 256) FROM (SELECT _FUNC_(*) AS s FROM VALUES (1, 'a'), (2, NULL) AS tab(id, name));
       2	2129681774160927889	10240	e08fe163f9a8f57217eeb2051896df1c648a1dd43fb0451e3d0237ae4cac85cc
      > SELECT s.rows, length(s.cells), sha2(s.cells, 256) FROM (SELECT _FUNC_(id) AS s FROM VALUES (1) AS tab(id) WHERE id > 1);
       0	10240	84ff92691f909a05b224e1c56abb4864f01b4f8e3c854e4bb4c7baf1d3f6d652
  """,
  group = "agg_funcs",
  since = "0.1.0")
// scalastyle:on line.size.limit
case class RowsV1Sketch(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
  extends TypedImperativeAggregate[Array[Long]] {

  def this(child: Expression) = this(child, 0, 0)

  override def children: Seq[Expression] = Seq(child)
  override def nullable: Boolean = false
  override def dataType: DataType = RowsV1Sketch.ResultType

  override def checkInputDataTypes(): TypeCheckResult = RowsV1Lanes.check(prettyName, child)

  /** The lanes of a row: generated once per task on the bound aggregate. */
  @transient private lazy val lanes: MutableProjection = MutableProjection.create(Seq(RowsV1Lanes(child)))

  override def createAggregationBuffer(): Array[Long] = new Array[Long](RowsV1Sketch.BufferLongs)

  override def update(buffer: Array[Long], input: InternalRow): Array[Long] = {
    val l = lanes(input).getStruct(0, 2)
    val a = l.getLong(0)
    val b = l.getLong(1)
    buffer(0) += 1L
    buffer(1) += a
    buffer(2) += b
    SketchCells.add(buffer, 3, a, b)
    buffer
  }

  override def merge(buffer: Array[Long], input: Array[Long]): Array[Long] = {
    var i = 0
    while (i < RowsV1Sketch.BufferLongs) {
      buffer(i) += input(i)
      i += 1
    }
    buffer
  }

  override def eval(buffer: Array[Long]): Any = InternalRow(
    buffer(0), UnsignedDecimal.of(buffer(1)), UnsignedDecimal.of(buffer(2)), SketchCells.toBytes(buffer, 3))

  override def serialize(buffer: Array[Long]): Array[Byte] = {
    val out = ByteBuffer.allocate(8 * RowsV1Sketch.BufferLongs).order(ByteOrder.LITTLE_ENDIAN)
    buffer.foreach(out.putLong)
    out.array()
  }

  override def deserialize(bytes: Array[Byte]): Array[Long] = {
    val in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
    Array.fill(RowsV1Sketch.BufferLongs)(in.getLong())
  }

  override def withNewMutableAggBufferOffset(offset: Int): RowsV1Sketch = copy(mutableAggBufferOffset = offset)
  override def withNewInputAggBufferOffset(offset: Int): RowsV1Sketch = copy(inputAggBufferOffset = offset)

  override def prettyName: String = "ubunye_rows_v1_sketch"

  override def sql(isDistinct: Boolean): String = {
    val distinct = if (isDistinct) "DISTINCT " else ""
    s"$prettyName($distinct${RowsV1Lanes.argumentsSql(child)})"
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RowsV1Sketch =
    copy(child = newChildren.head)
}

object RowsV1Sketch {
  /** Rows, sum A, sum B, then the cells. */
  final val BufferLongs: Int = 3 + SketchCells.Longs

  val ResultType: StructType = StructType(RowsV1Sums.ResultType.fields :+
    StructField("cells", BinaryType, nullable = false))
}
