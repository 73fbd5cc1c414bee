package io.ubunye.spark.shims

/** Java 9+ arithmetic: the 4.x jars target Java 17 and use the JVM's intrinsics. */
object MathShim {
  /** `Math.multiplyHigh`. */
  @inline def multiplyHigh(x: Long, y: Long): Long = java.lang.Math.multiplyHigh(x, y)
}
