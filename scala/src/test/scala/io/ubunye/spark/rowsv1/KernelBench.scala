package io.ubunye.spark.rowsv1

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** A quick single-thread timing of the kernel outside Spark (not a test):
  * line writing alone vs writing plus SHA-256, on rows shaped like an 8-column table.
  *   KernelBench <rows>
  */
object KernelBench {
  def main(args: Array[String]): Unit = {
    val n = if (args.nonEmpty) args(0).toInt else 1000000
    val schema = StructType.fromDDL(
      "id BIGINT, i INT, d DOUBLE, f FLOAT, s STRING, b BOOLEAN, day DATE, ts TIMESTAMP")
    val rows = (0 until 4096).map { k =>
      val id = k.toLong * 7919
      InternalRow(id, (id % 1000).toInt, id * 1.5, id.toFloat / 7, UTF8String.fromString(s"name-$id"),
        id % 3 == 0, (18262 + id % 1000).toInt, id * 1000000L)
    }.toArray
    val kernel = RowsV1Plan(schema).newKernel()
    def run(label: String, body: InternalRow => Unit): Unit = {
      (0 until 3).foreach { rep =>
        val t0 = System.nanoTime()
        var i = 0
        while (i < n) { body(rows(i & 4095)); i += 1 }
        val dt = (System.nanoTime() - t0) / 1e9
        if (rep == 2) println(f"$label%-12s ${dt * 1e9 / n}%.0f ns/row")
      }
    }
    println(s"line: ${new String(kernel.lineBytes(rows(5)), "UTF-8")} (${kernel.lineBytes(rows(5)).length} bytes)")
    run("line only", r => kernel.writeLine(r))
    schema.fields.indices.foreach { c =>
      val one = RowsV1Plan(StructType(Seq(schema.fields(c)))).newKernel()
      val cut = rows.map(r => InternalRow(r.get(c, schema.fields(c).dataType)))
      val t0 = System.nanoTime()
      var i = 0
      while (i < n) { one.writeLine(cut(i & 4095)); i += 1 }
      println(f"  only ${schema.fields(c).name}%-4s ${(System.nanoTime() - t0).toDouble / n}%.0f ns/row")
    }
    run("line + sha", r => kernel.hashRow(r))
    val sha = java.security.MessageDigest.getInstance("SHA-256")
    val line = kernel.lineBytes(rows(5))
    val out = new Array[Byte](32)
    run("sha only", _ => { sha.update(line, 0, line.length); sha.digest(out, 0, 32) })
  }
}
