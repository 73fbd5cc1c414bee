package io.ubunye.spark.rowsv1

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types._

/** An object of the entries sorted by key value (2.4): strings by code point,
  * numbers numerically, `false` before `true`, dates and timestamps in time order,
  * binary by unsigned bytes. Keys are written as JSON strings of their text, values
  * as values (`null` kept). A key present twice has no canonical text: error.
  */
final class MapWriter(dt: MapType, column: String) extends ValueWriter {
  private val keyWriter = ValueWriter.forKey(dt.keyType, column)
  private val valueWriter = ValueWriter(dt.valueType, column)
  private val order = MapWriter.keyOrder(dt.keyType)
  private var index = new Array[Int](16)
  private var scratch = new Array[Int](16)

  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit = {
    val m = src.getMap(i)
    val n = m.numElements()
    val keys = m.keyArray()
    val values = m.valueArray()
    if (index.length < n) { index = new Array[Int](n); scratch = new Array[Int](n) }
    var j = 0
    while (j < n) { index(j) = j; j += 1 }
    sort(keys, 0, n)
    out.put('{')
    j = 0
    while (j < n) {
      val e = index(j)
      if (j > 0) {
        if (order.compare(keys, index(j - 1), e) == 0) duplicate(keys, e)
        out.put(',')
      }
      keyWriter.write(out, keys, e)
      out.put(':')
      if (values.isNullAt(e)) out.putAscii("null") else valueWriter.write(out, values, e)
      j += 1
    }
    out.put('}')
  }

  /** Merge sort of index[from, until) by key (insertion sort for short runs). */
  private def sort(keys: ArrayData, from: Int, until: Int): Unit = {
    if (until - from <= 12) {
      var a = from + 1
      while (a < until) {
        val x = index(a)
        var b = a - 1
        while (b >= from && order.compare(keys, index(b), x) > 0) { index(b + 1) = index(b); b -= 1 }
        index(b + 1) = x
        a += 1
      }
    } else {
      val mid = (from + until) >>> 1
      sort(keys, from, mid)
      sort(keys, mid, until)
      System.arraycopy(index, from, scratch, from, until - from)
      var l = from
      var r = mid
      var o = from
      while (o < until) {
        if (r >= until || (l < mid && order.compare(keys, scratch(l), scratch(r)) <= 0)) { index(o) = scratch(l); l += 1 }
        else { index(o) = scratch(r); r += 1 }
        o += 1
      }
    }
  }

  private def duplicate(keys: ArrayData, e: Int): Nothing = {
    val b = new LineBuffer(64)
    keyWriter.write(b, keys, e)
    val text = new String(b.bytes, 0, b.pos, java.nio.charset.StandardCharsets.UTF_8)
    throw new RowsV1Error(s"column '$column' (${Kinds.kindOf(dt).getOrElse(dt.catalogString)}): " +
      s"the map holds the key $text twice, which has no canonical text")
  }
}

object MapWriter {

  /** Compares two keys of one key array by value. */
  abstract class KeyOrder {
    def compare(keys: ArrayData, a: Int, b: Int): Int
  }

  def keyOrder(dt: DataType): KeyOrder = dt match {
    case BooleanType => (k, a, b) => java.lang.Boolean.compare(k.getBoolean(a), k.getBoolean(b))
    case ByteType => (k, a, b) => java.lang.Byte.compare(k.getByte(a), k.getByte(b))
    case ShortType => (k, a, b) => java.lang.Short.compare(k.getShort(a), k.getShort(b))
    case IntegerType | DateType => (k, a, b) => Integer.compare(k.getInt(a), k.getInt(b))
    case LongType | TimestampType | TimestampNTZType => (k, a, b) => java.lang.Long.compare(k.getLong(a), k.getLong(b))
    case FloatType => (k, a, b) => java.lang.Float.compare(k.getFloat(a), k.getFloat(b))
    case DoubleType => (k, a, b) => java.lang.Double.compare(k.getDouble(a), k.getDouble(b))
    case d: DecimalType =>
      (k, a, b) => k.getDecimal(a, d.precision, d.scale).compare(k.getDecimal(b, d.precision, d.scale))
    case _: StringType | _: CharType | _: VarcharType =>
      (k, a, b) => k.getUTF8String(a).compareTo(k.getUTF8String(b))
    case BinaryType => (k, a, b) => Kinds.compareUnsigned(k.getBinary(a), k.getBinary(b))
    case u: UserDefinedType[_] => keyOrder(u.sqlType)
    case other => throw new RowsV1Error(s"map key of type ${other.catalogString} has no canonical text")
  }
}
