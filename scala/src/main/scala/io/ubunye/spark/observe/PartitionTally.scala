package io.ubunye.spark.observe

import java.time.{LocalDate, LocalDateTime, ZoneOffset}

import io.ubunye.spark.rowsv1.{RowsV1Error, ShortestDecimal}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** The per-partition sums of `docs/spec/rows-v1-localise.md` section 7 for one Spark
  * partition: the row count and the two lane sums of the rows of each partition folder
  * (`day=2024-01-02/shop=7`, the folder Spark's `partitionBy` writes).
  *
  * Rows are tallied by their partition values (a probe of reused slots, copied only when
  * a new combination appears); the folder text of a combination is made once, when the
  * task reports ([[keyed]]). Not thread-safe: one per task.
  *
  * @param names the frame's names of the partition columns, in folder order
  * @param types their types (each one [[PartitionTally.supported]])
  */
final class PartitionTally(names: Array[String], types: Array[DataType]) {
  private val slots = new Array[AnyRef](names.length)
  private val probe = new PartitionTally.Values(slots)
  private val seen = new java.util.HashMap[PartitionTally.Values, PartitionTally.Values]()
  private var last: PartitionTally.Values = _

  def putNull(i: Int): Unit = slots(i) = null
  def putBoolean(i: Int, v: Boolean): Unit = slots(i) = java.lang.Boolean.valueOf(v)
  def putInt(i: Int, v: Int): Unit = slots(i) = java.lang.Integer.valueOf(v)
  def putLong(i: Int, v: Long): Unit = slots(i) = java.lang.Long.valueOf(v)
  def putFloat(i: Int, v: Float): Unit = slots(i) = java.lang.Float.valueOf(v)
  def putDouble(i: Int, v: Double): Unit = slots(i) = java.lang.Double.valueOf(v)
  /** A `UTF8String` or a `Decimal` (copied if kept). */
  def putObject(i: Int, v: AnyRef): Unit = slots(i) = v

  /** Takes the partition values of an `InternalRow` whose fields `ordinals` hold them. */
  def putRow(row: InternalRow, ordinals: Array[Int]): Unit = {
    var i = 0
    while (i < ordinals.length) {
      slots(i) = if (row.isNullAt(ordinals(i))) null else row.get(ordinals(i), types(i))
      i += 1
    }
  }

  /** Adds a row with lanes `a`, `b` to the sums of the values put since the last row. */
  def add(a: Long, b: Long): Unit = {
    if (last == null || !last.sameAs(slots)) last = find()
    val s = last.sums
    s(0) += 1; s(1) += a; s(2) += b
  }

  /** The kept combination equal to the values put (kept now if new). */
  private def find(): PartitionTally.Values = {
    probe.rehash()
    val kept = seen.get(probe)
    if (kept != null) kept else {
      val made = new PartitionTally.Values(slots.map(PartitionTally.copyOf))
      made.rehash()
      seen.put(made, made)
      made
    }
  }

  /** The sums by folder key (combinations of values with the same text merge). */
  def keyed: java.util.Map[String, Array[Long]] = {
    val out = new java.util.HashMap[String, Array[Long]]()
    seen.forEach { (values, _) =>
      val key = PartitionTally.key(names, types, values.values)
      val t = out.get(key)
      if (t == null) out.put(key, values.sums.clone()) else PartitionTally.addInto(t, values.sums)
    }
    out
  }
}

object PartitionTally {
  /** The folder text of a null or empty value. */
  final val DefaultPartition = "__HIVE_DEFAULT_PARTITION__"

  /** A combination of partition values (equality and hash of the values) and, once kept,
    * the sums of its rows.
    */
  private final class Values(val values: Array[AnyRef]) {
    val sums = new Array[Long](3)
    private var hash = 0
    def rehash(): Unit = hash = java.util.Arrays.hashCode(values)
    def sameAs(other: Array[AnyRef]): Boolean = java.util.Arrays.equals(values, other)
    override def hashCode: Int = hash
    override def equals(o: Any): Boolean = o match {
      case v: Values => java.util.Arrays.equals(values, v.values)
      case _ => false
    }
  }

  private def copyOf(v: AnyRef): AnyRef = v match {
    case s: UTF8String => s.clone()
    case d: Decimal => d.clone()
    case other => other
  }

  def addInto(total: Array[Long], part: Array[Long]): Unit = {
    total(0) += part(0); total(1) += part(1); total(2) += part(2)
  }

  /** Types Spark can write as partition folders (and the fallback names). */
  def supported(t: DataType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType |
         DateType | TimestampType | StringType => true
    case _: DecimalType => true
    case other => other.typeName == "timestamp_ntz"
  }

  /** The ordinals in `schema` of the partition columns `columns` (the exact name, else
    * ignoring case, as Spark matches them); fails naming the column.
    */
  def ordinals(schema: StructType, columns: Seq[String]): Array[Int] = {
    val names = schema.fieldNames
    val found = columns.map { c =>
      val i = names.indexOf(c) match {
        case -1 => names.indexWhere(_.equalsIgnoreCase(c))
        case n => n
      }
      if (i < 0) throw new RowsV1Error(s"partition column '$c' is not a column of the frame (${names.mkString(", ")})")
      if (!supported(schema(i).dataType)) {
        throw new RowsV1Error(s"partition column '${names(i)}' of type ${schema(i).dataType.simpleString} cannot be a partition column")
      }
      i
    }
    found.toArray
  }

  /** The characters Spark's `escapePathName` escapes besides DEL and the controls. */
  final val EscapedChars = "\"#%'*/:=?\\{[]^"

  /** Spark's `escapePathName`: the characters of `EscapedChars`, DEL and U+0001..U+001F as `%XX`. */
  def escape(text: String): String = {
    val out = new java.lang.StringBuilder(text.length)
    text.foreach { c =>
      if (c < 0x20 && c > 0 || c == 0x7f || EscapedChars.indexOf(c) >= 0) {
        out.append('%').append(f"${c.toInt}%02X")
      } else out.append(c)
    }
    out.toString
  }

  /** The folder text of one value (section 7: Spark's cast to string in UTC, escaped). */
  def text(value: Any, t: DataType): String = {
    val s = if (value == null) "" else (t, value) match {
      case (FloatType, f: java.lang.Float) => ShortestDecimal.floatToString(f)
      case (DoubleType, d: java.lang.Double) => ShortestDecimal.doubleToString(d)
      case (d: DecimalType, v: Decimal) => v.toJavaBigDecimal.setScale(d.scale).toPlainString
      case (DateType, days: java.lang.Integer) => dateText(LocalDate.ofEpochDay(days.longValue))
      case (_, micros: java.lang.Long) if t == TimestampType || t.typeName == "timestamp_ntz" => instantText(micros)
      case (_, other) => other.toString
    }
    if (s.isEmpty) DefaultPartition else escape(s)
  }

  private def dateText(d: LocalDate): String = f"${d.getYear}%04d-${d.getMonthValue}%02d-${d.getDayOfMonth}%02d"

  private def instantText(micros: Long): String = {
    val seconds = Math.floorDiv(micros, 1000000L)
    val fraction = Math.floorMod(micros, 1000000L).toInt
    val t = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC)
    val head = f"${dateText(t.toLocalDate)} ${t.getHour}%02d:${t.getMinute}%02d:${t.getSecond}%02d"
    if (fraction == 0) head else head + ("." + f"$fraction%06d").replaceAll("0+$", "")
  }

  /** The folder key of one combination of values: `<escape(name)>=<text>` joined by `/`. */
  def key(names: Array[String], types: Array[DataType], values: Array[AnyRef]): String =
    names.indices.map(i => s"${escape(names(i))}=${text(values(i), types(i))}").mkString("/")
}

/** The partition columns of an observed frame: the frame's names, in folder order, their
  * ordinals in the observed node's output and their types.
  */
final case class PartitionColumns(names: Array[String], ordinals: Array[Int], types: Array[DataType]) {
  def newTally(): PartitionTally = new PartitionTally(names, types)
}

object PartitionColumns {
  /** The partition columns `columns` of `schema` (matched as Spark matches them). */
  def of(schema: StructType, columns: Seq[String]): PartitionColumns = {
    val ordinals = PartitionTally.ordinals(schema, columns)
    PartitionColumns(ordinals.map(schema(_).name), ordinals, ordinals.map(schema(_).dataType))
  }
}
