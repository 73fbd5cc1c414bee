package io.ubunye.spark.observe

import io.ubunye.spark.rowsv1.SketchCells

import org.apache.spark.util.AccumulatorV2

/** The rows-v1 sums of one partition: its index, row count and the two lane sums
  * modulo 2^64, and the partition's sketch cells (`SketchCells`; null when the
  * observation takes no sketch), the sums of its rows per partition folder
  * (`PartitionTally.keyed`; null when the observation has no partition columns), and
  * `broken`: a row's json round trip failed in it (the sums are not of the files).
  */
final case class PartitionSums(partition: Int, rows: Long, a: Long, b: Long, cells: Array[Long] = null,
                               parts: java.util.Map[String, Array[Long]] = null, broken: Boolean = false)

/** The sums of an observed frame, kept per partition: a partition computed again (a
  * retried or speculative task, a stage run again, the same frame written twice)
  * replaces its earlier sums instead of adding to them. The value is the total over
  * the partitions: `Array(rows, a, b)`, sums modulo 2^64 (JVM long arithmetic).
  *
  * @param sketch the observed node also takes the localisation sketch's cells
  *   (`docs/spec/rows-v1-localise.md`), merged the same way: [[cells]]
  * @param keys the partition columns whose folders' sums it also takes (section 7), or
  *   null: [[parts]]
  */
class RowsV1SumsAccumulator(val sketch: Boolean = false, val keys: PartitionColumns = null)
  extends AccumulatorV2[PartitionSums, Array[Long]] {
  private val byPartition = new java.util.HashMap[Int, PartitionSums]()

  override def isZero: Boolean = byPartition.synchronized(byPartition.isEmpty)

  override def copy(): RowsV1SumsAccumulator = {
    val c = new RowsV1SumsAccumulator(sketch, keys)
    byPartition.synchronized(byPartition.values().forEach(p => c.add(p)))
    c
  }

  override def reset(): Unit = byPartition.synchronized(byPartition.clear())

  override def add(v: PartitionSums): Unit = byPartition.synchronized(byPartition.put(v.partition, v))

  override def merge(other: AccumulatorV2[PartitionSums, Array[Long]]): Unit = other match {
    case o: RowsV1SumsAccumulator => o.copy().byPartition.values().forEach(p => add(p))
    case _ => throw new UnsupportedOperationException(s"cannot merge ${other.getClass.getName}")
  }

  /** `Array(rows, a, b)` over every partition seen. */
  override def value: Array[Long] = byPartition.synchronized {
    val total = new Array[Long](3)
    byPartition.values().forEach { p => total(0) += p.rows; total(1) += p.a; total(2) += p.b }
    total
  }

  /** The sketch cells over every partition seen (cell-wise sums modulo 2^64); null when
    * the observation takes no sketch.
    */
  def cells: Array[Long] = if (!sketch) null else byPartition.synchronized {
    val total = SketchCells.empty()
    byPartition.values().forEach(p => if (p.cells != null) SketchCells.merge(total, 0, p.cells, 0))
    total
  }

  /** A partition's json round trip failed (`RowsV1Observed.jsonRoundTrip`): the sums are not of the files. */
  def broken: Boolean = byPartition.synchronized {
    var any = false
    byPartition.values().forEach(p => any ||= p.broken)
    any
  }

  /** The sums of each partition folder's rows over every partition seen (added key by
    * key, modulo 2^64), sorted by key; null when the observation has no partition columns.
    */
  def parts: java.util.SortedMap[String, Array[Long]] = if (keys == null) null else byPartition.synchronized {
    val total = new java.util.TreeMap[String, Array[Long]]()
    byPartition.values().forEach { p =>
      if (p.parts != null) p.parts.forEach { (key, s) =>
        val t = total.get(key)
        if (t == null) total.put(key, s.clone()) else PartitionTally.addInto(t, s)
      }
    }
    total
  }

  /** How many partitions reported their sums. */
  def partitions: Int = byPartition.synchronized(byPartition.size)
}
