package io.ubunye.spark.rowsv1

import io.ubunye.spark.shims.MathShim.multiplyHigh
import java.math.BigInteger

import org.apache.spark.unsafe.Platform

/** The text of a `double` / `float` exactly as `Double.toString` / `Float.toString`
  * specify it from JDK 19 on, written as ASCII into a byte array, on every JVM.
  *
  * JDK 17 and older print some values with too many digits (`1e23` as
  * `9.999999999999999E22`, float `4.3E9` as `4.3000003E9`); rows-v1 fixes the JDK 19+
  * text, so the writer cannot call the running JVM's `toString`.
  *
  * The digits come from Raffaello Giulietti's Schubfach algorithm ("The Schubfach way
  * to render doubles", 2020), the algorithm behind JDK 19's `Double.toString`: among
  * the decimals that round to the value, those of minimal length p (length 2 allowed
  * when p is 1), the one closest to the value, the even one on a tie. The 126-bit
  * approximations of the powers of ten it needs are computed once with `BigInteger`.
  *
  * Layout (the `toString` rules): plain notation for 1e-3 <= |v| < 1e7 with at least
  * one fraction digit, otherwise `d.dddE<exp>`. Zero, NaN and infinities are the
  * caller's business (rows-v1 writes NaN and infinities as JSON strings), but
  * [[writeDouble]] / [[writeFloat]] still write `0.0`, `-0.0`, `NaN`, `Infinity`.
  */
object ShortestDecimal {

  /** The most bytes one value can take (`-d.ddddddddddddddddE-eee`). */
  final val MaxChars = 24

  // binary64
  private final val DP = 53
  private final val DQMin = -1074
  private final val DCTiny = 3L
  private final val DCMin = 1L << (DP - 1)
  private final val DBqMask = 0x7ff
  private final val DTMask = (1L << (DP - 1)) - 1
  // binary32
  private final val FP = 24
  private final val FQMin = -149
  private final val FCTiny = 8
  private final val FCMin = 1 << (FP - 1)
  private final val FBqMask = 0xff
  private final val FTMask = (1 << (FP - 1)) - 1

  private final val KMin = -324
  private final val KMax = 292
  private final val Mask63 = (1L << 63) - 1
  private final val Mask32 = (1L << 32) - 1

  /** floor(log10(2^e)) for |e| <= 5456721. */
  private[rowsv1] def flog10pow2(e: Int): Int = ((e * 661971961083L) >> 41).toInt

  /** floor(log10(3/4 2^e)) for |e| <= 5456721. */
  private[rowsv1] def flog10threeQuartersPow2(e: Int): Int =
    ((e * 661971961083L - 274743187321L) >> 41).toInt

  /** floor(log2(10^e)) for |e| <= 1838394. */
  private[rowsv1] def flog2pow10(e: Int): Int = ((e * 913124641741L) >> 38).toInt

  /** g = floor(10^-k 2^-r) + 1 with r = flog2pow10(-k) - 125, split as g1 2^63 + g0. */
  private val G: Array[Long] = {
    val table = new Array[Long](2 * (KMax - KMin + 1))
    var k = KMin
    while (k <= KMax) {
      val r = flog2pow10(-k) - 125
      var num = if (k <= 0) BigInteger.TEN.pow(-k) else BigInteger.ONE
      var den = if (k > 0) BigInteger.TEN.pow(k) else BigInteger.ONE
      if (r < 0) num = num.shiftLeft(-r) else den = den.shiftLeft(r)
      val g = num.divide(den).add(BigInteger.ONE)
      require(g.bitLength == 126, s"power of ten table: k=$k")
      table(2 * (k - KMin)) = g.shiftRight(63).longValue
      table(2 * (k - KMin) + 1) = g.longValue & Mask63
      k += 1
    }
    table
  }

  /** Writes the JDK 19+ `Double.toString(v)` text at `pos`; returns the end position. */
  def writeDouble(out: Array[Byte], pos: Int, v: Double): Int = {
    val bits = java.lang.Double.doubleToRawLongBits(v)
    val t = bits & DTMask
    val bq = ((bits >>> (DP - 1)) & DBqMask).toInt
    if (bq == DBqMask) return putAscii(out, pos, if (t != 0) "NaN" else if (bits > 0) "Infinity" else "-Infinity")
    var p = pos
    if (bits < 0) { out(p) = '-'; p += 1 }
    if (bq != 0) {
      val mq = -DQMin + 1 - bq
      val c = DCMin | t
      if (0 < mq && mq < DP) {
        val f = c >> mq
        if (f << mq == c) return format(out, p, f, 0)
      }
      doubleDigits(out, p, -mq, c, 0)
    } else if (t != 0) {
      if (t < DCTiny) doubleDigits(out, p, DQMin, t * 10, -1) else doubleDigits(out, p, DQMin, t, 0)
    } else {
      putAscii(out, p, "0.0")
    }
  }

  /** Writes the JDK 19+ `Float.toString(v)` text at `pos`; returns the end position. */
  def writeFloat(out: Array[Byte], pos: Int, v: Float): Int = {
    val bits = java.lang.Float.floatToRawIntBits(v)
    val t = bits & FTMask
    val bq = (bits >>> (FP - 1)) & FBqMask
    if (bq == FBqMask) return putAscii(out, pos, if (t != 0) "NaN" else if (bits > 0) "Infinity" else "-Infinity")
    var p = pos
    if (bits < 0) { out(p) = '-'; p += 1 }
    if (bq != 0) {
      val mq = -FQMin + 1 - bq
      val c = FCMin | t
      if (0 < mq && mq < FP) {
        val f = c >> mq
        if (f << mq == c) return format(out, p, f.toLong, 0)
      }
      floatDigits(out, p, -mq, c, 0)
    } else if (t != 0) {
      if (t < FCTiny) floatDigits(out, p, FQMin, t * 10, -1) else floatDigits(out, p, FQMin, t, 0)
    } else {
      putAscii(out, p, "0.0")
    }
  }

  /** `Double.toString` text as a `String` (tests and map keys of small maps). */
  def doubleToString(v: Double): String = {
    val b = new Array[Byte](MaxChars)
    new String(b, 0, writeDouble(b, 0, v), java.nio.charset.StandardCharsets.US_ASCII)
  }

  /** `Float.toString` text as a `String`. */
  def floatToString(v: Float): String = {
    val b = new Array[Byte](MaxChars)
    new String(b, 0, writeFloat(b, 0, v), java.nio.charset.StandardCharsets.US_ASCII)
  }

  // |v| = c 2^q; figure 7 of the paper with the computations of its figure 9.
  private def doubleDigits(out: Array[Byte], pos: Int, q: Int, c: Long, dk: Int): Int = {
    val odd = (c & 1L).toInt
    val cb = c << 2
    val cbr = cb + 2
    var cbl = 0L
    var k = 0
    if (c != DCMin || q == DQMin) { cbl = cb - 2; k = flog10pow2(q) }
    else { cbl = cb - 1; k = flog10threeQuartersPow2(q) }
    val h = q + flog2pow10(-k) + 2
    val g1 = G(2 * (k - KMin))
    val g0 = G(2 * (k - KMin) + 1)
    val vb = rop(g1, g0, cb << h)
    val vbl = rop(g1, g0, cbl << h)
    val vbr = rop(g1, g0, cbr << h)
    val s = vb >> 2
    if (s >= 100) {
      val sp10 = 10 * multiplyHigh(s, 115292150460684698L << 4) // 10 floor(s / 10)
      val tp10 = sp10 + 10
      val upin = vbl + odd <= (sp10 << 2)
      val wpin = (tp10 << 2) + odd <= vbr
      if (upin != wpin) return format(out, pos, if (upin) sp10 else tp10, k)
    }
    val t = s + 1
    val uin = vbl + odd <= (s << 2)
    val win = (t << 2) + odd <= vbr
    if (uin != win) return format(out, pos, if (uin) s else t, k + dk)
    val cmp = vb - ((s + t) << 1)
    format(out, pos, if (cmp < 0 || (cmp == 0 && (s & 1L) == 0)) s else t, k + dk)
  }

  private def floatDigits(out: Array[Byte], pos: Int, q: Int, c: Int, dk: Int): Int = {
    val odd = c & 1
    val cb = (c << 2).toLong
    val cbr = cb + 2
    var cbl = 0L
    var k = 0
    if (c != FCMin || q == FQMin) { cbl = cb - 2; k = flog10pow2(q) }
    else { cbl = cb - 1; k = flog10threeQuartersPow2(q) }
    val h = q + flog2pow10(-k) + 33
    val g = G(2 * (k - KMin)) + 1
    val vb = rop32(g, cb << h)
    val vbl = rop32(g, cbl << h)
    val vbr = rop32(g, cbr << h)
    val s = vb >> 2
    if (s >= 100) {
      val sp10 = 10 * ((s * 1717986919L) >>> 34).toInt // 10 floor(s / 10)
      val tp10 = sp10 + 10
      val upin = vbl + odd <= (sp10 << 2)
      val wpin = (tp10 << 2) + odd <= vbr
      if (upin != wpin) return format(out, pos, (if (upin) sp10 else tp10).toLong, k)
    }
    val t = s + 1
    val uin = vbl + odd <= (s << 2)
    val win = (t << 2) + odd <= vbr
    if (uin != win) return format(out, pos, (if (uin) s else t).toLong, k + dk)
    val cmp = vb - ((s + t) << 1)
    format(out, pos, (if (cmp < 0 || (cmp == 0 && (s & 1) == 0)) s else t).toLong, k + dk)
  }

  /** rop(cp g 2^-127) with g = g1 2^63 + g0 (section 9.9 of the paper). */
  private def rop(g1: Long, g0: Long, cp: Long): Long = {
    val x1 = multiplyHigh(g0, cp)
    val y0 = g1 * cp
    val y1 = multiplyHigh(g1, cp)
    val z = (y0 >>> 1) + x1
    val vbp = y1 + (z >>> 63)
    vbp | (((z & Mask63) + Mask63) >>> 63)
  }

  /** rop(cp g 2^-95) for binary32 (appendix of the paper). */
  private def rop32(g: Long, cp: Long): Int = {
    val x1 = multiplyHigh(g, cp)
    val vbp = x1 >>> 31
    (vbp | (((x1 & Mask32) + Mask32) >>> 32)).toInt
  }

  /** Writes the decimal f 10^e (f > 0) in the layout of `Double.toString`. */
  private def format(out: Array[Byte], pos: Int, f0: Long, e0: Int): Int = {
    var f = f0
    var e = e0
    // trailing zeros: most values have none (one test); else 8, 4, 2 and 1 at a
    // time, so 12.5 (125 10^14 from the digit generation) costs four tests, not 14
    if (f % 10 == 0) {
      while (f % 100000000L == 0) { f /= 100000000L; e += 8 }
      if (f % 10000 == 0) { f /= 10000; e += 4 }
      if (f % 100 == 0) { f /= 100; e += 2 }
      if (f % 10 == 0) { f /= 10; e += 1 }
    }
    val len = LineBuffer.decimalLength(f)
    val exp = e + len // value = 0.d1...dlen 10^exp
    var p = pos
    if (0 < exp && exp <= 7) {
      if (len <= exp) {
        p = LineBuffer.putPositiveLong(out, p, f, len)
        var z = exp - len
        while (z > 0) { out(p) = '0'; p += 1; z -= 1 }
        out(p) = '.'; out(p + 1) = '0'; p + 2
      } else if (LineBuffer.WordStores && p + 9 <= out.length && p + 1 + len <= out.length) {
        // every digit one place to the right, then the integer part's exp (<= 7) digits
        // moved back one place and the point put after them, in one masked word store
        // (no division by a power of ten)
        LineBuffer.putDigitWords(out, p + 1, f, len)
        val at = Platform.BYTE_ARRAY_OFFSET + p
        val shifted = Platform.getLong(out, at + 1) // byte j: digit j + 1
        val inPlace = Platform.getLong(out, at) // byte j: digit j (j >= 1)
        val whole = (1L << (exp << 3)) - 1 // bytes 0 .. exp - 1
        val fraction = -1L << (exp << 3) << 8 // bytes exp + 1 .. 7 (none for exp = 7)
        Platform.putLong(out, at, (shifted & whole) | ('.'.toLong << (exp << 3)) | (inPlace & fraction))
        p + len + 1
      } else {
        // the integer part, the point, then the fraction's len - exp digits
        // (zero-padded); len <= 17 and exp >= 1, so 10^(len - exp) <= 10^16
        val scale = LineBuffer.PowersOfTen(len - exp)
        val whole = f / scale
        p = LineBuffer.putDigits(out, p, whole, exp)
        out(p) = '.'
        LineBuffer.putDigits(out, p + 1, f - whole * scale, len - exp)
      }
    } else if (-3 < exp && exp <= 0) {
      out(p) = '0'; out(p + 1) = '.'; p += 2
      var z = -exp
      while (z > 0) { out(p) = '0'; p += 1; z -= 1 }
      LineBuffer.putPositiveLong(out, p, f, len)
    } else {
      // d.ddd, or d.0 for one digit
      LineBuffer.putPositiveLong(out, p + 1, f, len)
      out(p) = out(p + 1)
      out(p + 1) = '.'
      p = if (len == 1) { out(p + 2) = '0'; p + 3 } else p + len + 1
      out(p) = 'E'; p += 1
      var x = exp - 1
      if (x < 0) { out(p) = '-'; p += 1; x = -x }
      LineBuffer.putPositiveLong(out, p, x.toLong, LineBuffer.decimalLength(x.toLong))
    }
  }

  private def putAscii(out: Array[Byte], pos: Int, s: String): Int = {
    var i = 0
    while (i < s.length) { out(pos + i) = s.charAt(i).toByte; i += 1 }
    pos + s.length
  }
}
