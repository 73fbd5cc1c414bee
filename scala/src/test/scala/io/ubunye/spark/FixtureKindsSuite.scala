package io.ubunye.spark

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import io.ubunye.spark.rowsv1.{Digests, Kinds, SketchCells}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

/** The checks of the shared fixtures (tests/fixtures/rows-v1) and sketch vectors that need
  * no Spark session: each fixture's kinds and schema hash, its data hash from its recorded
  * lines, an error fixture's refusal by the kinds, and the sketch's cell rule; with the
  * kinds, texts and cell arithmetic the fixtures do not reach (found by PIT). Run by every
  * line (scripts/test-jars) and by the mutation runs (scripts/pit), where a suite with a
  * session would start one per test.
  */
class FixtureKindsSuite extends AnyFunSuite {

  /** A line's two lanes: the first two big-endian longs of its SHA-256 (spec section 5). */
  private def lanes(line: String): (Long, Long) = {
    val d = ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(line.getBytes(UTF_8)))
    (d.getLong(0), d.getLong(8))
  }

  Fixtures.all.foreach { f =>
    f.error match {
      case None =>
        test(s"fixture ${f.name}: kinds and schema hash") {
          val kinds = Kinds.canonicalSchema(f.schema).fold(e => fail(e), identity)
          assert(kinds.toSet == f.columns.map(c => c._1 -> c._2).toSet)
          assert(Digests.schemaHash(kinds) == f.schemaHash)
        }
        test(s"fixture ${f.name}: data hash from its lines' lanes") {
          val kinds = Kinds.canonicalSchema(f.schema).fold(e => fail(e), identity)
          val sums = f.lines.map(lanes).foldLeft((0L, 0L)) { case ((a, b), (x, y)) => (a + x, b + y) }
          assert(f.lines.size.toLong == f.rowCount)
          assert(Digests.dataHash(Digests.schemaJson(kinds), f.rowCount, sums._1, sums._2) == f.dataHash)
        }
      case Some(reason) =>
        test(s"fixture ${f.name}: the kinds refuse it naming the culprit") {
          val why = Kinds.canonicalSchema(f.schema).fold(identity, k => fail(s"kinds $k"))
          assert(why.contains(reason), why)
          assert(why.contains(s"'${f.columns.last._1}'"), why)
        }
    }
  }

  test("the cell rule gives the known-answer cells from the vectors' lanes") {
    val cases = SketchVectors.cases
    assert(cases.size >= 4)
    cases.foreach { c =>
      val cells = SketchCells.empty()
      SketchVectors.lanes(c).foreach { case (a, b) => SketchCells.add(cells, a, b) }
      assert(SketchCells.toBytes(cells).sameElements(SketchVectors.expected(c)), c.get("name").asText())
    }
  }

  /** A user-defined type stored as a long (a map key, unlike [[PointUDT]]'s struct). */
  private class LongUDT extends UserDefinedType[java.lang.Long] {
    override def sqlType: DataType = LongType
    override def serialize(v: java.lang.Long): Any = v
    override def deserialize(datum: Any): java.lang.Long = datum.asInstanceOf[java.lang.Long]
    override def userClass: Class[java.lang.Long] = classOf[java.lang.Long]
  }

  test("the kinds no fixture has: null, char and varchar, user-defined types, binary map keys") {
    assert(Kinds.kindOf(NullType) == Right("null"))
    assert(Kinds.kindOf(CharType(3)) == Right("string"))
    assert(Kinds.kindOf(VarcharType(5)) == Right("string"))
    assert(Kinds.kindOf(new PointUDT) == Right("struct<x:float64,y:float64>"))
    assert(Kinds.kindOf(MapType(new LongUDT, BinaryType)) == Right("map<int64,binary>"))
    assert(Kinds.kindOf(MapType(BinaryType, NullType)) == Right("map<binary,null>"))
    val keys = Seq(BooleanType, ByteType, ShortType, IntegerType, LongType, FloatType, DoubleType, DecimalType(5, 2),
      StringType, CharType(2), VarcharType(2), BinaryType, DateType, TimestampType, TimestampNTZType, new LongUDT)
    keys.foreach(k => assert(Kinds.isKeyType(k), k))
    Seq(NullType, ArrayType(IntegerType), MapType(IntegerType, IntegerType), new StructType().add("a", IntegerType),
      new PointUDT, CalendarIntervalType).foreach(k => assert(!Kinds.isKeyType(k), k))
  }

  test("a type with no canonical text is refused naming the type, wherever it is nested") {
    val why = "type interval has no canonical text"
    Seq[DataType](CalendarIntervalType, ArrayType(CalendarIntervalType), MapType(StringType, CalendarIntervalType),
      new StructType().add("a", IntegerType).add("b", CalendarIntervalType).add("c", IntegerType))
      .foreach(t => assert(Kinds.kindOf(t) == Left(why), t))
    assert(Kinds.kindOf(MapType(NullType, IntegerType)) == Left("map key of kind null has no canonical text"))
    val schema = new StructType().add("ok", IntegerType).add("iv", ArrayType(CalendarIntervalType)).add("z", IntegerType)
    assert(Kinds.canonicalSchema(schema) == Left(s"column 'iv' of type array<interval>: $why"))
    assert(Kinds.canonicalSchema(new StructType().add("b", IntegerType).add("a", LongType).add("b", LongType)
      .add("a", IntegerType).add("c", IntegerType)) == Left("duplicate top-level column names: 'a', 'b'"))
  }

  test("names are ordered by their UTF-8 bytes, unsigned: code points, not UTF-16 units") {
    val order = Seq("", "A", "B", "a", "ab", "abc", "b", "\u007f", "\u0080", "\u00e9", "\uff21", "\ud83d\ude00")
    for (i <- order.indices; j <- order.indices) {
      val c = Kinds.compareCodePoints(order(i), order(j))
      assert(Integer.signum(c) == Integer.signum(i.compareTo(j)), s"${order(i)} ${order(j)}: $c")
    }
    val schema = StructType(order.tail.reverse.map(n => StructField(n, IntegerType)))
    assert(Kinds.canonicalSchema(schema).map(_.map(_._1)) == Right(order.tail))
  }

  test("JSON strings are written as Python's json.dumps writes them (ASCII, \\uXXXX escapes)") {
    val text = "\"\\\b\t\n\f\r\u0000\u001f ~\u007f\u0080\u00e9\uffff\ud83d\ude00"
    // json.dumps(text, separators=(",", ":")) in Python 3
    val python = "\"\\\"\\\\\\b\\t\\n\\f\\r\\u0000\\u001f ~\\u007f\\u0080\\u00e9\\uffff\\ud83d\\ude00\""
    assert(Digests.jsonString(text) == python)
    assert(Digests.schemaJson(Seq("a" -> "int32", "\u00e9" -> "list<string>")) ==
      "[[\"a\",\"int32\"],[\"\\u00e9\",\"list<string>\"]]")
  }

  test("a sketch held after other numbers: add, merge and toBytes at an offset, the numbers around untouched") {
    val rnd = new java.util.Random(20261203L)
    val rows = Seq.fill(50)((rnd.nextLong(), rnd.nextLong()))
    val alone = SketchCells.empty()
    rows.foreach { case (a, b) => SketchCells.add(alone, a, b) }
    val at = 3
    val held = Array.fill(at + SketchCells.Longs + 2)(-7L)
    (0 until SketchCells.Longs).foreach(i => held(at + i) = 0L)
    rows.foreach { case (a, b) => SketchCells.add(held, at, a, b) }
    assert(held.take(at).forall(_ == -7L) && held.drop(at + SketchCells.Longs).forall(_ == -7L))
    assert(SketchCells.toBytes(held, at).sameElements(SketchCells.toBytes(alone)))
    // merged at other offsets: twice the cells, the numbers around kept
    val into = Array.fill(5 + SketchCells.Longs + 1)(11L)
    (0 until SketchCells.Longs).foreach(i => into(5 + i) = alone(i))
    SketchCells.merge(into, 5, held, at)
    assert(into.take(5).forall(_ == 11L) && into.last == 11L)
    assert((0 until SketchCells.Longs).forall(i => into(5 + i) == 2 * alone(i)))
  }
}
