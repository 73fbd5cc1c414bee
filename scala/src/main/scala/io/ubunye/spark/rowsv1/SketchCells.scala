package io.ubunye.spark.rowsv1

import java.nio.{ByteBuffer, ByteOrder}

/** The cells of the rows-v1 localisation sketch (`docs/spec/rows-v1-localise.md`,
  * `rows-v1-sketch/1`) at the default size: [[Cells]] cells in [[K]] sub-tables of
  * [[Width]], held as `long[4 * Cells]` (cell i is `count, sum A, sum B, sum check` at
  * `4 * i`). All arithmetic wraps modulo 2^64, so partial sketches (rows, partitions,
  * executors) merge by adding them element by element.
  *
  * The Python reference is `ubunye.hashing.lanes_worker` (`cell_index`, `check_value`,
  * `lane_cells`); both must give the known-answer cells of
  * `tests/fixtures/sketch/vectors.json`.
  */
object SketchCells {
  final val Cells = 320
  final val K = 5
  final val Width = Cells / K
  /** The top `Bits` bits of a mix choose the cell in a sub-table (Width = 2^Bits). */
  final val Bits: Int = Integer.numberOfTrailingZeros(Width)
  /** The length of a sketch's `long[]`. */
  final val Longs: Int = 4 * Cells

  private final val Golden = 0x9E3779B97F4A7C15L
  private final val Mix1 = 0xBF58476D1CE4E5B9L
  private final val Mix2 = 0x94D049BB133111EBL

  /** The SplitMix64 finaliser. */
  def mix(x0: Long): Long = {
    var x = (x0 ^ (x0 >>> 30)) * Mix1
    x = (x ^ (x >>> 27)) * Mix2
    x ^ (x >>> 31)
  }

  /** The cell of a row with lane `a` in sub-table `j`. */
  def cellIndex(a: Long, j: Int): Int = j * Width + (mix(a ^ ((j + 1) * Golden)) >>> (64 - Bits)).toInt

  /** The check value of a row with lanes `a`, `b`. */
  def check(a: Long, b: Long): Long = mix(a ^ mix(b))

  /** A new, empty sketch (all zeros). */
  def empty(): Array[Long] = new Array[Long](Longs)

  /** Adds a row with lanes `a`, `b` to `cells`, starting at `offset` (a sketch held after
    * other numbers in one array).
    */
  def add(cells: Array[Long], offset: Int, a: Long, b: Long): Unit = {
    val c = check(a, b)
    var j = 0
    while (j < K) {
      val at = offset + 4 * cellIndex(a, j)
      cells(at) += 1L
      cells(at + 1) += a
      cells(at + 2) += b
      cells(at + 3) += c
      j += 1
    }
  }

  /** Adds a row with lanes `a`, `b` to the sketch `cells`. */
  def add(cells: Array[Long], a: Long, b: Long): Unit = add(cells, 0, a, b)

  /** Adds `Longs` numbers of `from` (at `fromOffset`) into `into` (at `intoOffset`). */
  def merge(into: Array[Long], intoOffset: Int, from: Array[Long], fromOffset: Int): Unit = {
    var i = 0
    while (i < Longs) {
      into(intoOffset + i) += from(fromOffset + i)
      i += 1
    }
  }

  /** The record form's bytes: the cells in order, each as four little-endian u64. */
  def toBytes(cells: Array[Long], offset: Int): Array[Byte] = {
    val out = ByteBuffer.allocate(8 * Longs).order(ByteOrder.LITTLE_ENDIAN)
    var i = 0
    while (i < Longs) {
      out.putLong(cells(offset + i))
      i += 1
    }
    out.array()
  }

  /** The record form's bytes of the sketch `cells`. */
  def toBytes(cells: Array[Long]): Array[Byte] = toBytes(cells, 0)
}
