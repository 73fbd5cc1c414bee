package io.ubunye.spark.observe

import org.apache.spark.util.AccumulatorV2

/** The rows-v1 sums of one partition: its index, row count and the two lane sums
  * modulo 2^64.
  */
final case class PartitionSums(partition: Int, rows: Long, a: Long, b: Long)

/** The sums of an observed frame, kept per partition: a partition computed again (a
  * retried or speculative task, a stage run again, the same frame written twice)
  * replaces its earlier sums instead of adding to them. The value is the total over
  * the partitions: `Array(rows, a, b)`, sums modulo 2^64 (JVM long arithmetic).
  */
class RowsV1SumsAccumulator extends AccumulatorV2[PartitionSums, Array[Long]] {
  private val byPartition = new java.util.HashMap[Int, PartitionSums]()

  override def isZero: Boolean = byPartition.synchronized(byPartition.isEmpty)

  override def copy(): RowsV1SumsAccumulator = {
    val c = new RowsV1SumsAccumulator
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

  /** How many partitions reported their sums. */
  def partitions: Int = byPartition.synchronized(byPartition.size)
}
