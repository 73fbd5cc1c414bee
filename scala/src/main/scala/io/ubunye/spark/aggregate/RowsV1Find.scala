package io.ubunye.spark.aggregate

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream}

import scala.collection.mutable.ArrayBuffer

import io.ubunye.spark.expressions.{RowsV1Lanes, UnsignedDecimal}
import io.ubunye.spark.rowsv1.{Kinds, RowsV1Plan}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, MutableProjection}
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** One pass that finds rows by their decoded names (`lineage diff --rows`,
  * `docs/spec/rows-v1-localise.md` section 5): the three numbers of [[RowsV1Sums]] over
  * every row, and the canonical lines of only the rows whose lanes `(A, B)` are named.
  * No join, no shuffle of the data: each partition keeps its matches in its buffer, the
  * driver receives the merged buffers, so its memory grows with the rows found.
  *
  * A row's lanes come from the same [[RowsV1Lanes]] expression as the other aggregates;
  * its line is written again only when its lanes are wanted.
  *
  * @param names a constant string: the wanted rows' names, `sha256:<32 hex>` (or the 32
  *              hex digits alone: lane A then lane B), separated by spaces or commas
  * @param child the struct of the columns; the registry builds it from the other arguments
  */
// scalastyle:off line.size.limit
@ExpressionDescription(
  usage = "_FUNC_(names, col1, col2, ...) - Returns struct<rows: bigint, sum_a: decimal(20,0), sum_b: decimal(20,0), found: array<struct<a: bigint, b: bigint, line: string>>>: the numbers of ubunye_rows_v1_sums over every row and, from the same pass, the lanes and canonical line of each row whose name (sha256: and the first 32 hex digits of its row digest) is in names, every copy, sorted by line.",
  arguments = """
    Arguments:
      * names - a constant string: row names `sha256:<32 hex>` separated by spaces or commas
      * col1, col2, ... - columns of any type with a rows-v1 kind; `*` takes every column
  """,
  examples = """
    Examples:
      > SELECT f.rows, f.sum_a, f.found[0].line FROM (SELECT _FUNC_('sha256:7f0fc1050a42a0cb28309f997dc4e388 sha256:9e7e65453739bbc64ba155eed18a37bd', *) AS f FROM VALUES (1, 'a'), (2, NULL) AS tab(id, name));
       2	2129681774160927889	{"id":1,"name":"a"}
      > SELECT f.rows, size(f.found), f.found[1].line FROM (SELECT _FUNC_('sha256:9e7e65453739bbc64ba155eed18a37bd', id) AS f FROM VALUES (1), (2), (2) AS tab(id));
       3	2	{"id":2}
  """,
  group = "agg_funcs",
  since = "0.1.0")
// scalastyle:on line.size.limit
case class RowsV1Find(names: Expression, child: Expression, mutableAggBufferOffset: Int = 0,
    inputAggBufferOffset: Int = 0) extends TypedImperativeAggregate[RowsV1Find.Buffer] {

  def this(names: Expression, child: Expression) = this(names, child, 0, 0)

  override def children: Seq[Expression] = Seq(names, child)
  override def nullable: Boolean = false
  override def dataType: DataType = RowsV1Find.ResultType

  override def checkInputDataTypes(): TypeCheckResult = {
    val namesOk = names.foldable && names.dataType == StringType && names.eval() != null
    if (!namesOk) TypeCheckResult.TypeCheckFailure(s"$prettyName: the first argument must be a constant string of row names")
    else RowsV1Find.parse(names.eval().toString) match {
      case Left(why) => TypeCheckResult.TypeCheckFailure(s"$prettyName: $why")
      case Right(_) => RowsV1Lanes.check(prettyName, child)
    }
  }

  @transient private lazy val wanted: RowsV1Find.Wanted =
    RowsV1Find.parse(names.eval().toString).fold(why => throw new IllegalArgumentException(why), identity)

  /** The lanes of a row: generated once per task on the bound aggregate. */
  @transient private lazy val lanes: MutableProjection = MutableProjection.create(Seq(RowsV1Lanes(child)))

  /** Writes the line of a wanted row (rare: the rows asked for). */
  @transient private lazy val kernel = RowsV1Plan(child.dataType.asInstanceOf[StructType]).newKernel()

  /** The kernel keeps state across rows: each use of the expression gets a fresh copy. */
  override def stateful: Boolean = true

  override def createAggregationBuffer(): RowsV1Find.Buffer = new RowsV1Find.Buffer

  override def update(buffer: RowsV1Find.Buffer, input: InternalRow): RowsV1Find.Buffer = {
    val l = lanes(input).getStruct(0, 2)
    val a = l.getLong(0)
    val b = l.getLong(1)
    buffer.rows += 1L
    buffer.sumA += a
    buffer.sumB += b
    if (wanted.contains(a, b)) buffer.found += RowsV1Find.Found(a, b, kernel.lineBytes(child.eval(input).asInstanceOf[InternalRow]))
    buffer
  }

  override def merge(buffer: RowsV1Find.Buffer, input: RowsV1Find.Buffer): RowsV1Find.Buffer = {
    buffer.rows += input.rows
    buffer.sumA += input.sumA
    buffer.sumB += input.sumB
    buffer.found ++= input.found
    buffer
  }

  override def eval(buffer: RowsV1Find.Buffer): Any = {
    // unsigned byte order: for UTF-8, the code point order of the lines
    val found = buffer.found.toArray.sortWith((x, y) => Kinds.compareUnsigned(x.line, y.line) < 0)
    InternalRow(buffer.rows, UnsignedDecimal.of(buffer.sumA), UnsignedDecimal.of(buffer.sumB),
      new GenericArrayData(found.map(f => InternalRow(f.a, f.b, UTF8String.fromBytes(f.line)): Any)))
  }

  override def serialize(buffer: RowsV1Find.Buffer): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new DataOutputStream(bytes)
    out.writeLong(buffer.rows)
    out.writeLong(buffer.sumA)
    out.writeLong(buffer.sumB)
    out.writeInt(buffer.found.size)
    buffer.found.foreach { f =>
      out.writeLong(f.a)
      out.writeLong(f.b)
      out.writeInt(f.line.length)
      out.write(f.line)
    }
    out.flush()
    bytes.toByteArray
  }

  override def deserialize(bytes: Array[Byte]): RowsV1Find.Buffer = {
    val in = new DataInputStream(new ByteArrayInputStream(bytes))
    val buffer = new RowsV1Find.Buffer
    buffer.rows = in.readLong()
    buffer.sumA = in.readLong()
    buffer.sumB = in.readLong()
    val n = in.readInt()
    (0 until n).foreach { _ =>
      val a = in.readLong()
      val b = in.readLong()
      val line = new Array[Byte](in.readInt())
      in.readFully(line)
      buffer.found += RowsV1Find.Found(a, b, line)
    }
    buffer
  }

  override def withNewMutableAggBufferOffset(offset: Int): RowsV1Find = copy(mutableAggBufferOffset = offset)
  override def withNewInputAggBufferOffset(offset: Int): RowsV1Find = copy(inputAggBufferOffset = offset)

  override def prettyName: String = "ubunye_rows_v1_find"

  override def sql(isDistinct: Boolean): String = {
    val distinct = if (isDistinct) "DISTINCT " else ""
    s"$prettyName($distinct${names.sql}, ${RowsV1Lanes.argumentsSql(child)})"
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RowsV1Find =
    copy(names = newChildren(0), child = newChildren(1))
}

object RowsV1Find {
  /** A row found: its lanes and canonical line (UTF-8). */
  final case class Found(a: Long, b: Long, line: Array[Byte])

  /** Row count, lane sums (modulo 2^64) and the rows found so far. */
  final class Buffer {
    var rows: Long = 0L
    var sumA: Long = 0L
    var sumB: Long = 0L
    val found: ArrayBuffer[Found] = ArrayBuffer.empty
  }

  /** The wanted lanes, sorted by (A, B): a binary search on A, then B compared. */
  final class Wanted(a: Array[Long], b: Array[Long]) extends Serializable {
    def size: Int = a.length

    def contains(x: Long, y: Long): Boolean = {
      var i = java.util.Arrays.binarySearch(a, x)
      if (i < 0) return false
      while (i > 0 && a(i - 1) == x) i -= 1
      while (i < a.length && a(i) == x) {
        if (b(i) == y) return true
        i += 1
      }
      false
    }
  }

  private val Name = "(?:sha256:)?([0-9a-fA-F]{32})".r

  /** The wanted lanes of `text`, or why it names no rows properly. */
  def parse(text: String): Either[String, Wanted] = {
    val words = text.split("[\\s,]+").filter(_.nonEmpty)
    val bad = words.find(w => !Name.pattern.matcher(w).matches())
    bad match {
      case Some(w) => Left(s"'${w.take(80)}' is not a row name (sha256: and 32 hex digits)")
      case None =>
        val pairs = words.map { case Name(h) =>
          (java.lang.Long.parseUnsignedLong(h.substring(0, 16), 16), java.lang.Long.parseUnsignedLong(h.substring(16), 16))
        }.distinct.sorted
        Right(new Wanted(pairs.map(_._1), pairs.map(_._2)))
    }
  }

  val FoundType: StructType = StructType(Seq(
    StructField("a", LongType, nullable = false), StructField("b", LongType, nullable = false),
    StructField("line", StringType, nullable = false)))

  val ResultType: StructType = StructType(RowsV1Sums.ResultType.fields :+
    StructField("found", ArrayType(FoundType, containsNull = false), nullable = false))
}
