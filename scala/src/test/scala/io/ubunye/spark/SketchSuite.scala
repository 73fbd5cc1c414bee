package io.ubunye.spark

import java.nio.{ByteBuffer, ByteOrder}
import java.util.{Base64, UUID}

import com.fasterxml.jackson.databind.JsonNode
import io.ubunye.spark.SketchVectors.{cases, expected, members, seq}
import io.ubunye.spark.observe.RowsV1Observations
import io.ubunye.spark.rowsv1.SketchCells

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

/** The localisation sketch (`docs/spec/rows-v1-localise.md`) on the JVM: the
  * `ubunye_rows_v1_sketch` aggregate and the observed write node give the known-answer
  * cells of `tests/fixtures/sketch/vectors.json` (the Python reference's), on every
  * execution path and however the rows are partitioned. The cell rule alone, which
  * needs no session, is checked by FixtureKindsSuite.
  */
class SketchSuite extends AnyFunSuite with SparkSessionManager {

  /** A case's rows as a frame of `partitions` partitions. */
  private def frame(c: JsonNode, partitions: Int): DataFrame = {
    val fields = members(c.get("schema")).map { case (name, kind) =>
      StructField(name, if (kind.asText() == "int64") LongType else StringType)
    }
    val rows = seq(c.get("rows").elements()).map { r =>
      Row.fromSeq(fields.map { f =>
        val v = r.get(f.name)
        if (v == null || v.isNull) null else if (f.dataType == LongType) v.asLong() else v.asText()
      })
    }
    spark.createDataFrame(spark.sparkContext.parallelize(rows, partitions), StructType(fields))
  }

  private def sketchOf(df: DataFrame): Row = df.selectExpr("ubunye_rows_v1_sketch(*)").head().getStruct(0)

  test("ubunye_rows_v1_sketch gives the known-answer cells on every execution path, partitions merged") {
    cases.foreach { c =>
      executionModes.foreach { case (label, conf) =>
        withConf(conf) {
          val df = frame(c, 3)
          val s = sketchOf(df)
          val name = s"${c.get("name").asText()} ($label)"
          assert(s.getAs[Array[Byte]]("cells").sameElements(expected(c)), name)
          // the three numbers are those of ubunye_rows_v1_sums
          assert(Row(s.getLong(0), s.getDecimal(1), s.getDecimal(2)) ==
            df.selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0), name)
        }
      }
    }
  }

  test("a larger table: each sub-table sums to the row count and lane sums; grouped sketches add up") {
    val df = TestTables.mixed(spark)
    val whole = sketchOf(df)
    val cells = ByteBuffer.wrap(whole.getAs[Array[Byte]]("cells")).order(ByteOrder.LITTLE_ENDIAN)
    val longs = Array.fill(SketchCells.Longs)(cells.getLong())
    (0 until SketchCells.K).foreach { j =>
      val sub = (0 until SketchCells.Width).map(i => 4 * (j * SketchCells.Width + i))
      assert(sub.map(longs(_)).sum == whole.getLong(0))
      assert(BigDecimal(java.lang.Long.toUnsignedString(sub.map(i => longs(i + 1)).sum)) == BigDecimal(whole.getDecimal(1)))
    }
    // per group, then added: the whole table's cells (merge is addition)
    val groups = df.selectExpr("id % 4 AS g", "*").groupBy("g")
      .agg(functions.ubunye_rows_v1_sketch(df.columns.toSeq.map(c => df.col(s"`$c`")): _*).as("s"))
      .collect().map(_.getStruct(1).getAs[Array[Byte]]("cells"))
    val added = SketchCells.empty()
    groups.foreach { g =>
      val in = ByteBuffer.wrap(g).order(ByteOrder.LITTLE_ENDIAN)
      SketchCells.merge(added, 0, Array.fill(SketchCells.Longs)(in.getLong()), 0)
    }
    assert(SketchCells.toBytes(added).sameElements(whole.getAs[Array[Byte]]("cells")))
  }

  /** The observed write node's `resultWithCells` words after one write to nowhere. */
  private def observed(df: DataFrame, sketch: Boolean): Array[String] = {
    val id = UUID.randomUUID().toString
    RowsV1Observations.attach(df, id, sketch).write.format("noop").mode("overwrite").save()
    RowsV1Observations.resultWithCells(id, forget = true).split(" ")
  }

  test("the observed write node takes the known-answer cells in the same pass, on every execution path") {
    cases.foreach { c =>
      executionModes.foreach { case (label, conf) =>
        withConf(conf) {
          val words = observed(frame(c, 3), sketch = true)
          val name = s"${c.get("name").asText()} ($label)"
          assert(words.length == 5, name)
          assert(Base64.getDecoder.decode(words(4)).sameElements(expected(c)), name)
        }
      }
    }
  }

  test("the observed node takes no sketch unless asked for, and its sums are the same either way") {
    val df = TestTables.mixed(spark)
    val without = observed(df, sketch = false)
    val withCells = observed(df, sketch = true)
    assert(without(4) == "-")
    assert(without.take(4).sameElements(withCells.take(4)))
    assert(Base64.getDecoder.decode(withCells(4)).sameElements(sketchOf(df).getAs[Array[Byte]]("cells")))
  }

  /** The name of a row (spec section 5) from its two lanes. */
  private def nameOf(a: Long, b: Long): String = f"sha256:$a%016x$b%016x"

  test("ubunye_rows_v1_find keeps the lines of the named rows, every copy, with the sums of all rows") {
    cases.filter(c => c.get("rows").size() >= 3).foreach { c =>
      val lanes = SketchVectors.lanes(c)
      val lines = seq(c.get("lines").elements()).map(_.asText())
      // the first and the last row asked for, and a name no row has
      val asked = Seq(0, lines.size - 1).distinct
      val names = asked.map(i => nameOf(lanes(i)._1, lanes(i)._2)) :+ "sha256:0123456789abcdef0123456789abcdef"
      executionModes.foreach { case (label, conf) =>
        withConf(conf) {
          val df = frame(c, 3)
          val twice = df.union(df)
          val f = twice.selectExpr(s"ubunye_rows_v1_find('${names.mkString(", ")}', *)").head().getStruct(0)
          val name = s"${c.get("name").asText()} ($label)"
          assert(Row(f.getLong(0), f.getDecimal(1), f.getDecimal(2)) ==
            twice.selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0), name)
          val found = f.getSeq[Row](3).map(r => (r.getLong(0), r.getLong(1), r.getString(2)))
          // every row with a name asked for (a case may hold copies), twice (the union)
          val expected = lanes.indices.filter(i => asked.map(lanes).contains(lanes(i)))
            .flatMap(i => Seq.fill(2)((lanes(i)._1, lanes(i)._2, lines(i)))).sortBy(_._3)
          assert(found == expected, name)
        }
      }
    }
  }

  test("ubunye_rows_v1_find by the DataFrame API, on an empty frame, and refusing what is not a row name") {
    val df = TestTables.mixed(spark)
    val cols = df.columns.toSeq.map(c => df.col(s"`$c`"))
    val line = df.selectExpr("ubunye_row_line(*)").head().getString(0)
    val digest = java.security.MessageDigest.getInstance("SHA-256").digest(line.getBytes("UTF-8"))
    val name = "sha256:" + digest.take(16).map(x => f"${x & 0xff}%02x").mkString
    val f = df.agg(functions.ubunye_rows_v1_find(Seq(name), cols: _*)).head().getStruct(0)
    assert(f.getSeq[Row](3).map(_.getString(2)).contains(line))
    assert(Row(f.getLong(0), f.getDecimal(1), f.getDecimal(2)) == df.selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0))
    val empty = df.where("false").agg(functions.ubunye_rows_v1_find(Seq(name), cols: _*)).head().getStruct(0)
    assert(empty.getLong(0) == 0L && empty.getSeq[Row](3).isEmpty)
    Seq("'sha256:12'", "'nothex'", "id").foreach { bad =>
      val e = intercept[org.apache.spark.sql.AnalysisException](spark.range(3).selectExpr(s"ubunye_rows_v1_find($bad, id)").collect())
      assert(e.getMessage.contains("ubunye_rows_v1_find"), e.getMessage)
    }
  }
}
