package io.ubunye.spark.shims

import io.ubunye.spark.rowsv1.MultiplyHigh

/** Java 9+ arithmetic on the Java 8 class files of the 3.5 jars. */
object MathShim {
  /** `Math.multiplyHigh` (Java 9), computed without it. */
  @inline def multiplyHigh(x: Long, y: Long): Long = MultiplyHigh.portable(x, y)
}
