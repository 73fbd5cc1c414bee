package io.ubunye.spark.rowsv1

import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/** The texts of the common values written at a position of a line's array: each
  * writer takes the array, the position and the value, and returns the end. The
  * caller has made room first (the `...Room` constant of the writer, counted from the
  * position; word stores may write meaningless bytes up to it, after the text).
  *
  * [[LineBuffer]]'s `put` methods call these writers after making room; generated code
  * calls them with the array and the position in local variables, so no buffer field
  * is read or written per value (see `io.ubunye.spark.observe.LineFunctions`).
  */
object LineText {
  import LineBuffer.{WordStores, decimalLength, putDigits, writeCivilDate}

  private final val ArrayBase = Platform.BYTE_ARRAY_OFFSET

  final val PrefixRoom = 16
  final val BooleanRoom = 8
  final val LongRoom = 32
  final val DoubleRoom = 32
  final val DateRoom = 24
  final val TimestampRoom = 48
  /** Room of a string of `n` bytes written by [[plainString]] (no escape in it). */
  final val StringRoom = 2

  private val Words: Array[Long] = Array("true", "false").map(s => LineBuffer.asWords(s.getBytes("US-ASCII"))._1)

  /** A member prefix given as words ([[StructWriter.memberWords]]): `first0`, `first1`
    * (`firstLength` bytes) for the first member, `next0`, `next1` (`nextLength`) after it.
    */
  def prefix(out: Array[Byte], pos: Int, first: Boolean,
             first0: Long, first1: Long, firstLength: Int, next0: Long, next1: Long, nextLength: Int): Int =
    if (first) words(out, pos, first0, first1, firstLength) else words(out, pos, next0, next1, nextLength)

  /** The first `n` (<= 16) bytes of two little-endian words ([[LineBuffer.asWords]]). */
  def words(out: Array[Byte], pos: Int, w0: Long, w1: Long, n: Int): Int = {
    if (WordStores) {
      Platform.putLong(out, ArrayBase + pos, w0)
      Platform.putLong(out, ArrayBase + pos + 8, w1)
    } else wordBytes(out, pos, w0, w1, n)
    pos + n
  }

  /** [[words]] byte by byte (machines without unaligned little-endian word stores). */
  private[rowsv1] def wordBytes(out: Array[Byte], pos: Int, w0: Long, w1: Long, n: Int): Unit = {
    var i = 0
    while (i < n) { out(pos + i) = ((if (i < 8) w0 >>> (8 * i) else w1 >>> (8 * (i - 8))) & 0xff).toByte; i += 1 }
  }

  def writeBoolean(out: Array[Byte], pos: Int, v: Boolean): Int =
    if (v) words(out, pos, Words(0), 0L, 4) else words(out, pos, Words(1), 0L, 5)

  /** Any integer type, as its digits. */
  def writeLong(out: Array[Byte], pos: Int, v: Long): Int =
    if (v >= 0) putDigits(out, pos, v, decimalLength(v))
    else if (v != Long.MinValue) { out(pos) = '-'; putDigits(out, pos + 1, -v, decimalLength(-v)) }
    else ascii(out, pos, "-9223372036854775808") // -v overflows

  /** A double's text (JDK 19+ `Double.toString`); NaN and the infinities as JSON strings. */
  def writeDouble(out: Array[Byte], pos: Int, v: Double): Int =
    if (java.lang.Double.isNaN(v) || java.lang.Double.isInfinite(v)) nonFinite(out, pos, v)
    else ShortestDecimal.writeDouble(out, pos, v)

  /** A float's text (JDK 19+ `Float.toString`); NaN and the infinities as JSON strings. */
  def writeFloat(out: Array[Byte], pos: Int, v: Float): Int =
    if (java.lang.Float.isNaN(v) || java.lang.Float.isInfinite(v)) nonFinite(out, pos, v.toDouble)
    else ShortestDecimal.writeFloat(out, pos, v)

  private def nonFinite(out: Array[Byte], pos: Int, v: Double): Int =
    ascii(out, pos, if (java.lang.Double.isNaN(v)) "\"NaN\"" else if (v > 0) "\"Infinity\"" else "\"-Infinity\"")

  /** `"yyyy-MM-dd"` of days since 1970-01-01. */
  def quotedDate(out: Array[Byte], pos: Int, days: Int): Int = {
    out(pos) = '"'
    val end = writeCivilDate(out, pos + 1, days.toLong)
    out(end) = '"'
    end + 1
  }

  /** `"yyyy-MM-ddTHH:mm:ss.ffffff"` of microseconds since the epoch, with a `Z` before
    * the closing quote when `zulu` (instants; not for `timestamp_ntz`).
    */
  def quotedTimestamp(out: Array[Byte], pos: Int, micros: Long, zulu: Boolean): Int = {
    out(pos) = '"'
    var end = LineBuffer.writeTimestamp(out, pos + 1, micros)
    if (zulu) { out(end) = 'Z'; end += 1 }
    out(end) = '"'
    end + 1
  }

  /** `v` as a JSON string when none of its bytes needs an escape (room: its bytes plus
    * [[StringRoom]]); else -1, and the caller writes it with [[LineBuffer.putQuoted]].
    */
  def plainString(out: Array[Byte], pos: Int, v: UTF8String): Int =
    LineBuffer.plainQuoted(out, pos, v.getBaseObject, v.getBaseOffset, v.numBytes)

  /** `null` as an array element, after a comma unless it is the `first` (room: 5). */
  def nullElement(out: Array[Byte], pos: Int, first: Boolean): Int =
    ascii(out, pos, if (first) "null" else ",null")

  private def ascii(out: Array[Byte], pos: Int, s: String): Int = {
    var i = 0
    while (i < s.length) { out(pos + i) = s.charAt(i).toByte; i += 1 }
    pos + s.length
  }
}
