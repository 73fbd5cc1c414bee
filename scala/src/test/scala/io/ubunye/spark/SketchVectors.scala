package io.ubunye.spark

import java.io.File
import java.nio.{ByteBuffer, ByteOrder}

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import io.ubunye.spark.rowsv1.SketchCells

/** The sketch's known-answer vectors (`tests/fixtures/sketch/vectors.json`, the Python
  * reference's), read without Spark.
  */
object SketchVectors {

  /** What a Jackson iterator gives (no collection converters: Scala 2.12 and 2.13 alike). */
  def seq[T](it: java.util.Iterator[T]): Seq[T] = {
    val b = Seq.newBuilder[T]
    while (it.hasNext) b += it.next()
    b.result()
  }

  private val mapper = new ObjectMapper()
  private lazy val vectors: JsonNode = mapper.readTree(new File("tests/fixtures/sketch/vectors.json"))

  /** An object's members in order (not `JsonNode.fields`, deprecated in newer Jacksons). */
  def members(n: JsonNode): Seq[(String, JsonNode)] =
    seq(mapper.convertValue(n, classOf[java.util.LinkedHashMap[String, AnyRef]]).keySet().iterator()).map(k => k -> n.get(k))

  /** The cases of the default size (the only size the plugin computes). */
  def cases: Seq[JsonNode] = seq(vectors.get("cases").elements())
    .filter(c => c.get("cells").asInt() == SketchCells.Cells && c.get("k").asInt() == SketchCells.K)

  /** A case's rows' lanes, read as unsigned 64-bit numbers. */
  def lanes(c: JsonNode): Seq[(Long, Long)] = seq(c.get("lanes").elements()).map(l =>
    (java.lang.Long.parseUnsignedLong(l.get(0).asText()), java.lang.Long.parseUnsignedLong(l.get(1).asText())))

  /** A case's expected cells as the record form's bytes: four little-endian u64 per cell,
    * written here (not by `SketchCells.toBytes`, which the tests check).
    */
  def expected(c: JsonNode): Array[Byte] = {
    val out = ByteBuffer.allocate(8 * SketchCells.Longs).order(ByteOrder.LITTLE_ENDIAN)
    members(c.get("expected_cells")).foreach { case (key, value) =>
      val values = seq(value.elements()).map(v => java.lang.Long.parseUnsignedLong(v.asText()))
      values.zipWithIndex.foreach { case (v, i) => out.putLong(8 * (4 * key.toInt + i), v) }
    }
    out.array()
  }
}
