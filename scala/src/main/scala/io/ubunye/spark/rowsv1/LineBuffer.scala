package io.ubunye.spark.rowsv1

import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/** A growable byte buffer holding one canonical line, with the writers of the rows-v1
  * scalar texts (spec section 2.2 and 2.3). One per kernel, reused for every row.
  */
final class LineBuffer(initialCapacity: Int = 512) {
  import LineBuffer._

  /** The line's bytes; valid up to [[pos]]. */
  var bytes: Array[Byte] = new Array[Byte](initialCapacity)
  /** The end of the written part. */
  var pos: Int = 0

  def reset(): Unit = pos = 0

  /** Makes room for `n` more bytes. */
  @inline def ensure(n: Int): Unit = if (pos + n > bytes.length) grow(n)

  private def grow(n: Int): Unit = {
    val need = pos.toLong + n
    if (need > Int.MaxValue - 16) throw new RowsV1Error("a canonical line longer than 2 GB")
    val size = math.max(need, math.min(bytes.length.toLong * 2, Int.MaxValue - 16L)).toInt
    bytes = java.util.Arrays.copyOf(bytes, size)
  }

  @inline def put(b: Byte): Unit = { ensure(1); bytes(pos) = b; pos += 1 }
  @inline def put(c: Char): Unit = put(c.toByte)

  /** Raw bytes (already canonical). */
  def put(src: Array[Byte]): Unit = {
    val n = src.length
    ensure(n)
    if (n <= 16) { // short member prefixes and constants: a loop beats arraycopy's call
      var i = 0
      while (i < n) { bytes(pos + i) = src(i); i += 1 }
    } else System.arraycopy(src, 0, bytes, pos, n)
    pos += n
  }

  def putInt(v: Int): Unit = putLong(v.toLong)

  def putLong(v: Long): Unit = {
    ensure(20)
    if (v < 0) {
      bytes(pos) = '-'; pos += 1
      if (v == Long.MinValue) { putAsciiUnchecked("9223372036854775808"); return }
      pos = putPositiveLong(bytes, pos, -v, decimalLength(-v))
    } else {
      pos = putPositiveLong(bytes, pos, v, decimalLength(v))
    }
  }

  /** Java's `Double.toString` (JDK 19+) of a finite value. */
  def putDouble(v: Double): Unit = { ensure(ShortestDecimal.MaxChars); pos = ShortestDecimal.writeDouble(bytes, pos, v) }

  /** Java's `Float.toString` (JDK 19+) of a finite value. */
  def putFloat(v: Float): Unit = { ensure(ShortestDecimal.MaxChars); pos = ShortestDecimal.writeFloat(bytes, pos, v) }

  def putAscii(s: String): Unit = { ensure(s.length); putAsciiUnchecked(s) }

  private def putAsciiUnchecked(s: String): Unit = {
    var i = 0
    while (i < s.length) { bytes(pos + i) = s.charAt(i).toByte; i += 1 }
    pos += s.length
  }

  /** A JSON string of the UTF-8 bytes, escaped as Jackson escapes (spec 2.2). */
  def putQuoted(s: UTF8String): Unit = {
    val n = s.numBytes
    ensure(n + 2)
    bytes(pos) = '"'
    val start = pos + 1
    s.writeToMemory(bytes, Platform.BYTE_ARRAY_OFFSET + start)
    var i = start
    val end = start + n
    while (i < end && !needsEscape(bytes(i))) i += 1
    if (i == end) {
      bytes(end) = '"'
      pos = end + 1
    } else {
      // rare: copy the tail out and write it again with escapes
      val tail = java.util.Arrays.copyOfRange(bytes, i, end)
      pos = i
      putEscaped(tail, 0, tail.length)
      put('"')
    }
  }

  /** A JSON string of UTF-8 bytes (names, keys), escaped as Jackson escapes. */
  def putQuoted(utf8: Array[Byte]): Unit = {
    put('"'); putEscaped(utf8, 0, utf8.length); put('"')
  }

  private def putEscaped(src: Array[Byte], from: Int, until: Int): Unit = {
    var i = from
    while (i < until) {
      val b = src(i)
      if (!needsEscape(b)) put(b)
      else {
        ensure(6)
        bytes(pos) = '\\'
        b match {
          case '"' => bytes(pos + 1) = '"'; pos += 2
          case '\\' => bytes(pos + 1) = '\\'; pos += 2
          case '\b' => bytes(pos + 1) = 'b'; pos += 2
          case '\t' => bytes(pos + 1) = 't'; pos += 2
          case '\n' => bytes(pos + 1) = 'n'; pos += 2
          case '\f' => bytes(pos + 1) = 'f'; pos += 2
          case '\r' => bytes(pos + 1) = 'r'; pos += 2
          case _ =>
            bytes(pos + 1) = 'u'; bytes(pos + 2) = '0'; bytes(pos + 3) = '0'
            bytes(pos + 4) = UpperHex(b >> 4); bytes(pos + 5) = UpperHex(b & 15)
            pos += 6
        }
      }
      i += 1
    }
  }

  /** A JSON string of standard Base64 with padding. */
  def putBase64(src: Array[Byte]): Unit = {
    val n = src.length
    ensure((n + 2) / 3 * 4 + 2)
    bytes(pos) = '"'
    var p = pos + 1
    var i = 0
    while (i + 3 <= n) {
      val v = ((src(i) & 0xff) << 16) | ((src(i + 1) & 0xff) << 8) | (src(i + 2) & 0xff)
      bytes(p) = Base64(v >>> 18); bytes(p + 1) = Base64((v >>> 12) & 63)
      bytes(p + 2) = Base64((v >>> 6) & 63); bytes(p + 3) = Base64(v & 63)
      p += 4; i += 3
    }
    if (n - i == 1) {
      val v = (src(i) & 0xff) << 16
      bytes(p) = Base64(v >>> 18); bytes(p + 1) = Base64((v >>> 12) & 63)
      bytes(p + 2) = '='; bytes(p + 3) = '='; p += 4
    } else if (n - i == 2) {
      val v = ((src(i) & 0xff) << 16) | ((src(i + 1) & 0xff) << 8)
      bytes(p) = Base64(v >>> 18); bytes(p + 1) = Base64((v >>> 12) & 63)
      bytes(p + 2) = Base64((v >>> 6) & 63); bytes(p + 3) = '='; p += 4
    }
    bytes(p) = '"'
    pos = p + 1
  }

  /** `yyyy-MM-dd` of days since 1970-01-01 (proleptic Gregorian), unquoted. */
  def putDate(days: Int): Unit = {
    ensure(16)
    pos = writeCivilDate(bytes, pos, days.toLong)
  }

  /** `yyyy-MM-ddTHH:mm:ss.ffffff` of microseconds since the epoch, unquoted. */
  def putTimestamp(micros: Long): Unit = {
    ensure(32)
    val days = Math.floorDiv(micros, MicrosPerDay)
    val inDay = Math.floorMod(micros, MicrosPerDay)
    var p = writeCivilDate(bytes, pos, days)
    val secs = inDay / 1000000L
    val frac = (inDay % 1000000L).toInt
    bytes(p) = 'T'
    put2(bytes, p + 1, (secs / 3600).toInt); bytes(p + 3) = ':'
    put2(bytes, p + 4, ((secs / 60) % 60).toInt); bytes(p + 6) = ':'
    put2(bytes, p + 7, (secs % 60).toInt); bytes(p + 9) = '.'
    put2(bytes, p + 10, frac / 10000); put2(bytes, p + 12, (frac / 100) % 100); put2(bytes, p + 14, frac % 100)
    pos = p + 16
  }

  /** `BigDecimal.toString` of a Spark decimal at its scale, unquoted. */
  def putDecimal(d: org.apache.spark.sql.types.Decimal): Unit = {
    val scale = d.scale
    if (d.precision <= 18 && scale >= 0) {
      val u = d.toUnscaledLong
      val mag = if (u < 0) -u else u // |u| < 10^18
      val n = decimalLength(mag)
      if (n - 1 - scale >= -6) { putPlainDecimal(u < 0, mag, n, scale); return }
    }
    putAscii(d.toJavaBigDecimal.toString)
  }

  private def putPlainDecimal(negative: Boolean, mag: Long, n: Int, scale: Int): Unit = {
    ensure(n + scale + 3)
    if (negative) { bytes(pos) = '-'; pos += 1 }
    if (scale == 0) pos = putPositiveLong(bytes, pos, mag, n)
    else if (n > scale) {
      putPositiveLong(bytes, pos + 1, mag, n)
      System.arraycopy(bytes, pos + 1, bytes, pos, n - scale)
      bytes(pos + n - scale) = '.'
      pos += n + 1
    } else {
      bytes(pos) = '0'; bytes(pos + 1) = '.'; pos += 2
      var z = scale - n
      while (z > 0) { bytes(pos) = '0'; pos += 1; z -= 1 }
      pos = putPositiveLong(bytes, pos, mag, n)
    }
  }

  /** The line as a new array. */
  def toArray: Array[Byte] = java.util.Arrays.copyOf(bytes, pos)
}

object LineBuffer {
  private final val MicrosPerDay = 86400000000L
  private val UpperHex: Array[Byte] = "0123456789ABCDEF".getBytes("US-ASCII")
  private val Base64: Array[Byte] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes("US-ASCII")

  @inline private def needsEscape(b: Byte): Boolean = (b >= 0 && b < 0x20) || b == '"' || b == '\\'

  /** Number of decimal digits of v >= 0 (1 for 0). */
  def decimalLength(v: Long): Int = {
    var n = 1
    var p = 10L
    while (n < 19 && v >= p) { n += 1; p *= 10 }
    n
  }

  /** Writes the `len` digits of v >= 0 at pos; returns the end. */
  def putPositiveLong(out: Array[Byte], pos: Int, v0: Long, len: Int): Int = {
    var v = v0
    var i = pos + len - 1
    while (i >= pos) { out(i) = ('0' + (v % 10)).toByte; v /= 10; i -= 1 }
    pos + len
  }

  @inline private def put2(out: Array[Byte], pos: Int, v: Int): Unit = {
    out(pos) = ('0' + v / 10).toByte; out(pos + 1) = ('0' + v % 10).toByte
  }

  /** `yyyy-MM-dd` (year zero-padded to four digits) of a day number; returns the end.
    * Civil-from-days after Howard Hinnant's algorithm (proleptic Gregorian).
    */
  private def writeCivilDate(out: Array[Byte], pos: Int, days: Long): Int = {
    val z = days + 719468
    val era = Math.floorDiv(z, 146097L)
    val doe = z - era * 146097
    val yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    val doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    val mp = (5 * doy + 2) / 153
    val d = (doy - (153 * mp + 2) / 5 + 1).toInt
    val m = (if (mp < 10) mp + 3 else mp - 9).toInt
    val y = yoe + era * 400 + (if (m <= 2) 1 else 0)
    var p = pos
    if (y >= 0 && y <= 9999) {
      val yi = y.toInt
      put2(out, p, yi / 100); put2(out, p + 2, yi % 100); p += 4
    } else {
      // outside 0000..9999: a sign and at least four digits, as Spark's `to_json`
      // prints them (`+12921-08-18`, `-0001-01-01`)
      out(p) = (if (y > 9999) '+' else '-').toByte
      val a = math.abs(y)
      p = putPositiveLong(out, p + 1, a, math.max(4, decimalLength(a)))
    }
    out(p) = '-'; put2(out, p + 1, m); out(p + 3) = '-'; put2(out, p + 4, d)
    p + 6
  }
}
