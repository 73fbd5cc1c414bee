package io.ubunye.spark

import java.io.File
import java.time.{Instant, LocalDate, LocalDateTime, ZoneOffset}

import scala.collection.immutable.ListMap

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import org.apache.spark.sql.Row
import org.apache.spark.sql.types._

/** A rows-v1 fixture (`rows-v1-fixture/1`, /work/shared/spec/fixture-format.md).
  *
  * A column's optional `arrow` type (`uint8` for a column of kind `int16`) is not read
  * here: its `spark` type is the type Spark reads that Arrow column as from parquet,
  * and the fixture's values are built with it directly.
  */
final case class Fixture(
    file: String,
    name: String,
    columns: Seq[(String, String, DataType)],
    rows: Seq[JsonNode],
    error: Option[String],
    rowCount: Long,
    schemaHash: String,
    dataHash: String,
    lines: Seq[String]) {

  /** The Spark schema built from the fixture's DDL types. */
  def schema: StructType = StructType(columns.map { case (n, _, t) => StructField(n, t, nullable = true) })

  /** The rows as external Spark values (java.time for dates and timestamps). */
  def sparkRows: Seq[Row] = rows.map { r =>
    Row.fromSeq(columns.map { case (n, _, t) => Fixtures.value(r.get(n), t) })
  }
}

object Fixtures {
  private val mapper = new ObjectMapper()

  /** The elements of a JSON array (no collection converters: Scala 2.12 and 2.13). */
  private def elements(node: JsonNode): Seq[JsonNode] = {
    val it = node.elements()
    val b = Seq.newBuilder[JsonNode]
    while (it.hasNext) b += it.next()
    b.result()
  }

  /** The fixture folder, relative to the repository root (the tests' working folder). */
  val folder: File = new File("tests/fixtures/rows-v1")

  def all: Seq[Fixture] = {
    val files = Option(folder.listFiles()).getOrElse(Array.empty[File]).filter(_.getName.endsWith(".json"))
    require(files.nonEmpty, s"no fixtures in ${folder.getAbsolutePath}")
    files.sortBy(_.getName).toSeq.map(load)
  }

  def load(file: File): Fixture = {
    val root = mapper.readTree(file)
    require(root.get("format").asText == "rows-v1-fixture/1", s"$file: unknown format")
    val columns = elements(root.get("columns")).map { c =>
      (c.get("name").asText, c.get("kind").asText, DataType.fromDDL(c.get("spark").asText))
    }
    val expect = root.get("expect")
    val error = Option(expect.get("error")).map(_.asText)
    Fixture(
      file.getName, root.get("name").asText, columns, elements(root.get("rows")), error,
      if (error.isEmpty) expect.get("row_count").asLong else -1L,
      if (error.isEmpty) expect.get("schema_hash").asText else "",
      if (error.isEmpty) expect.get("data_hash").asText else "",
      if (error.isEmpty) elements(expect.get("lines")).map(_.asText) else Nil)
  }

  /** A fixture value (fixture-format.md, "Value encoding") as an external Spark value. */
  def value(node: JsonNode, dt: DataType): Any =
    if (node == null || node.isNull) null
    else dt match {
      case BooleanType => node.asBoolean
      case ByteType => node.asInt.toByte
      case ShortType => node.asInt.toShort
      case IntegerType => node.asInt
      case LongType => node.asLong
      case DoubleType => java.lang.Double.parseDouble(node.asText)
      case FloatType => java.lang.Double.parseDouble(node.asText).toFloat
      case _: DecimalType => new java.math.BigDecimal(node.asText)
      case StringType => node.asText
      case BinaryType => java.util.Base64.getDecoder.decode(node.asText)
      // "YYYY-MM-DD", or days since 1970-01-01 for years outside 0001..9999
      case DateType => if (node.isIntegralNumber) LocalDate.ofEpochDay(node.asLong) else LocalDate.parse(node.asText)
      case TimestampType =>
        val us = node.asLong
        Instant.ofEpochSecond(Math.floorDiv(us, 1000000L), Math.floorMod(us, 1000000L) * 1000L)
      case TimestampNTZType =>
        val us = node.asLong
        LocalDateTime.ofEpochSecond(Math.floorDiv(us, 1000000L), (Math.floorMod(us, 1000000L) * 1000L).toInt,
          ZoneOffset.UTC)
      case ArrayType(e, _) => elements(node).map(value(_, e))
      case MapType(k, v, _) =>
        ListMap(elements(node).map(p => value(p.get(0), k) -> value(p.get(1), v)): _*)
      case s: StructType => Row.fromSeq(s.fields.toSeq.map(f => value(node.get(f.name), f.dataType)))
      case other => throw new IllegalArgumentException(s"fixture value of type ${other.catalogString}")
    }
}
