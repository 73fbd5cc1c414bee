package io.ubunye.spark.rowsv1

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.spark.sql.catalyst.expressions.{SpecializedGetters, UnsafeArrayData}
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform

/** Writes one non-null value, read at `ordinal` of a row or an array, as its canonical
  * text (spec 2.3 and 2.4). One node per type of the schema, built once per kernel
  * (nodes with scratch space are not shared between threads); containers check for
  * nulls before calling a node.
  */
abstract class ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, ordinal: Int): Unit
}

object ValueWriter {

  /** The node tree for a type (which must have a kind: see [[Kinds.kindOf]]).
    * `column` names the top-level column, for runtime error messages.
    */
  def apply(dt: DataType, column: String): ValueWriter = dt match {
    case BooleanType => BooleanWriter
    case ByteType => ByteWriter
    case ShortType => ShortWriter
    case IntegerType => IntWriter
    case LongType => LongWriter
    case FloatType => new FloatWriter(quoted = false)
    case DoubleType => new DoubleWriter(quoted = false)
    case d: DecimalType => new DecimalWriter(d, quoted = false)
    case _: StringType | _: CharType | _: VarcharType => StringWriter
    case BinaryType => BinaryWriter
    case DateType => DateWriter
    case TimestampType => new TimestampWriter(zulu = true)
    case TimestampNTZType => new TimestampWriter(zulu = false)
    case NullType => NullWriter
    case ArrayType(_: StringType | _: CharType | _: VarcharType, _) => StringArrayWriter
    case ArrayType(e, _) => new ArrayWriter(apply(e, column))
    case s: StructType => StructWriter.declared(s, column)
    case m: MapType => new MapWriter(m, column)
    case u: UserDefinedType[_] => apply(u.sqlType, column)
    case other => throw new RowsV1Error(s"column '$column': type ${other.catalogString} has no canonical text")
  }

  /** The node writing a map key as a JSON string of its text (2.4). */
  def forKey(dt: DataType, column: String): ValueWriter = dt match {
    case FloatType => new FloatWriter(quoted = true)
    case DoubleType => new DoubleWriter(quoted = true)
    case d: DecimalType => new DecimalWriter(d, quoted = true)
    case BooleanType | ByteType | ShortType | IntegerType | LongType => new QuotedWriter(apply(dt, column))
    case u: UserDefinedType[_] => forKey(u.sqlType, column)
    case _ => apply(dt, column) // strings, binary, dates and timestamps are already quoted
  }

  /** `"name":` as bytes, the name escaped per 2.2. */
  def memberPrefix(name: String): Array[Byte] = {
    val b = new LineBuffer(name.length * 2 + 8)
    b.putQuoted(name.getBytes(UTF_8))
    b.put(':')
    b.toArray
  }
}

object BooleanWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = put(out, src.getBoolean(i))
  def put(out: LineBuffer, v: Boolean): Unit = { out.ensure(LineText.BooleanRoom); out.pos = LineText.writeBoolean(out.bytes, out.pos, v) }
}

object ByteWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = out.putInt(src.getByte(i).toInt)
}

object ShortWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = out.putInt(src.getShort(i).toInt)
}

object IntWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = out.putInt(src.getInt(i))
}

object LongWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = out.putLong(src.getLong(i))
}

/** Finite doubles unquoted (or quoted, for keys); NaN and infinities as JSON strings. */
final class DoubleWriter(quoted: Boolean) extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = DoubleWriter.put(out, src.getDouble(i), quoted)
}

object DoubleWriter {
  def put(out: LineBuffer, v: Double, quoted: Boolean): Unit =
    if (quoted && !java.lang.Double.isNaN(v) && !java.lang.Double.isInfinite(v)) { out.put('"'); out.putDouble(v); out.put('"') }
    else { out.ensure(LineText.DoubleRoom); out.pos = LineText.writeDouble(out.bytes, out.pos, v) }
}

final class FloatWriter(quoted: Boolean) extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = FloatWriter.put(out, src.getFloat(i), quoted)
}

object FloatWriter {
  def put(out: LineBuffer, v: Float, quoted: Boolean): Unit =
    if (quoted && !java.lang.Float.isNaN(v) && !java.lang.Float.isInfinite(v)) { out.put('"'); out.putFloat(v); out.put('"') }
    else { out.ensure(LineText.DoubleRoom); out.pos = LineText.writeFloat(out.bytes, out.pos, v) }
}

/** `BigDecimal.toString` at the column's scale. */
final class DecimalWriter(dt: DecimalType, quoted: Boolean) extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = {
    val d = src.getDecimal(i, dt.precision, dt.scale)
    if (quoted) out.put('"')
    if (d.scale == dt.scale) out.putDecimal(d)
    else out.putAscii(d.toJavaBigDecimal.setScale(dt.scale).toString)
    if (quoted) out.put('"')
  }
}

object StringWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = out.putQuoted(src.getUTF8String(i))
}

object BinaryWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = out.putBase64(src.getBinary(i))
}

object DateWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = out.putQuotedDate(src.getInt(i))
}

/** Instants in UTC with a `Z`; wall-clock values (`timestamp_ntz`) without. */
final class TimestampWriter(zulu: Boolean) extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = {
    out.ensure(LineText.TimestampRoom)
    out.pos = LineText.quotedTimestamp(out.bytes, out.pos, src.getLong(i), zulu)
  }
}

/** The `void` type: only ever null, written `null` inside lists and maps. */
object NullWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = out.putAscii("null")
}

/** Integers and booleans as map keys: their text in quotes. */
final class QuotedWriter(inner: ValueWriter) extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = {
    out.put('"'); inner.write(out, src, i); out.put('"')
  }
}

/** `[` elements `]`, null elements as `null`. */
final class ArrayWriter(element: ValueWriter) extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = {
    val a = src.getArray(i)
    val n = a.numElements()
    out.put('[')
    var j = 0
    while (j < n) {
      if (j > 0) out.put(',')
      if (a.isNullAt(j)) out.putAscii("null") else element.write(out, a, j)
      j += 1
    }
    out.put(']')
  }
}

/** [[ArrayWriter]] of string elements (a common column shape), with no call through an
  * element node per element. Generated code calls [[put]] directly.
  */
object StringArrayWriter extends ValueWriter {
  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = put(out, src.getArray(i))

  def put(out: LineBuffer, a: ArrayData): Unit = a match {
    case u: UnsafeArrayData => putUnsafe(out, u)
    case _ =>
      val n = a.numElements()
      out.put('[')
      var j = 0
      while (j < n) {
        if (j > 0) out.put(',')
        if (a.isNullAt(j)) out.putAscii("null") else out.putQuoted(a.getUTF8String(j))
        j += 1
      }
      out.put(']')
  }

  /** The elements read where they lie, with no `UTF8String` per element (rows in
    * Spark's binary form, e.g. every row a write or an observation sees). The layout is
    * `UnsafeArrayData`'s own: the element count, the null bits, then one 8-byte slot per
    * element holding `offset << 32 | size` of its bytes, the offset counted from the
    * array's start (what `UnsafeArrayData.getUTF8String` reads).
    */
  private def putUnsafe(out: LineBuffer, a: UnsafeArrayData): Unit = {
    val n = a.numElements()
    val base = a.getBaseObject
    val start = a.getBaseOffset
    val slots = start + UnsafeArrayData.calculateHeaderPortionInBytes(n)
    out.put('[')
    var j = 0
    while (j < n) {
      if (j > 0) out.put(',')
      if (a.isNullAt(j)) out.putAscii("null")
      else {
        val offsetAndSize = Platform.getLong(base, slots + 8L * j)
        out.putQuoted(base, start + (offsetAndSize >> 32), offsetAndSize.toInt)
      }
      j += 1
    }
    out.put(']')
  }
}
