package io.ubunye.spark.rowsv1

import java.nio.charset.StandardCharsets.UTF_8
import java.time.{Instant, LocalDate, ZoneOffset}
import java.time.format.{DateTimeFormatter, DateTimeFormatterBuilder, SignStyle}
import java.time.temporal.ChronoField

import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** The scalar texts of the line writer against the JDK's own formatting. */
class LineBufferSuite extends AnyFunSuite {

  private def text(body: LineBuffer => Unit): String = {
    val b = new LineBuffer(4)
    body(b)
    new String(b.bytes, 0, b.pos, UTF_8)
  }

  // What Spark's `to_json` prints with dateFormat yyyy-MM-dd (proleptic ISO years:
  // four digits, a sign outside 0000..9999).
  private val date = new DateTimeFormatterBuilder()
    .appendValue(ChronoField.YEAR, 4, 10, SignStyle.EXCEEDS_PAD).appendPattern("-MM-dd").toFormatter
  private val time = DateTimeFormatter.ofPattern("'T'HH:mm:ss.SSSSSS")

  test("dates and timestamps match java.time, years outside 0000..9999 included") {
    val r = new scala.util.Random(3)
    val days = Seq(0L, -1L, -719528L, -719529L, -719893L, 2932896L, 2932897L, 4000000L, -4000000L) ++
      Seq.fill(20000)(r.nextInt(8000000).toLong - 4000000L)
    days.foreach { d =>
      val want = LocalDate.ofEpochDay(d).format(date)
      assert(text(_.putDate(d.toInt)) == want, s"day $d")
    }
    val micros = Seq(0L, -1L, 253402300799999999L, 253402300800000000L, 5000000000000000000L, -62198755200000000L) ++
      Seq.fill(20000)(r.nextLong() / 2)
    micros.foreach { us =>
      val i = Instant.ofEpochSecond(Math.floorDiv(us, 1000000L), Math.floorMod(us, 1000000L) * 1000L)
      val z = i.atOffset(ZoneOffset.UTC)
      assert(text(_.putTimestamp(us)) == z.toLocalDate.format(date) + z.toLocalTime.format(time), s"micros $us")
    }
    assert(text(_.putTimestamp(5000000000000000000L)) == "+160413-09-10T08:53:20.000000")
    assert(text(_.putDate(-719893)) == "-0001-01-01")
  }

  test("decimals match BigDecimal.toString at their scale") {
    val r = new scala.util.Random(4)
    (0 until 20000).foreach { _ =>
      val precision = 1 + r.nextInt(38)
      val scale = r.nextInt(precision + 1)
      val unscaled = BigInt(precision * 3, r) mod BigInt(10).pow(precision)
      val v = new java.math.BigDecimal((if (r.nextBoolean()) -unscaled else unscaled).bigInteger, scale)
      val d = Decimal(v, precision, scale)
      assert(text(_.putDecimal(d)) == v.toString, s"$v ($precision, $scale)")
    }
  }

  test("decimals on both sides of BigDecimal.toString's switch to E notation (adjusted exponent -6 / -7)") {
    // the plain fast path must stop where toString starts writing 1E-7: few random decimals get there
    for {
      scale <- 0 to 18
      unscaled <- Seq(1L, 7L, 12L, 123L, 100000L, 1234567L, 999999999999999999L)
      sign <- Seq(1L, -1L)
      if BigInt(unscaled).toString.length <= 18
    } {
      val v = java.math.BigDecimal.valueOf(sign * unscaled, scale)
      assert(text(_.putDecimal(Decimal(v, 18, scale))) == v.toString, s"$v (18, $scale)")
    }
  }

  test("strings are escaped as Jackson escapes them, everything else raw") {
    val s = "a\"b\\c/d\u0000\u0001\u0008\t\n\u000b\u000c\r\u001f\u007f\u2028é😀"
    val want = "\"a\\\"b\\\\c/d\\u0000\\u0001\\b\\t\\n\\u000B\\f\\r\\u001F\u007f\u2028é😀\""
    assert(text(_.putQuoted(UTF8String.fromString(s))) == want)
    assert(text(_.putQuoted(s.getBytes(UTF_8))) == want)
    val long = "x" * 5000 + "\"" + "y" * 5000
    assert(text(_.putQuoted(UTF8String.fromString(long))) == "\"" + "x" * 5000 + "\\\"" + "y" * 5000 + "\"")
  }

  test("binary is standard Base64 and integers print all digits") {
    val r = new scala.util.Random(5)
    (0 until 2000).foreach { n =>
      val bytes = Array.fill(n % 70)(r.nextInt(256).toByte)
      assert(text(_.putBase64(bytes)) == "\"" + java.util.Base64.getEncoder.encodeToString(bytes) + "\"")
    }
    (Seq(0L, -1L, Long.MinValue, Long.MaxValue, Int.MinValue.toLong) ++ Seq.fill(2000)(r.nextLong())).foreach { v =>
      assert(text(_.putLong(v)) == v.toString)
    }
  }

  test("doubles and floats make room for their text at any fill of a small buffer") {
    // the text writers store without a bounds check of their own: putDouble / putFloat must
    // grow the buffer first (a 4-byte buffer, 0..8 bytes written before the value)
    val doubles = Seq(-1.2345678901234567e-300, Double.MaxValue, 0.001, 1234567.5, -0.0)
    val floats = Seq(-1.2345678e-30f, Float.MaxValue, 0.001f, 1234567.5f)
    (0 to 8).foreach { fill =>
      def after(body: LineBuffer => Unit): String =
        text { b => (0 until fill).foreach(_ => b.putAscii("x")); body(b) }
      doubles.foreach(v => assert(after(_.putDouble(v)) == "x" * fill + ShortestDecimal.doubleToString(v), s"$v after $fill"))
      floats.foreach(v => assert(after(_.putFloat(v)) == "x" * fill + ShortestDecimal.floatToString(v), s"$v after $fill"))
    }
  }
}
