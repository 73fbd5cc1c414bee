package io.ubunye.spark.rowsv1

/** The high 64 bits of the signed 128-bit product of two longs, what
  * `Math.multiplyHigh` (Java 9+) returns, written with 32-bit halves so it runs on
  * Java 8: the 3.5 jars target Java 8 and call this (through `shims.MathShim`), the
  * 4.x jars call the JVM's intrinsic.
  */
object MultiplyHigh {
  private final val Low32 = 0xFFFFFFFFL

  /** `Math.multiplyHigh(x, y)` on any JVM (Hacker's Delight, 8-2, signed). */
  def portable(x: Long, y: Long): Long = {
    val x1 = x >> 32
    val x0 = x & Low32
    val y1 = y >> 32
    val y0 = y & Low32
    val t = x1 * y0 + ((x0 * y0) >>> 32)
    val u = x0 * y1 + (t & Low32)
    x1 * y1 + (t >> 32) + (u >> 32)
  }
}
