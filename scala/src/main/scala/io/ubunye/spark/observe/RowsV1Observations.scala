package io.ubunye.spark.observe

import java.lang.ref.{ReferenceQueue, WeakReference}
import java.util.Base64
import java.util.concurrent.ConcurrentHashMap

import io.ubunye.spark.rowsv1.{Kinds, RowsV1Error, SketchCells}

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.ubunye.{JsonRoundTrip, PlanFrames}

/** Observing the rows-v1 sums of a frame while an action (a write) runs it, in the
  * same pass: `attach` gives the frame to write, `sums` the result after the action.
  * Like `DataFrame.observe` with `ubunye_rows_v1_sums(*)`, but computed inside the
  * stage's generated code rather than by Spark's observation accumulator, and a
  * partition run twice counts once.
  *
  * An observation lives as long as a frame can still run it: its name holds its sums
  * weakly, the frame's plan (the [[RowsV1Observed]] node, in every frame built on the
  * observed one) strongly. Once no frame holds them and the JVM collected them, the
  * name is released (on the next call of this object), whether or not anything was
  * ever written or read: a frame attached and dropped leaks nothing.
  */
object RowsV1Observations {
  /** An observation's name and its sums, held weakly. */
  private final class Entry(val id: String, sums: RowsV1SumsAccumulator)
    extends WeakReference[RowsV1SumsAccumulator](sums, collected)

  /** Where the JVM puts the entries whose sums no frame holds any more. */
  private val collected = new ReferenceQueue[RowsV1SumsAccumulator]()
  private val observed = new ConcurrentHashMap[String, Entry]()

  /** Drops the names whose sums were collected (a name taken again since stays). */
  private def release(): Unit = {
    var r = collected.poll()
    while (r != null) {
      val e = r.asInstanceOf[Entry]
      observed.remove(e.id, e)
      r = collected.poll()
    }
  }

  /** `df` with its sums observed under `id` (a name not in use). Fails, naming the
    * column, when a column has no rows-v1 text.
    */
  def attach(df: DataFrame, id: String): DataFrame = attach(df, id, sketch = false)

  /** `df` with its sums observed under `id`, and with `sketch` also the cells of the
    * localisation sketch of the same rows ([[resultWithCells]]).
    */
  def attach(df: DataFrame, id: String, sketch: Boolean): DataFrame = observe(df, id, sketch, "", None)

  /** `df` with its sums (and with `sketch` the cells) observed under `id` and, with
    * `partitionBy` (partition columns, in folder order), the sums of each partition
    * folder's rows in the same pass ([[resultWithParts]]; `docs/spec/rows-v1-localise.md`
    * section 7). Fails, naming the column, when a column has no rows-v1 text or a
    * partition column is missing or of a type with no folder text.
    */
  def attach(df: DataFrame, id: String, sketch: Boolean, partitionBy: Array[String]): DataFrame =
    attachWithParts(df, id, sketch, partitionBy.mkString("\n"))

  /** [[attach]] with the partition columns as one text, the names separated by line
    * breaks (for Python: no JVM array to build); an empty text: none.
    */
  def attachWithParts(df: DataFrame, id: String, sketch: Boolean, partitionBy: String): DataFrame =
    observe(df, id, sketch, partitionBy, None)

  /** `df`, to be written as json with the writer's options `write`, with the sums of the rows
    * Spark's json reader gives back from its files (read with options `read` and `df`'s
    * schema): each row's round trip through the writer and the reader (`JsonRoundTrip`),
    * in the same pass. Fails, saying why, where a row's round trip would not be what the
    * files give back (`JsonRoundTrip.whyNot`); [[broken]] after the write says whether
    * every row's round trip succeeded. No partition columns: a partitioned json output is
    * refused (`whyNot`).
    */
  def attachJson(df: DataFrame, id: String, sketch: Boolean, write: java.util.Map[String, String],
                 read: java.util.Map[String, String]): DataFrame = {
    val options = JsonOptions(scalaMap(write), scalaMap(read))
    JsonRoundTrip.whyNot(df.schema, options.write, options.read).foreach(why => throw new IllegalArgumentException(
      s"no json round trip: $why"))
    observe(df, id, sketch, "", Some(options))
  }

  private def scalaMap(m: java.util.Map[String, String]): Map[String, String] = {
    var out = Map.empty[String, String]
    m.forEach((k, v) => out += k -> v)
    out
  }

  private def observe(df: DataFrame, id: String, sketch: Boolean, partitionBy: String,
                      json: Option[JsonOptions]): DataFrame = {
    Kinds.canonicalSchema(df.schema) match {
      case Left(why) => throw new RowsV1Error(why)
      case Right(_) =>
    }
    val keys = if (partitionBy.isEmpty) null else PartitionColumns.of(df.schema, partitionBy.split("\n").toSeq)
    install(df.sparkSession)
    release()
    val sums = new RowsV1SumsAccumulator(sketch, keys)
    val entry = new Entry(id, sums)
    val before = observed.putIfAbsent(id, entry)
    // a name whose frame was collected but not yet released is free again
    if (before != null && !(before.get() == null && observed.replace(id, before, entry))) {
      throw new IllegalArgumentException(s"observation '$id' is already in use")
    }
    df.sparkSession.sparkContext.register(sums, s"ubunye rows_v1 $id")
    PlanFrames.ofRows(df.sparkSession, RowsV1Observed(id, sums, PlanFrames.logicalPlan(df), json))
  }

  /** `Array(rows, a, b)` observed under `id` so far (sums modulo 2^64, as signed longs). */
  def sums(id: String): Array[Long] = accumulator(id).value

  /** A row's json round trip failed under `id` (an observation of `attachJson`). */
  def broken(id: String): Boolean = accumulator(id).broken

  /** How many partitions reported under `id` so far. */
  def partitions(id: String): Int = accumulator(id).partitions

  /** `"rows a b partitions"` observed under `id` so far (the sums as signed longs), in
    * one call (for Python: one py4j round trip); `forget`: then drops `id`.
    */
  def result(id: String, forget: Boolean): String = {
    val sums = accumulator(id)
    val total = sums.value
    if (forget) observed.remove(id)
    s"${total(0)} ${total(1)} ${total(2)} ${sums.partitions}"
  }

  /** [[result]] and, as a fifth word, the sketch cells observed under `id` (base64 of
    * the record form's bytes, `SketchCells.toBytes`), or `-` when it takes no sketch.
    */
  def resultWithCells(id: String, forget: Boolean): String = {
    val cells = accumulator(id).cells
    val text = if (cells == null) "-" else Base64.getEncoder.encodeToString(SketchCells.toBytes(cells))
    s"${result(id, forget)} $text"
  }

  /** [[resultWithCells]] and, on the lines after it, the sums of each partition folder's
    * rows, sorted by key: `key TAB rows TAB a TAB b` (sums as signed longs; a key holds
    * no tab or line break, section 7 escapes them). No such lines when the observation
    * has no partition columns or saw no row.
    */
  def resultWithParts(id: String, forget: Boolean): String = {
    val parts = accumulator(id).parts
    val lines = new StringBuilder(resultWithCells(id, forget))
    if (parts != null) parts.forEach { (key, s) => lines.append(s"\n$key\t${s(0)}\t${s(1)}\t${s(2)}") }
    lines.toString
  }

  /** Drops `id` (after its result was read, or when its write failed). */
  def forget(id: String): Unit = {
    release()
    observed.remove(id)
  }

  /** How many observations are attached and not yet forgotten, nor released with the
    * last frame that held them.
    */
  def pending: Int = {
    release()
    observed.size
  }

  private def accumulator(id: String): RowsV1SumsAccumulator = {
    release()
    val entry = observed.get(id)
    val sums = if (entry == null) null else entry.get()
    if (sums == null) throw new NoSuchElementException(
      s"no rows-v1 observation '$id' (never attached, already read or forgotten, or no frame holds it any more)")
    sums
  }

  /** Adds the planner strategy of observed frames to `spark` (sessions built without
    * the plugin's extension). Idempotent.
    */
  def install(spark: SparkSession): Unit = spark.synchronized {
    val extra = spark.experimental.extraStrategies
    if (!extra.contains(RowsV1ObservedStrategy)) spark.experimental.extraStrategies = extra :+ RowsV1ObservedStrategy
  }
}
