package io.ubunye.spark.rowsv1

import java.math.BigInteger

import io.ubunye.spark.shims.MathShim
import org.scalatest.funsuite.AnyFunSuite

/** The portable high multiply (used by the Java 8 jars of Spark 3.5) equals the exact
  * 128-bit product's high half and the JVM's `Math.multiplyHigh` (Java 9+, looked up
  * by reflection so this suite compiles for Java 8 too) on edge and random values.
  */
class MultiplyHighSuite extends AnyFunSuite {

  private def exact(x: Long, y: Long): Long =
    BigInteger.valueOf(x).multiply(BigInteger.valueOf(y)).shiftRight(64).longValue

  private val jvm: Option[(Long, Long) => Long] =
    scala.util.Try(classOf[Math].getMethod("multiplyHigh", java.lang.Long.TYPE, java.lang.Long.TYPE)).toOption.map { m =>
      (x: Long, y: Long) => m.invoke(null, Long.box(x), Long.box(y)).asInstanceOf[java.lang.Long].longValue
    }

  private val edges: Seq[Long] = Seq(0L, 1L, -1L, 2L, -2L, Long.MaxValue, Long.MinValue, Long.MinValue + 1,
    Long.MaxValue - 1, 0xFFFFFFFFL, 0x100000000L, -0xFFFFFFFFL, -0x100000000L, Int.MaxValue.toLong,
    Int.MinValue.toLong, 115292150460684698L << 4, 0x8000000080000000L, 0x7FFFFFFF7FFFFFFFL)

  private val random: Seq[(Long, Long)] = {
    val rnd = new java.util.Random(20261201L)
    // Full-width values, and values of every bit length (the Schubfach operands are
    // 64-bit table entries times up to 60-bit significands).
    Seq.fill(200000)((rnd.nextLong(), rnd.nextLong())) ++
      Seq.fill(100000)((rnd.nextLong() >> rnd.nextInt(64), rnd.nextLong() >>> rnd.nextInt(64)))
  }

  test("the portable high multiply equals the exact product's high half") {
    for (x <- edges; y <- edges) assert(MultiplyHigh.portable(x, y) == exact(x, y), s"$x * $y")
    random.foreach { case (x, y) => assert(MultiplyHigh.portable(x, y) == exact(x, y), s"$x * $y") }
  }

  test("the portable high multiply equals Math.multiplyHigh on this JVM (Java 9+)") {
    val mh = jvm.getOrElse(cancel(s"Math.multiplyHigh is not in Java ${System.getProperty("java.version")}"))
    for (x <- edges; y <- edges) assert(MultiplyHigh.portable(x, y) == mh(x, y), s"$x * $y")
    random.foreach { case (x, y) => assert(MultiplyHigh.portable(x, y) == mh(x, y), s"$x * $y") }
  }

  test("the line's shim is a high multiply") {
    random.take(20000).foreach { case (x, y) => assert(MathShim.multiplyHigh(x, y) == exact(x, y), s"$x * $y") }
  }
}
