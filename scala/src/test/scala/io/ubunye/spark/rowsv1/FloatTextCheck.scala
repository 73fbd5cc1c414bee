package io.ubunye.spark.rowsv1

import java.io.{BufferedReader, InputStreamReader, PrintWriter}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.zip.{GZIPInputStream, GZIPOutputStream}

/** Compares [[ShortestDecimal]] with the running JVM's `Double.toString` /
  * `Float.toString`, which follow the rows-v1 text from JDK 19 on.
  *
  *   check <count> <seed>        compare `count` doubles and floats of each family
  *   write <file.gz> <count> <seed>   record (bits, JVM text) pairs: run on JDK 19+;
  *                               FloatTextSuite replays the file on any JVM
  *   all-floats <from> <until>   every positive finite float with bits in [from, until)
  */
object FloatTextCheck {

  /** Test values: random bit patterns, random short decimals, and edge cases. */
  def doubles(count: Int, seed: Long): Iterator[Double] = {
    val r = new scala.util.Random(seed)
    val edges = Iterator(0.0, -0.0, Double.MinPositiveValue, Double.MaxValue, java.lang.Double.MIN_NORMAL,
      1e23, 2e23, 1e22, 9e-324, 1e-3, 1e7, 9999999.999999998, 0.001, 0.0009999999999999998,
      1.0E-5, 9.99E-4, 100.0, 0.1, 0.30000000000000004, 5e-324, 1.7976931348623157E308) ++
      (-325 to 309).iterator.map(e => s"1e$e".toDouble) ++ (-1074 to 1023).iterator.map(e => math.pow(2, e))
    val bits = Iterator.continually(java.lang.Double.longBitsToDouble(r.nextLong())).take(count)
    val decimals = Iterator.continually {
      val digits = 1 + r.nextInt(17)
      val m = (BigInt(digits * 4, r) mod BigInt(10).pow(digits)).toString
      s"${m}e${r.nextInt(640) - 330}".toDouble
    }.take(count)
    val subnormal = Iterator.continually(java.lang.Double.longBitsToDouble(r.nextLong() & ((1L << 52) - 1))).take(count / 10)
    (edges ++ bits ++ decimals ++ subnormal).filter(d => !d.isNaN && !d.isInfinite)
  }

  def floats(count: Int, seed: Long): Iterator[Float] = {
    val r = new scala.util.Random(seed)
    val edges = Iterator(0.0f, -0.0f, Float.MinPositiveValue, Float.MaxValue, java.lang.Float.MIN_NORMAL,
      4.3e9f, 1.0e-5f, 9.99e-4f, 0.1f, 1e7f, 1e-3f, 3.4028235e38f, 1.4e-45f, 2.0e23f) ++
      (-46 to 39).iterator.map(e => s"1e$e".toFloat) ++ (-149 to 127).iterator.map(e => math.pow(2, e).toFloat)
    val bits = Iterator.continually(java.lang.Float.intBitsToFloat(r.nextInt())).take(count)
    val decimals = Iterator.continually {
      val digits = 1 + r.nextInt(9)
      val m = (BigInt(digits * 4, r) mod BigInt(10).pow(digits)).toString
      s"${m}e${r.nextInt(90) - 47}".toFloat
    }.take(count)
    (edges ++ bits ++ decimals).filter(f => !f.isNaN && !f.isInfinite)
  }

  def main(args: Array[String]): Unit = args.toList match {
    case "check" :: count :: seed :: Nil =>
      var n = 0L
      var bad = 0L
      doubles(count.toInt, seed.toLong).foreach { d =>
        n += 1
        val (want, got) = (java.lang.Double.toString(d), ShortestDecimal.doubleToString(d))
        if (want != got) { bad += 1; if (bad <= 20) println(s"double ${java.lang.Double.doubleToRawLongBits(d)}: JVM $want, ours $got") }
      }
      floats(count.toInt, seed.toLong).foreach { f =>
        n += 1
        val (want, got) = (java.lang.Float.toString(f), ShortestDecimal.floatToString(f))
        if (want != got) { bad += 1; if (bad <= 20) println(s"float ${java.lang.Float.floatToRawIntBits(f)}: JVM $want, ours $got") }
      }
      println(s"java ${System.getProperty("java.version")}: $n values, $bad differ")
      if (bad > 0) sys.exit(1)
    case "all-floats" :: from :: until :: Nil =>
      val buf = new Array[Byte](ShortestDecimal.MaxChars)
      var bits = from.toLong
      var bad = 0L
      while (bits < until.toLong) {
        val f = java.lang.Float.intBitsToFloat(bits.toInt)
        val want = java.lang.Float.toString(f)
        val n = ShortestDecimal.writeFloat(buf, 0, f)
        var same = n == want.length
        var i = 0
        while (same && i < n) { same = buf(i) == want.charAt(i); i += 1 }
        if (!same) { bad += 1; if (bad <= 20) println(s"float bits $bits: JVM $want") }
        bits += 1
      }
      println(s"java ${System.getProperty("java.version")}: floats with bits in [$from, $until): $bad differ")
      if (bad > 0) sys.exit(1)
    case "write" :: file :: count :: seed :: Nil =>
      val out = new PrintWriter(new java.io.OutputStreamWriter(
        new GZIPOutputStream(new java.io.FileOutputStream(file)), UTF_8))
      out.println(s"# java.version ${System.getProperty("java.version")}: kind, raw bits, JVM toString")
      doubles(count.toInt, seed.toLong).foreach(d =>
        out.println(s"d ${java.lang.Double.doubleToRawLongBits(d)} ${java.lang.Double.toString(d)}"))
      floats(count.toInt, seed.toLong).foreach(f =>
        out.println(s"f ${java.lang.Float.floatToRawIntBits(f)} ${java.lang.Float.toString(f)}"))
      out.close()
    case _ =>
      sys.error("usage: FloatTextCheck check <count> <seed> | write <file.gz> <count> <seed>")
  }

  /** The recorded (kind, bits, text) lines of a `write` file on the classpath. */
  def recorded(resource: String): Seq[(Char, Long, String)] = {
    val in = new BufferedReader(new InputStreamReader(
      new GZIPInputStream(getClass.getResourceAsStream(resource)), UTF_8))
    try Iterator.continually(in.readLine()).takeWhile(_ != null).filterNot(_.startsWith("#")).map { l =>
      val Array(k, b, t) = l.split(' ')
      (k.charAt(0), b.toLong, t)
    }.toList
    finally in.close()
  }
}
