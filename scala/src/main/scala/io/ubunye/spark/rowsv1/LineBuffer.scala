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
    if (n > 16 || !Unaligned) System.arraycopy(src, 0, bytes, pos, n)
    else if (n >= 4) {
      // short member prefixes and constants: two word copies, the second ending at n and
      // overlapping the first (both in bounds: ensure above), beat a byte loop and
      // arraycopy's call
      val at = Platform.BYTE_ARRAY_OFFSET + pos
      val from = Platform.BYTE_ARRAY_OFFSET
      if (n >= 8) {
        Platform.putLong(bytes, at, Platform.getLong(src, from))
        Platform.putLong(bytes, at + n - 8, Platform.getLong(src, from + n - 8))
      } else {
        Platform.putInt(bytes, at, Platform.getInt(src, from))
        Platform.putInt(bytes, at + n - 4, Platform.getInt(src, from + n - 4))
      }
    } else {
      var i = 0
      while (i < n) { bytes(pos + i) = src(i); i += 1 }
    }
    pos += n
  }

  /** The first `n` (<= 16) bytes held in two little-endian words (the first byte lowest
    * in `w0`, see [[LineBuffer.asWords]]): two word stores ([[LineText.words]]).
    */
  @inline def putWords(w0: Long, w1: Long, n: Int): Unit = { ensure(LineText.PrefixRoom); pos = LineText.words(bytes, pos, w0, w1, n) }

  def putInt(v: Int): Unit = putLong(v.toLong)

  def putLong(v: Long): Unit = { ensure(LineText.LongRoom); pos = LineText.writeLong(bytes, pos, v) }

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
  def putQuoted(s: UTF8String): Unit = putQuoted(s.getBaseObject, s.getBaseOffset, s.numBytes)

  /** A JSON string of UTF-8 bytes (names, keys), escaped as Jackson escapes. */
  def putQuoted(utf8: Array[Byte]): Unit = putQuoted(utf8, Platform.BYTE_ARRAY_OFFSET, utf8.length)

  /** A JSON string of the `n` UTF-8 bytes at `base` + `offset` (as [[UTF8String]]
    * addresses them: an array and `Platform.BYTE_ARRAY_OFFSET` on heap, null and an
    * address off heap), escaped as Jackson escapes.
    */
  private[rowsv1] def putQuoted(base: AnyRef, offset: Long, n: Int): Unit = {
    ensure(n + LineText.StringRoom)
    val end = plainQuoted(bytes, pos, base, offset, n)
    if (end >= 0) pos = end
    else { put('"'); putEscaped(base, offset, 0, n); put('"') } // the rare path: some byte needs an escape
  }

  /** Bytes [from, until) at `base` + `offset`, escaped (the rare path of putQuoted). */
  private def putEscaped(base: AnyRef, offset: Long, from: Int, until: Int): Unit = {
    var i = from
    while (i < until) {
      val b = Platform.getByte(base, offset + i)
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

  /** `"yyyy-MM-dd"`: [[putDate]] in quotes, with one bounds check. */
  def putQuotedDate(days: Int): Unit = { ensure(LineText.DateRoom); pos = LineText.quotedDate(bytes, pos, days) }

  /** `yyyy-MM-ddTHH:mm:ss.ffffff` of microseconds since the epoch, unquoted. */
  def putTimestamp(micros: Long): Unit = { ensure(LineText.TimestampRoom); pos = writeTimestamp(bytes, pos, micros) }

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

  private final val Ones = 0x0101010101010101L
  private final val Highs = 0x8080808080808080L

  /** Whether any of the eight bytes of `w` needs an escape ([[needsEscape]] byte-wise).
    * "Has a byte less than n" and "has a zero byte" from Sean Anderson's Bit Twiddling
    * Hacks (exact as yes/no answers; bytes 0x80..0xff never match, as in needsEscape).
    */
  @inline private def anyNeedsEscape(w: Long): Boolean = {
    val quote = w ^ (Ones * '"')
    val backslash = w ^ (Ones * '\\')
    val control = (w - Ones * 0x20) & ~w // a byte below 0x20
    ((control | ((quote - Ones) & ~quote) | ((backslash - Ones) & ~backslash)) & Highs) != 0L
  }

  /** Eight-byte loads and stores at any offset (as Spark's `ByteArrayMethods` checks). */
  private val Unaligned: Boolean = Platform.unaligned()

  /** Digits written as little-endian words ([[eightDigits]]): unaligned 8-byte stores
    * on a little-endian machine (x86-64, aarch64); byte stores elsewhere.
    */
  private[rowsv1] val WordStores: Boolean =
    Unaligned && java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN

  /** `b` (at most 16 bytes) as the two little-endian words [[LineBuffer.putWords]] takes. */
  private[rowsv1] def asWords(b: Array[Byte]): (Long, Long) = {
    require(b.length <= 16, "at most 16 bytes")
    def word(from: Int): Long =
      (0 until 8).foldLeft(0L)((w, i) => if (from + i < b.length) w | ((b(from + i) & 0xffL) << (8 * i)) else w)
    (word(0), word(8))
  }

  /** 10^0 .. 10^18. */
  private[rowsv1] val PowersOfTen: Array[Long] = Array.iterate(1L, 19)(_ * 10)

  /** "00", "01", .. "99": two digits per table read instead of one division each. */
  private val DigitPairs: Array[Byte] =
    (0 until 100).flatMap(n => Seq('0' + n / 10, '0' + n % 10)).map(_.toByte).toArray

  /** Number of decimal digits of v >= 0 (1 for 0). */
  def decimalLength(v: Long): Int = {
    // floor(log10(2^bits)) from the bit length (1233 / 4096 ~ log10(2)), then one
    // compare fixes it; v | 1 has the digit count of v and keeps 0 at one digit
    val w = v | 1L
    val t = ((64 - java.lang.Long.numberOfLeadingZeros(w)) * 1233) >>> 12
    if (w >= PowersOfTen(t)) t + 1 else t
  }

  /** Writes v >= 0 as exactly `len` digits at pos, zero-padded on the left when `len`
    * exceeds [[decimalLength]] (never less); returns the end.
    */
  def putPositiveLong(out: Array[Byte], pos: Int, v: Long, len: Int): Int = putDigitPairs(out, pos, v, len)

  /** [[putPositiveLong]] (len <= 19) by words where the array has room for them
    * ([[putDigitWords]]; may write bytes of no meaning up to pos + 8, after the
    * digits), else by pairs: for integer columns and the parts of a double's text.
    */
  private[rowsv1] def putDigits(out: Array[Byte], pos: Int, v: Long, len: Int): Int =
    if (WordStores && pos + 8 <= out.length) putDigitWords(out, pos, v, len)
    else putDigitPairs(out, pos, v, len)

  /** Exactly `len` (<= 19) digits of v, eight per word store, the first word holding
    * the leading `len - 8 (chunks - 1)` digits (v < 10^len splits into at most three
    * chunks below 10^8); needs room up to max(pos + len, pos + 8).
    */
  private[rowsv1] def putDigitWords(out: Array[Byte], pos: Int, v: Long, len: Int): Int = {
    val at = Platform.BYTE_ARRAY_OFFSET + pos
    if (len <= 8) Platform.putLong(out, at, eightDigits(v.toInt) >>> ((8 - len) << 3))
    else if (len <= 16) {
      val hi = v / 100000000L
      Platform.putLong(out, at, eightDigits(hi.toInt) >>> ((16 - len) << 3))
      Platform.putLong(out, at + len - 8, eightDigits((v - hi * 100000000L).toInt))
    } else {
      val hi = v / 10000000000000000L
      val rest = v - hi * 10000000000000000L
      val mid = rest / 100000000L
      Platform.putLong(out, at, eightDigits(hi.toInt) >>> ((24 - len) << 3))
      Platform.putLong(out, at + len - 16, eightDigits(mid.toInt))
      Platform.putLong(out, at + len - 8, eightDigits((rest - mid * 100000000L).toInt))
    }
    pos + len
  }

  /** The eight ASCII digits of 0 <= v < 10^8 (zero-padded) as one little-endian word,
    * the first digit in the lowest byte. Divisions by constants in parallel lanes of
    * one long ("SWAR"): v splits into two 4-digit halves (32-bit lanes), each into two
    * 2-digit quarters (16-bit lanes), each into two digits (bytes). Each quotient is a
    * multiply and a shift, exact in its range: x / 10^4 = x * 109951163 >> 40 for
    * x < 4.9e8, x / 100 = x * 10486 >> 20 for x < 43690, x / 10 = x * 103 >> 10 for
    * x < 170; no lane's product reaches the next lane.
    */
  @inline private[rowsv1] def eightDigits(v: Int): Long = {
    val hi = (v.toLong * 109951163L) >>> 40
    val x = hi | ((v - hi * 10000L) << 32)
    val hundreds = ((x * 10486L) >>> 20) & 0x0000007f0000007fL
    val y = hundreds | ((x - hundreds * 100L) << 16)
    val tens = ((y * 103L) >>> 10) & 0x000f000f000f000fL
    (tens | ((y - tens * 10L) << 8)) + 0x3030303030303030L
  }

  /** [[putPositiveLong]] two digits per table read, byte stores only (any JVM). */
  private def putDigitPairs(out: Array[Byte], pos: Int, v0: Long, len: Int): Int = {
    val end = pos + len
    var i = end
    var v = v0
    // above the int range: eight digits per long division, then int arithmetic
    while (v > Int.MaxValue) {
      val q = v / 100000000L
      val r = (v - q * 100000000L).toInt
      val hi = r / 10000
      val lo = r - hi * 10000
      putPair(out, i - 2, lo % 100); putPair(out, i - 4, lo / 100)
      putPair(out, i - 6, hi % 100); putPair(out, i - 8, hi / 100)
      i -= 8
      v = q
    }
    var u = v.toInt
    while (u >= 100) {
      val q = u / 100
      putPair(out, i - 2, u - q * 100)
      i -= 2
      u = q
    }
    if (u >= 10) { putPair(out, i - 2, u); i -= 2 }
    else { i -= 1; out(i) = ('0' + u).toByte }
    while (i > pos) { i -= 1; out(i) = '0' }
    end
  }

  /** The two digits of 0 <= v < 100 at pos. */
  @inline private def putPair(out: Array[Byte], pos: Int, v: Int): Unit = {
    out(pos) = DigitPairs(2 * v); out(pos + 1) = DigitPairs(2 * v + 1)
  }

  /** `"` + the `n` UTF-8 bytes at `base` + `offset` + `"` at `pos` (room: n + 2) when
    * none of them needs an escape; returns the end, or -1 when one does (nothing
    * meaningful written then). Eight bytes are checked and copied at a time while eight
    * remain, then one word ending at n (overlapping bytes already checked).
    */
  private[rowsv1] def plainQuoted(out: Array[Byte], pos: Int, base: AnyRef, offset: Long, n: Int): Int = {
    out(pos) = '"'
    val start = pos + 1
    val at = Platform.BYTE_ARRAY_OFFSET + start
    var i = 0
    while (Unaligned && i + 8 <= n && !anyNeedsEscape(Platform.getLong(base, offset + i))) {
      Platform.putLong(out, at + i, Platform.getLong(base, offset + i))
      i += 8
    }
    if (Unaligned && i < n && i + 8 > n && n >= 8 && !anyNeedsEscape(Platform.getLong(base, offset + n - 8))) {
      Platform.putLong(out, at + n - 8, Platform.getLong(base, offset + n - 8))
      i = n
    }
    while (i < n) {
      val b = Platform.getByte(base, offset + i)
      if (needsEscape(b)) return -1
      out(start + i) = b
      i += 1
    }
    out(start + n) = '"'
    start + n + 1
  }

  /** `yyyy-MM-ddTHH:mm:ss.ffffff` of microseconds since the epoch, unquoted, at `pos`
    * (room: 32); returns the end.
    */
  private[rowsv1] def writeTimestamp(out: Array[Byte], pos: Int, micros: Long): Int = {
    val days = Math.floorDiv(micros, MicrosPerDay)
    val inDay = Math.floorMod(micros, MicrosPerDay)
    val p = writeCivilDate(out, pos, days)
    val secs = inDay / 1000000L
    val frac = (inDay % 1000000L).toInt
    out(p) = 'T'
    putPair(out, p + 1, (secs / 3600).toInt); out(p + 3) = ':'
    putPair(out, p + 4, ((secs / 60) % 60).toInt); out(p + 6) = ':'
    putPair(out, p + 7, (secs % 60).toInt); out(p + 9) = '.'
    putPair(out, p + 10, frac / 10000); putPair(out, p + 12, (frac / 100) % 100); putPair(out, p + 14, frac % 100)
    p + 16
  }

  /** 0000-03-01 and 9999-12-31 as days since 1970-01-01: the range of [[writeShortYearDate]]. */
  private final val FastDateMin = -719468L
  private final val FastDateMax = 2932896L

  /** `yyyy-MM-dd` (year zero-padded to four digits) of a day number; returns the end. */
  private[rowsv1] def writeCivilDate(out: Array[Byte], pos: Int, days: Long): Int =
    if (days >= FastDateMin && days <= FastDateMax) writeShortYearDate(out, pos, (days - FastDateMin).toInt)
    else writeAnyCivilDate(out, pos, days)

  /** `yyyy-MM-dd` of day `z` counted from 0000-03-01 (0 <= z <= 3652364, years 0000..9999).
    * Neri and Schneider's calendar algorithm ("Euclidean affine functions and their
    * application to calendar algorithms", 2022): Hinnant's computation with its
    * divisions turned into multiplications and shifts, in int arithmetic.
    */
  private def writeShortYearDate(out: Array[Byte], pos: Int, z: Int): Int = {
    val n1 = 4 * z + 3
    val century = n1 / 146097
    val dayOfCentury = (n1 - century * 146097) / 4
    val n2 = 4 * dayOfCentury + 3
    val p2 = 2939745L * n2
    val yearOfCentury = (p2 >>> 32).toInt
    val dayOfYear = ((p2 & 0xffffffffL) / 2939745L / 4).toInt // 0 = March 1
    val n3 = 2141 * dayOfYear + 197913
    val janFeb = dayOfYear >= 306 // January and February count to the next year
    val year = 100 * century + yearOfCentury + (if (janFeb) 1 else 0)
    val month = if (janFeb) (n3 >>> 16) - 12 else n3 >>> 16
    val day = (n3 & 0xffff) / 2141 + 1
    putPair(out, pos, year / 100); putPair(out, pos + 2, year % 100)
    out(pos + 4) = '-'; putPair(out, pos + 5, month); out(pos + 7) = '-'; putPair(out, pos + 8, day)
    pos + 10
  }

  /** `yyyy-MM-dd` (year zero-padded to four digits) of any day number; returns the end.
    * Civil-from-days after Howard Hinnant's algorithm (proleptic Gregorian).
    */
  private def writeAnyCivilDate(out: Array[Byte], pos: Int, days: Long): Int = {
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
      putPair(out, p, yi / 100); putPair(out, p + 2, yi % 100); p += 4
    } else {
      // outside 0000..9999: a sign and at least four digits, as Spark's `to_json`
      // prints them (`+12921-08-18`, `-0001-01-01`)
      out(p) = (if (y > 9999) '+' else '-').toByte
      val a = math.abs(y)
      p = putPositiveLong(out, p + 1, a, math.max(4, decimalLength(a)))
    }
    out(p) = '-'; putPair(out, p + 1, m); out(p + 3) = '-'; putPair(out, p + 4, d)
    p + 6
  }
}
