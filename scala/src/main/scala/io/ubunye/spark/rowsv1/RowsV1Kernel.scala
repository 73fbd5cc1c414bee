package io.ubunye.spark.rowsv1

import java.security.MessageDigest

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, SpecificInternalRow}
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types.{LongType, StructType}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/** The per-row work of rows-v1 (spec section 1 and 2), shaped like Spark's
  * `XxHash64Function`: interpreted `eval`/`update` and generated code call the same
  * methods. One kernel per task (it owns a reused line buffer, a reused SHA-256
  * `MessageDigest` and the writer nodes); build it with [[RowsV1Plan.newKernel]].
  *
  * Per-type encoding (the line of a row is its columns as one JSON object):
  *  - top-level columns sorted by name in code point order; null members left out,
  *    at the top level and in structs; an all-null row is `{}`;
  *  - bool `true`/`false`; integers as digits; float64/float32 as JDK 19+
  *    `Double.toString`/`Float.toString` (see [[ShortestDecimal]]); NaN and
  *    infinities as the strings `"NaN"`, `"Infinity"`, `"-Infinity"`; -0.0 as `-0.0`;
  *  - decimals as `BigDecimal.toString` at the column's scale;
  *  - strings escaped as Jackson escapes (2.2), raw UTF-8 otherwise;
  *  - binary as standard Base64; dates `yyyy-MM-dd`; timestamps in UTC
  *    `yyyy-MM-ddTHH:mm:ss.ffffffZ`; timestamp_ntz the same without `Z`;
  *  - lists with `null` elements; structs in declared order; maps sorted by key
  *    value, keys as JSON strings of their text, null values kept;
  *  - Spark UDTs as their SQL type.
  * The line's SHA-256 gives lane A (bytes 0..7) and lane B (bytes 8..15), big-endian.
  */
final class RowsV1Kernel private[rowsv1] (schema: StructType) {
  private val top = StructWriter.topLevel(schema)
  private val line = new LineBuffer()
  private val sha = MessageDigest.getInstance("SHA-256")
  private val digest = new Array[Byte](32)

  /** Lane A of the last row hashed by [[hashRow]]. */
  var laneA: Long = 0L
  /** Lane B of the last row hashed by [[hashRow]]. */
  var laneB: Long = 0L
  private val lanesRow = new SpecificInternalRow(Seq(LongType, LongType))

  /** Both lanes of the last row hashed, as a row `(a, b)` (the same row object each
    * time: read it before the next row).
    */
  def lanes: SpecificInternalRow = {
    lanesRow.setLong(0, laneA)
    lanesRow.setLong(1, laneB)
    lanesRow
  }

  // Member by member, for generated code that has the column values at hand:
  // begin(); then for each non-null column in RowsV1Plan.fieldOrder: member(f);
  // put...(value); then end(), which hashes the line like hashRow.
  private var first = true
  private val holder = new GenericInternalRow(1)

  def begin(): Unit = { line.reset(); line.put('{'); first = true }
  def member(f: Int): Unit = { top.putPrefix(line, f, first); first = false }
  /** [[member]] with the field's prefix words given ([[RowsV1Plan.memberWords]]), as
    * generated code passes them: literals, so no table is read per row.
    */
  def member(first0: Long, first1: Long, firstLength: Int, next0: Long, next1: Long, nextLength: Int): Unit = {
    line.ensure(LineText.PrefixRoom)
    line.pos = LineText.prefix(line.bytes, line.pos, first, first0, first1, firstLength, next0, next1, nextLength)
    first = false
  }
  def putBoolean(v: Boolean): Unit = BooleanWriter.put(line, v)
  def putInt(v: Int): Unit = line.putInt(v)
  def putLong(v: Long): Unit = line.putLong(v)
  def putDouble(v: Double): Unit = DoubleWriter.put(line, v, quoted = false)
  def putFloat(v: Float): Unit = FloatWriter.put(line, v, quoted = false)
  def putString(v: UTF8String): Unit = line.putQuoted(v)
  def putStringArray(v: ArrayData): Unit = StringArrayWriter.put(line, v)
  def putBinary(v: Array[Byte]): Unit = line.putBase64(v)
  def putDate(days: Int): Unit = line.putQuotedDate(days)
  def putTimestamp(micros: Long): Unit = putTimestamp(micros, zulu = true)
  def putTimestampNtz(micros: Long): Unit = putTimestamp(micros, zulu = false)
  private def putTimestamp(micros: Long, zulu: Boolean): Unit = {
    line.ensure(LineText.TimestampRoom)
    line.pos = LineText.quotedTimestamp(line.bytes, line.pos, micros, zulu)
  }
  /** Any other value of column `f` (decimals, nested values, UDTs) through its node. */
  def putValue(f: Int, v: AnyRef): Unit = { holder.update(0, v); top.writer(f).write(line, holder, 0) }
  def end(): Unit = { line.put('}'); digestLine() }

  // Positional, for generated code that holds the line's array, its position and the
  // first-member flag in local variables and writes with LineText: it takes them with
  // lineBytes, linePosition and firstMember (after begin), makes room with `room`,
  // hands them back with moveTo before any other call of the kernel, and ends with
  // end(p). See io.ubunye.spark.observe.LineFunctions.
  def lineBytes: Array[Byte] = line.bytes
  def linePosition: Int = line.pos
  def firstMember: Boolean = first
  def moveTo(p: Int, firstMember: Boolean): Unit = { line.pos = p; first = firstMember }
  /** The line's array, with room for `n` bytes from `p` (a new array when it grew). */
  def room(p: Int, n: Long): Array[Byte] = {
    if (p.toLong + n > Int.MaxValue - 16) throw new RowsV1Error("a canonical line longer than 2 GB")
    line.pos = p
    line.ensure(n.toInt)
    line.bytes
  }
  def end(p: Int): Unit = { line.pos = p; end() }

  /** Writes the canonical line of `row` (null: a row of nulls) into the kernel's buffer. */
  def writeLine(row: InternalRow): LineBuffer = {
    line.reset()
    if (row == null) line.putAscii("{}") else top.writeRow(line, row)
    line
  }

  /** Hashes the canonical line of `row`; the lanes are then in [[laneA]] and [[laneB]]. */
  def hashRow(row: InternalRow): Unit = {
    writeLine(row)
    digestLine()
  }

  private def digestLine(): Unit = {
    sha.update(line.bytes, 0, line.pos)
    sha.digest(digest, 0, 32)
    laneA = RowsV1Kernel.bigEndianLong(digest, 0)
    laneB = RowsV1Kernel.bigEndianLong(digest, 8)
  }

  /** The canonical line of `row` as UTF-8 bytes (a new array). */
  def lineBytes(row: InternalRow): Array[Byte] = writeLine(row).toArray
}

object RowsV1Kernel {
  /** The eight bytes of `b` from `at` (in bounds) as a big-endian long: one word load
    * where [[LineBuffer.WordStores]] holds.
    */
  def bigEndianLong(b: Array[Byte], at: Int): Long =
    if (LineBuffer.WordStores) java.lang.Long.reverseBytes(Platform.getLong(b, Platform.BYTE_ARRAY_OFFSET + at))
    else {
      var v = 0L
      var i = 0
      while (i < 8) { v = (v << 8) | (b(at + i) & 0xffL); i += 1 }
      v
    }
}

/** What a kernel needs, serializable and shipped with the plan: the struct of the
  * hashed columns (checked with [[Kinds.canonicalSchema]] at analysis time).
  */
final case class RowsV1Plan(schema: StructType) {
  def newKernel(): RowsV1Kernel = new RowsV1Kernel(schema)

  /** The prefix words of each top-level field, where they fit ([[StructWriter.memberWords]]). */
  def memberWords: Array[Option[MemberWords]] = {
    val top = StructWriter.topLevel(schema)
    Array.tabulate(schema.length)(top.memberWords)
  }

  /** The order top-level fields are written in (code point order of the names). */
  def fieldOrder: Array[Int] = StructWriter.codePointOrder(schema)
}
