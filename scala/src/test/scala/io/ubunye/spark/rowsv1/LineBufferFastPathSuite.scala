package io.ubunye.spark.rowsv1

import java.nio.charset.StandardCharsets.UTF_8
import java.time.LocalDate
import java.time.format.DateTimeFormatterBuilder
import java.time.format.SignStyle
import java.time.temporal.ChronoField

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** The fast paths of the line writer (digit pairs, digit counts, one-pass string copy,
  * quoted dates, member prefixes with their comma) against plain reference texts.
  */
class LineBufferFastPathSuite extends AnyFunSuite {

  private def text(body: LineBuffer => Unit): String = {
    val b = new LineBuffer(4) // small, so every writer has to grow the buffer
    body(b)
    new String(b.bytes, 0, b.pos, UTF_8)
  }

  /** 0, every power of ten up to 10^18 and its neighbours, the type's bounds. */
  private val boundaryLongs: Seq[Long] = {
    val powers = Iterator.iterate(1L)(_ * 10).take(19).toSeq
    (Seq(0L, 1L, 9L, Int.MaxValue.toLong, Int.MaxValue + 1L, Long.MaxValue - 1, Long.MaxValue) ++
      powers.flatMap(p => Seq(p - 1, p, p + 1))).distinct
  }

  test("integers of every length 1..19 and around every power of ten print as Long.toString") {
    val r = new scala.util.Random(11)
    val byLength = (1 to 19).flatMap { n =>
      val low = if (n == 1) 0L else BigInt(10).pow(n - 1).toLong
      val span = if (n == 19) Long.MaxValue - low else BigInt(10).pow(n).toLong - low
      Seq.fill(200)(low + (r.nextLong() & Long.MaxValue) % span)
    }
    val all = boundaryLongs ++ byLength
    assert(byLength.map(_.toString.length).toSet == (1 to 19).toSet)
    (all ++ all.map(-_) ++ Seq(Long.MinValue, Long.MinValue + 1, Int.MinValue.toLong)).foreach { v =>
      assert(text(_.putLong(v)) == v.toString, s"long $v")
    }
    (Seq(0, 1, -1, 9, 10, 99, 100, Int.MaxValue, Int.MinValue, Int.MinValue + 1) ++ Seq.fill(2000)(r.nextInt()))
      .foreach(v => assert(text(_.putInt(v)) == v.toString, s"int $v"))
  }

  test("decimalLength counts digits at every power of ten boundary") {
    boundaryLongs.foreach(v => assert(LineBuffer.decimalLength(v) == v.toString.length, s"length of $v"))
  }

  test("putPositiveLong zero-pads on the left when asked for more digits") {
    Seq(0L -> 4, 7L -> 4, 12L -> 4, 999L -> 4, 12345L -> 7, 99999999L -> 12, 123456789012L -> 19).foreach {
      case (v, len) =>
        val out = Array.fill[Byte](len + 2)('#')
        assert(LineBuffer.putPositiveLong(out, 1, v, len) == len + 1)
        assert(new String(out, UTF_8) == "#" + s"%0${len}d".format(v) + "#", s"$v in $len digits")
    }
  }

  test("digits by words (integer columns) equal digits by pairs, zero-padded, at every length") {
    val r = new scala.util.Random(11)
    val cases = for {
      len <- 1 to 19
      v <- Seq(0L, 1L, 7L) ++ boundaryLongs.filter(_.toString.length <= len) ++
        Seq.fill(50)((r.nextLong() & Long.MaxValue) % BigInt(10).pow(math.min(len, 18)).toLong)
    } yield (v, len)
    cases.foreach { case (v, len) =>
      val expected = "#" + s"%0${len}d".format(v)
      val words = Array.fill[Byte](len + 1 + 8)('#')
      assert(LineBuffer.putDigitWords(words, 1, v, len) == len + 1)
      assert(new String(words, 0, len + 1, UTF_8) == expected, s"$v in $len digits by words")
      val pairs = Array.fill[Byte](len + 1)('#')
      assert(LineBuffer.putPositiveLong(pairs, 1, v, len) == len + 1)
      assert(new String(pairs, UTF_8) == expected, s"$v in $len digits by pairs")
    }
  }

  test("eightDigits holds the eight digits of every value below 10^8") {
    // every value, checked arithmetically (a string per value would take minutes)
    var v = 0
    var bad = -1
    while (v < 100000000 && bad < 0) {
      val w = LineBuffer.eightDigits(v)
      var back = 0L
      var b = 0
      while (b < 8) {
        val d = ((w >>> (8 * b)) & 0xff) - '0'
        if (d < 0 || d > 9) bad = v
        back = back * 10 + d
        b += 1
      }
      if (back != v) bad = v
      v += 1
    }
    assert(bad == -1, s"eightDigits($bad)")
  }

  /** Jackson's escapes of a string's UTF-8 bytes, byte by byte (spec 2.2). */
  private def jackson(s: String): String = {
    val sb = new StringBuilder("\"")
    s.foreach {
      case '"' => sb.append("\\\"")
      case '\\' => sb.append("\\\\")
      case '\b' => sb.append("\\b")
      case '\t' => sb.append("\\t")
      case '\n' => sb.append("\\n")
      case '\f' => sb.append("\\f")
      case '\r' => sb.append("\\r")
      case c if c < 0x20 => sb.append(f"\\u${c.toInt}%04X")
      case c => sb.append(c)
    }
    sb.append('"').toString
  }

  test("strings: escapes at the start, middle and end, every control byte, non-ASCII, empty, long") {
    val controls = (0 until 0x20).map(_.toChar).mkString
    val cases = Seq(
      "", "a", "plain ascii", "\"start", "end\"", "mid\\dle", "\nx", "x\n", "\u0000", "\u001f\u007f",
      controls, "é😀\u2028 ünïcödé", "é\"😀", "x" * 5000, "x" * 5000 + "\"" + "y" * 5000, "\\" * 3000,
      "z" * 511 + "\t") ++ controls.map(c => s"ab${c}cd")
    cases.foreach { s =>
      val bytes = s.getBytes(UTF_8)
      assert(text(_.putQuoted(UTF8String.fromString(s))) == jackson(s), s"string ${s.take(20)}")
      assert(text(_.putQuoted(bytes)) == jackson(s), s"bytes ${s.take(20)}")
      // a string that is a slice of a larger array (offset not at the array start)
      val padded = Array[Byte]('"', '\\') ++ bytes ++ Array[Byte]('\n')
      assert(text(_.putQuoted(UTF8String.fromBytes(padded, 2, bytes.length))) == jackson(s), s"slice ${s.take(20)}")
    }
  }

  /** Jackson's escapes of raw bytes, one byte at a time (bytes 0x80.. pass as they are). */
  private def escapedBytes(bytes: Array[Byte]): Array[Byte] = {
    val out = new java.io.ByteArrayOutputStream()
    out.write('"')
    bytes.foreach { b =>
      val text = (b & 0xff) match {
        case 0x22 => "\\\""
        case 0x5c => "\\\\"
        case 0x08 => "\\b"
        case 0x09 => "\\t"
        case 0x0a => "\\n"
        case 0x0c => "\\f"
        case 0x0d => "\\r"
        case c if c < 0x20 => f"\\u$c%04X"
        case _ => null
      }
      if (text == null) out.write(b) else out.write(text.getBytes(UTF_8))
    }
    out.write('"')
    out.toByteArray
  }

  test("every byte value at every position of the eight-byte steps is escaped or kept as it should") {
    val b = new LineBuffer(4)
    for (len <- Seq(7, 8, 9, 16, 17, 24); at <- 0 until len; v <- 0 until 256) {
      val bytes = Array.tabulate[Byte](len)(i => if (i == at) v.toByte else ('a' + i % 26).toByte)
      b.reset()
      b.putQuoted(UTF8String.fromBytes(bytes))
      val want = escapedBytes(bytes)
      assert(java.util.Arrays.equals(java.util.Arrays.copyOf(b.bytes, b.pos), want),
        s"byte 0x${v.toHexString} at $at of $len")
    }
    // two escapes in one word, and a clean word after an escaped one
    Seq("ab\"cd\\ef" + "ghijklmn", "abcdefgh" + "\n\t" + "ijklmnopqrstuvwx", "\u0000" * 8 + "12345678").foreach { s =>
      assert(text(_.putQuoted(UTF8String.fromString(s))) == jackson(s), s)
    }
  }

  test("plainString writes every string with no byte to escape (lengths 0..40, any offset), -1 for one with") {
    // -1 sends the caller to the escaping writer: a plain string must never get it (nor a wrong end)
    val src = Array.tabulate[Byte](56)(i => ('a' + i % 26).toByte)
    for (n <- 0 to 40; offset <- 0 until 8) {
      val v = UTF8String.fromBytes(src, offset, n)
      val out = new Array[Byte](n + LineText.StringRoom + 3)
      assert(LineText.plainString(out, 3, v) == n + 5, s"$n bytes at $offset")
      assert(new String(out, 3, n + 2, UTF_8) == "\"" + v.toString + "\"", s"$n bytes at $offset")
      if (n > 0) {
        val quoted = src.clone()
        quoted(offset + n - 1) = '"'
        assert(LineText.plainString(new Array[Byte](n + 8), 3, UTF8String.fromBytes(quoted, offset, n)) == -1, s"$n bytes at $offset")
      }
    }
  }

  test("the boolean, double and timestamp writers make room for their text at any fill of a small buffer") {
    // each writer stores without a bounds check of its own after its ensure: the same text
    // into a 4-byte buffer after 0..8 bytes as into a roomy one
    val writes: Seq[LineBuffer => Unit] = Seq(
      BooleanWriter.put(_, true), BooleanWriter.put(_, false),
      DoubleWriter.put(_, -1.2345678901234567e-300, false), DoubleWriter.put(_, Double.NaN, false),
      DoubleWriter.put(_, Double.NegativeInfinity, false),
      new TimestampWriter(true).write(_, new GenericInternalRow(Array[Any](-62135596800000001L)), 0),
      new TimestampWriter(false).write(_, new GenericInternalRow(Array[Any](Long.MaxValue)), 0))
    writes.zipWithIndex.foreach { case (w, k) =>
      val roomy = new LineBuffer(256)
      w(roomy)
      val want = new String(roomy.bytes, 0, roomy.pos, UTF_8)
      (0 to 8).foreach { fill =>
        assert(text { b => (0 until fill).foreach(_ => b.put('x')); w(b) } == "x" * fill + want, s"write $k after $fill")
      }
    }
  }

  test("member prefixes and constants of every short length are copied whole") {
    (0 to 40).foreach { n =>
      val src = Array.tabulate[Byte](n)(i => ('A' + i % 26).toByte)
      val b = new LineBuffer(4)
      b.put('<'); b.put(src); b.put('>')
      assert(new String(b.bytes, 0, b.pos, UTF_8) == "<" + new String(src, UTF_8) + ">", s"$n bytes")
    }
  }

  test("strings off heap are read through their address") {
    val s = "off \"heap\" é\n" + "x" * 600
    val bytes = s.getBytes(UTF_8)
    val address = Platform.allocateMemory(bytes.length)
    try {
      Platform.copyMemory(bytes, Platform.BYTE_ARRAY_OFFSET, null, address, bytes.length)
      assert(text(_.putQuoted(UTF8String.fromAddress(null, address, bytes.length))) == jackson(s))
    } finally Platform.freeMemory(address)
  }

  private val isoDate = new DateTimeFormatterBuilder()
    .appendValue(ChronoField.YEAR, 4, 10, SignStyle.EXCEEDS_PAD).appendPattern("-MM-dd").toFormatter

  test("quoted dates around year boundaries, leap days and outside 0001..9999 match java.time") {
    val edges = Seq(
      LocalDate.of(1969, 12, 31), LocalDate.of(1970, 1, 1), LocalDate.of(1999, 12, 31), LocalDate.of(2000, 1, 1),
      LocalDate.of(2000, 2, 29), LocalDate.of(2000, 3, 1), LocalDate.of(1900, 2, 28), LocalDate.of(1900, 3, 1),
      LocalDate.of(1, 1, 1), LocalDate.of(0, 12, 31), LocalDate.of(0, 1, 1), LocalDate.of(0, 2, 29),
      LocalDate.of(0, 3, 1), LocalDate.of(-1, 12, 31), LocalDate.of(9999, 12, 31), LocalDate.of(10000, 1, 1))
      .map(_.toEpochDay)
    val days = (edges.flatMap(d => Seq(d - 1, d, d + 1)) ++ Seq(Int.MinValue.toLong, Int.MaxValue.toLong)).distinct
    days.foreach { d =>
      val want = LocalDate.ofEpochDay(d).format(isoDate)
      assert(text(_.putDate(d.toInt)) == want, s"day $d")
      assert(text(_.putQuotedDate(d.toInt)) == "\"" + want + "\"", s"quoted day $d")
    }
    assert(text(_.putQuotedDate(0)) == "\"1970-01-01\"")
    assert(text(_.putQuotedDate(-719162)) == "\"0001-01-01\"")
  }

  test("every day of years 0000..9999 (the short-year date path and its edges) matches java.time") {
    // 0000-01-01 - 1 .. 9999-12-31 + 1: both ends of the fast range and the general path next to them
    val from = LocalDate.of(0, 1, 1).toEpochDay - 1
    val until = LocalDate.of(9999, 12, 31).toEpochDay + 1
    val b = new LineBuffer(16)
    var d = from
    while (d <= until) {
      b.reset()
      b.putDate(d.toInt)
      val want = LocalDate.ofEpochDay(d)
      val got = new String(b.bytes, 0, b.pos, UTF_8)
      val (y, m, day) = (want.getYear, want.getMonthValue, want.getDayOfMonth)
      val ok = if (y < 0 || y > 9999) got == want.format(isoDate) else b.pos == 10 &&
        got.substring(0, 4).toInt == y && got.charAt(4) == '-' && got.substring(5, 7).toInt == m &&
        got.charAt(7) == '-' && got.substring(8, 10).toInt == day
      if (!ok) fail(s"day $d: $got, want ${want.format(isoDate)}")
      d += 1
    }
  }

  private val schema = StructType.fromDDL(
    "b STRING, a BIGINT, c DATE, d ARRAY<STRING>, e DOUBLE, f BOOLEAN")

  private def row(a: Any, b: Any, c: Any, d: Any, e: Any, f: Any): InternalRow =
    new GenericInternalRow(Array[Any](b, a, c, d, e, f))

  private val rows = Seq(
    row(1L, UTF8String.fromString("x\"y"), 19723, new GenericArrayData(Array[Any](UTF8String.fromString("t"), null)), 1.5, true),
    row(null, UTF8String.fromString("only b"), null, null, null, null),
    row(-7L, null, null, null, null, false),
    row(null, null, null, null, null, null),
    row(null, null, -719893, new GenericArrayData(Array[Any]()), Double.NaN, null))

  test("bytes held as two words (member prefixes) are written whole at every length 0..16") {
    (0 to 16).foreach { n =>
      val src = Array.tabulate[Byte](n)(i => (0x80 + 7 * i).toByte) // high bits set too
      val (w0, w1) = LineBuffer.asWords(src)
      val b = new LineBuffer(4)
      b.put('<')
      b.putWords(w0, w1, n)
      b.put('>')
      assert(b.bytes.slice(0, b.pos).toSeq == ('<'.toByte +: src.toSeq) :+ '>'.toByte, s"$n bytes")
      // and byte by byte, as on a machine without word stores
      val bytes = Array.fill[Byte](n + 2)('.'.toByte)
      LineText.wordBytes(bytes, 1, w0, w1, n)
      assert(bytes.toSeq == ('.'.toByte +: src.toSeq) :+ '.'.toByte, s"$n bytes, byte by byte")
    }
    assertThrows[IllegalArgumentException](LineBuffer.asWords(new Array[Byte](17)))
  }

  test("member by member with names of every prefix length (words and byte copies) gives the lanes of hashRow") {
    // `"name":` and `,"name":` from 4 to 40 bytes: both sides of the 16-byte word path
    val names = (1 to 36).map(n => "n" * n) ++ Seq("q\"uote", "caf\u00e9_\u20ac", "tab\tname")
    val wide = StructType(names.map(StructField(_, LongType)))
    val plan = RowsV1Plan(wide)
    val k = plan.newKernel()
    val words = plan.memberWords
    // `,"name":` fits two words up to names of 12 bytes once escaped (none here grows past it)
    assert(names.indices.filter(words(_).isDefined) == names.indices.filter(names(_).getBytes(UTF_8).length <= 12))
    val r = new scala.util.Random(5)
    (0 until 40).foreach { i =>
      val row = new GenericInternalRow(names.indices.map(f => if ((i + f) % 3 == 0) null else r.nextLong(): Any).toArray)
      k.hashRow(row)
      val (a, b) = (k.laneA, k.laneB)
      k.begin()
      plan.fieldOrder.foreach(f => if (!row.isNullAt(f)) { k.member(f); k.putLong(row.getLong(f)) })
      k.end()
      assert((k.laneA, k.laneB) == ((a, b)), s"row $i")
      // the prefix words generated code passes as literals, where they fit
      k.begin()
      plan.fieldOrder.foreach { f =>
        if (!row.isNullAt(f)) {
          words(f) match {
            case Some(w) => k.member(w.first0, w.first1, w.firstLength, w.next0, w.next1, w.nextLength)
            case None => k.member(f)
          }
          k.putLong(row.getLong(f))
        }
      }
      k.end()
      assert((k.laneA, k.laneB) == ((a, b)), s"row $i, prefix words given")
      // and the line itself, against prefixes escaped and copied byte by byte
      val members = plan.fieldOrder.filterNot(row.isNullAt).map { f =>
        new String(ValueWriter.memberPrefix(names(f)), UTF_8) + row.getLong(f)
      }
      assert(new String(k.lineBytes(row), UTF_8) == members.mkString("{", ",", "}"), s"row $i")
    }
  }

  test("the lanes are the first two big-endian longs of the line's SHA-256, for every row in turn") {
    // an oracle outside the kernel: the other tests compare two kernel paths, which share
    // the digest and the byte order
    val k = RowsV1Plan(schema).newKernel()
    rows.foreach { r =>
      val sha = java.security.MessageDigest.getInstance("SHA-256").digest(k.lineBytes(r))
      val want = java.nio.ByteBuffer.wrap(sha)
      k.hashRow(r)
      assert((k.laneA, k.laneB) == ((want.getLong(0), want.getLong(8))), r)
      assert((k.lanes.getLong(0), k.lanes.getLong(1)) == ((k.laneA, k.laneB)))
    }
    // and a fixed anchor: the all-null row's line `{}`
    k.hashRow(null)
    assert((k.laneA, k.laneB) == ((0x44136fa355b3678aL, 0x1146ad16f7e8649eL)))
  }

  /** The line of a row with one map column `m` of the given key type and long values. */
  private def mapLine(keyType: DataType, keys: Seq[Any], values: Seq[Any]): String = {
    val k = RowsV1Plan(new StructType().add("m", MapType(keyType, LongType, valueContainsNull = true))).newKernel()
    val map = new ArrayBasedMapData(new GenericArrayData(keys.toArray), new GenericArrayData(values.toArray))
    new String(k.lineBytes(new GenericInternalRow(Array[Any](map))), UTF_8)
  }

  test("map entries are sorted by key value for every key type, keys quoted, null values kept") {
    // keys given out of order, where the order of their texts differs from their values'
    val dec = (s: String) => Decimal(BigDecimal(s), 4, 1)
    val cases = Seq[(DataType, Seq[Any], String)](
      (BooleanType, Seq(true, false), """"false":1,"true":0"""),
      (ByteType, Seq(10.toByte, -2.toByte, 9.toByte), """"-2":1,"9":2,"10":0"""),
      (ShortType, Seq(10.toShort, -2.toShort, 9.toShort), """"-2":1,"9":2,"10":0"""),
      (IntegerType, Seq(10, -2, 9), """"-2":1,"9":2,"10":0"""),
      (LongType, Seq(10L, -2L, 9L), """"-2":1,"9":2,"10":0"""),
      (FloatType, Seq(10f, -2.5f, 9f), """"-2.5":1,"9.0":2,"10.0":0"""),
      (DoubleType, Seq(10d, -2.5d, 9d), """"-2.5":1,"9.0":2,"10.0":0"""),
      (DecimalType(4, 1), Seq(dec("10.0"), dec("-2.5"), dec("9.0")), """"-2.5":1,"9.0":2,"10.0":0"""),
      (StringType, Seq("\u00e9", "z", "a").map(UTF8String.fromString), """"a":2,"z":1,"\u00e9":0"""),
      (BinaryType, Seq(Array(0xff.toByte), Array(1.toByte), Array(0x7f.toByte)), """"AQ==":1,"fw==":2,"/w==":0"""),
      (DateType, Seq(10, -2, 9), """"1969-12-30":1,"1970-01-10":2,"1970-01-11":0"""),
      (TimestampType, Seq(10L, -2L, 9L),
        """"1969-12-31T23:59:59.999998Z":1,"1970-01-01T00:00:00.000009Z":2,"1970-01-01T00:00:00.000010Z":0"""))
    cases.foreach { case (dt, keys, want) =>
      assert(mapLine(dt, keys, keys.indices.map(_.toLong)) == s"""{"m":{$want}}""", dt)
    }
    assert(mapLine(IntegerType, Seq(3, 1, 2), Seq(0L, null, 2L)) == """{"m":{"1":null,"2":2,"3":0}}""")
    assert(mapLine(IntegerType, Seq(), Seq()) == """{"m":{}}""")
  }

  test("maps of 0..40 entries in random order (insertion and merge sort) give their entries by key") {
    val r = new scala.util.Random(7)
    val k = RowsV1Plan(new StructType().add("m", MapType(IntegerType, StringType))).newKernel()
    (0 to 40).foreach { n =>
      val keys = r.shuffle((-60 to 60).toList).take(n)
      val values = keys.map(key => if (key % 5 == 0) null else UTF8String.fromString(s"v$key"))
      val map = new ArrayBasedMapData(new GenericArrayData(keys.toArray[Any]), new GenericArrayData(values.toArray[Any]))
      val entries = keys.sorted.map(key => s""""$key":""" + (if (key % 5 == 0) "null" else s""""v$key""""))
      assert(new String(k.lineBytes(new GenericInternalRow(Array[Any](map))), UTF_8) == entries.mkString("""{"m":{""", ",", "}}"),
        s"$n entries")
    }
  }

  test("a map holding a key twice has no canonical text: an error naming the column and the key") {
    val e = intercept[RowsV1Error](mapLine(StringType, Seq("b", "a", "b").map(UTF8String.fromString), Seq(0L, 1L, 2L)))
    assert(e.getMessage.contains("column 'm'") && e.getMessage.contains("\"b\" twice"), e.getMessage)
  }

  test("members are written with their comma, whichever members are null") {
    val k = RowsV1Plan(schema).newKernel()
    def line(r: InternalRow) = new String(k.lineBytes(r), UTF_8)
    assert(line(rows(0)) == """{"a":1,"b":"x\"y","c":"2024-01-01","d":["t",null],"e":1.5,"f":true}""")
    assert(line(rows(1)) == """{"b":"only b"}""")
    assert(line(rows(2)) == """{"a":-7,"f":false}""")
    assert(line(rows(3)) == "{}")
    assert(line(rows(4)) == """{"c":"-0001-01-01","d":[],"e":"NaN"}""")
  }

  test("member by member (the generated code's calls) gives the lanes of hashRow, rows in Unsafe form too") {
    val plan = RowsV1Plan(schema)
    val k = plan.newKernel()
    val unsafe = UnsafeProjection.create(schema)
    (rows ++ rows.map(r => unsafe(r).copy())).foreach { r =>
      k.hashRow(r)
      val (a, b) = (k.laneA, k.laneB)
      k.begin()
      plan.fieldOrder.foreach { f =>
        if (!r.isNullAt(f)) {
          k.member(f)
          schema.fields(f).dataType match {
            case StringType => k.putString(r.getUTF8String(f))
            case ArrayType(StringType, _) => k.putStringArray(r.getArray(f))
            case LongType => k.putLong(r.getLong(f))
            case DateType => k.putDate(r.getInt(f))
            case DoubleType => k.putDouble(r.getDouble(f))
            case BooleanType => k.putBoolean(r.getBoolean(f))
            case dt => k.putValue(f, r.get(f, dt))
          }
        }
      }
      k.end()
      assert((k.laneA, k.laneB) == ((a, b)), r)
    }
  }

  test("arrays of strings in Unsafe form (read where they lie) give the lines of plain arrays") {
    val arrays = new scala.util.Random(5).shuffle(Seq[Seq[String]](
      Seq(), Seq(null), Seq(""), Seq("a", null, "", "x\"y\n", "é😀", "long enough for words"),
      (0 until 70).map(i => if (i % 9 == 0) null else "e" * i), // more than 64: two words of null bits
      Seq("\u0000\u001f\\", "tab\there")))
    val schema = new StructType().add("d", ArrayType(StringType))
    val k = RowsV1Plan(schema).newKernel()
    val unsafe = UnsafeProjection.create(schema)
    arrays.foreach { elements =>
      val values = elements.map(e => if (e == null) null else UTF8String.fromString(e)).toArray[Any]
      val generic: InternalRow = new GenericInternalRow(Array[Any](new GenericArrayData(values)))
      val binary = unsafe(generic)
      assert(binary.getArray(0).isInstanceOf[org.apache.spark.sql.catalyst.expressions.UnsafeArrayData])
      val expected = new String(k.lineBytes(generic), UTF_8)
      assert(new String(k.lineBytes(binary), UTF_8) == expected, elements)
      k.begin(); k.member(0); k.putStringArray(binary.getArray(0)); k.end()
      val (a, b) = (k.laneA, k.laneB)
      k.hashRow(generic)
      assert((a, b) == ((k.laneA, k.laneB)))
    }
  }

  test("arrays of strings from column vectors (vectorized scans) give the lines of plain arrays") {
    val elements = Seq("a", null, "", "x\"y\n", "é😀", "long enough for words")
    val column = new OnHeapColumnVector(2, ArrayType(StringType))
    val child = column.getChild(0)
    child.reserve(elements.length)
    elements.zipWithIndex.foreach {
      case (null, i) => child.putNull(i)
      case (e, i) => child.putByteArray(i, e.getBytes(UTF_8))
    }
    column.putArray(0, 0, elements.length)
    column.putArray(1, 0, 0)
    val k = RowsV1Plan(StructType.fromDDL("t ARRAY<STRING>")).newKernel()
    def line(a: Any) = new String(k.lineBytes(new GenericInternalRow(Array[Any](a))), UTF_8)
    val plain = new GenericArrayData(elements.map(e => if (e == null) null else UTF8String.fromString(e)).toArray[Any])
    assert(line(column.getArray(0)) == line(plain))
    assert(line(column.getArray(0)) == """{"t":["a",null,"","x\"y\n","é😀","long enough for words"]}""")
    assert(line(column.getArray(1)) == """{"t":[]}""")
    column.close()
  }
}
