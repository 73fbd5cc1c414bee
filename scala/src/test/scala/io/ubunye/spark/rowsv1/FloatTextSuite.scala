package io.ubunye.spark.rowsv1

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

/** The float64/float32 text of rows-v1 (JDK 19+ `Double.toString`/`Float.toString`)
  * must not depend on the JVM running the writer.
  */
class FloatTextSuite extends AnyFunSuite {

  test("known JDK 19+ double texts") {
    Seq(
      1e23 -> "1.0E23", 2e23 -> "2.0E23", 4.9e-324 -> "4.9E-324", Double.MinPositiveValue -> "4.9E-324",
      1.0e-5 -> "1.0E-5", 9.99e-4 -> "9.99E-4", 0.001 -> "0.001", 1e7 -> "1.0E7", 9999999.0 -> "9999999.0",
      100.0 -> "100.0", 1234567.0 -> "1234567.0", 0.30000000000000004 -> "0.30000000000000004",
      -2.5e-7 -> "-2.5E-7", Double.MaxValue -> "1.7976931348623157E308", 0.0 -> "0.0", -0.0 -> "-0.0",
      2.2250738585072014e-308 -> "2.2250738585072014E-308", 71.5 -> "71.5", 1.0 -> "1.0", 0.1 -> "0.1",
      -1.0 -> "-1.0", 123456789012.0 -> "1.23456789012E11", 5e-324 * 2 -> "9.9E-324"
    ).foreach { case (v, text) => assert(ShortestDecimal.doubleToString(v) == text, s"double $v") }
  }

  test("known JDK 19+ float texts") {
    Seq(
      4.3e9f -> "4.3E9", 1.0e-5f -> "1.0E-5", 9.99e-4f -> "9.99E-4", 0.1f -> "0.1", 1e7f -> "1.0E7",
      Float.MinPositiveValue -> "1.4E-45", Float.MaxValue -> "3.4028235E38", 1.0e10f -> "1.0E10",
      2.0e23f -> "2.0E23", 0.0f -> "0.0", -0.0f -> "-0.0", 33554432.0f -> "3.3554432E7", java.lang.Float.MIN_NORMAL -> "1.1754944E-38"
    ).foreach { case (v, text) => assert(ShortestDecimal.floatToString(v) == text, s"float $v") }
  }

  test("texts recorded on JDK 25 are reproduced on this JVM") {
    val recorded = FloatTextCheck.recorded("/jdk25-float-text.txt.gz")
    assert(recorded.size > 9000)
    val wrong = recorded.filter {
      case ('d', bits, text) => ShortestDecimal.doubleToString(java.lang.Double.longBitsToDouble(bits)) != text
      case (_, bits, text) => ShortestDecimal.floatToString(java.lang.Float.intBitsToFloat(bits.toInt)) != text
    }
    assert(wrong.isEmpty, wrong.take(5))
  }

  test("a text is the same written with room to spare (word stores) and into an array it fills exactly") {
    // the digits of a plain-notation value go in by words when the array has room for
    // them, by pairs and a division near the array's end; both must give the JDK 25 text
    val recorded = FloatTextCheck.recorded("/jdk25-float-text.txt.gz").filter(_._1 == 'd')
    val extra = FloatTextCheck.doubles(20000, 9).map(d => ('d', java.lang.Double.doubleToRawLongBits(d), ShortestDecimal.doubleToString(d)))
    val wrong = (recorded ++ extra).filter { case (_, bits, text) =>
      val v = java.lang.Double.longBitsToDouble(bits)
      val roomy = new Array[Byte](64)
      val tight = new Array[Byte](text.length + 3)
      val atEnd = ShortestDecimal.writeDouble(tight, 3, v)
      val roomyEnd = ShortestDecimal.writeDouble(roomy, 5, v)
      atEnd != tight.length ||
        new String(tight, 3, atEnd - 3, UTF_8) != text || new String(roomy, 5, roomyEnd - 5, UTF_8) != text
    }
    assert(recorded.size > 4000 && wrong.isEmpty, wrong.take(5))
  }

  test("on JDK 19+ the running JVM agrees on random values") {
    // "1.8" on Java 8, "17" from Java 9 on (Runtime.version() is Java 9+; the 3.5 tests target Java 8).
    val feature = System.getProperty("java.specification.version").stripPrefix("1.").toInt
    val doubles = FloatTextCheck.doubles(20000, 5).filter(d =>
      feature < 19 || ShortestDecimal.doubleToString(d) != java.lang.Double.toString(d)).toList
    val floats = FloatTextCheck.floats(20000, 5).filter(f =>
      feature < 19 || ShortestDecimal.floatToString(f) != java.lang.Float.toString(f)).toList
    if (feature >= 19) assert(doubles.isEmpty && floats.isEmpty, (doubles.take(3), floats.take(3)))
    else {
      // On older JVMs the JVM's own text differs for some values: the reason for ShortestDecimal.
      assert(java.lang.Double.toString(1e23) == "9.999999999999999E22")
      assert(ShortestDecimal.doubleToString(1e23) == "1.0E23")
    }
  }

  test("on any JDK, random texts are the shortest decimals that read back, the closest of their length") {
    // an oracle that needs no JDK 19+ toString (the test above only checks on JDK 19+):
    // the text parses back to the value; no decimal one digit shorter does (both neighbours
    // at that length, from 3 digits on: 1 and 2 digits compete, spec of Double.toString);
    // among decimals of its length it is the closest, ties to even, where that one reads back
    def check(text: String, exact: java.math.BigDecimal, readsBack: String => Boolean): Unit = {
      assert(readsBack(text), text)
      val d = new java.math.BigDecimal(text)
      val n = d.stripTrailingZeros.precision
      if (n >= 3) Seq(java.math.RoundingMode.FLOOR, java.math.RoundingMode.CEILING).foreach { mode =>
        val shorter = exact.round(new java.math.MathContext(n - 1, mode))
        assert(!readsBack(shorter.toString), s"$text: $shorter is shorter")
      }
      val closest = exact.round(new java.math.MathContext(math.max(n, 2), java.math.RoundingMode.HALF_EVEN))
      if (readsBack(closest.toString)) assert(d.compareTo(closest) == 0, s"$text: $closest is closer")
    }
    val tiny = (1 to 8).map(_ * Double.MinPositiveValue) // subnormals below 3 ulps take a digit more (dk)
    (FloatTextCheck.doubles(20000, 7) ++ tiny).filter(d => !d.isNaN && !d.isInfinite && d != 0).foreach { v =>
      check(ShortestDecimal.doubleToString(v), new java.math.BigDecimal(v),
        t => java.lang.Double.doubleToRawLongBits(t.toDouble) == java.lang.Double.doubleToRawLongBits(v))
    }
    (FloatTextCheck.floats(20000, 7) ++ (1 to 8).map(_ * Float.MinPositiveValue)).filter(f => !f.isNaN && !f.isInfinite && f != 0).foreach { v =>
      check(ShortestDecimal.floatToString(v), new java.math.BigDecimal(v.toDouble),
        t => java.lang.Float.floatToRawIntBits(t.toFloat) == java.lang.Float.floatToRawIntBits(v))
    }
  }

  test("the power-of-ten helpers match exact values") {
    (-1000 to 1000).foreach { e =>
      val p2 = BigDecimal(2).pow(e)
      val log10 = if (e >= 0) BigInt(2).pow(e).toString.length - 1 else {
        // floor(log10(2^e)) for e < 0: -(number of leading fraction zeros + 1)
        val s = p2.bigDecimal.stripTrailingZeros().toPlainString
        -(s.drop(2).takeWhile(_ == '0').length + 1)
      }
      assert(ShortestDecimal.flog10pow2(e) == log10, s"flog10pow2($e)")
    }
    (-400 to 400).foreach { e =>
      val exact = if (e >= 0) BigInt(10).pow(e).bitLength - 1 else -BigInt(10).pow(-e).bitLength
      assert(ShortestDecimal.flog2pow10(e) == exact, s"flog2pow10($e)")
    }
  }
}
