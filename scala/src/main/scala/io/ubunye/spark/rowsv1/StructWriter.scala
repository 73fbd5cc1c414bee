package io.ubunye.spark.rowsv1

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types.StructType

/** An object of the non-null fields, in the order given by `order` (declared order
  * for nested structs, code point order of the names for the top level); a struct
  * whose fields are all null is `{}`.
  */
final class StructWriter private (
    prefixes: Array[Array[Byte]],
    writers: Array[ValueWriter],
    order: Array[Int]) extends ValueWriter {

  private val numFields = writers.length

  /** `,"name":` of each field: a member after the first is one copy, comma included. */
  private val commaPrefixes: Array[Array[Byte]] = prefixes.map(p => ','.toByte +: p)

  /** `"name":` of field `f`. */
  def prefix(f: Int): Array[Byte] = prefixes(f)

  /** `,"name":` of field `f`. */
  def commaPrefix(f: Int): Array[Byte] = commaPrefixes(f)

  /** The node of field `f`. */
  def writer(f: Int): ValueWriter = writers(f)

  def write(out: LineBuffer, src: SpecializedGetters, i: Int): Unit =
    writeRow(out, src.getStruct(i, numFields))

  /** The members of a row. */
  def writeRow(out: LineBuffer, row: InternalRow): Unit = {
    out.put('{')
    var first = true
    var k = 0
    while (k < order.length) {
      val f = order(k)
      if (!row.isNullAt(f)) {
        out.put(if (first) prefixes(f) else commaPrefixes(f))
        first = false
        writers(f).write(out, row, f)
      }
      k += 1
    }
    out.put('}')
  }
}

object StructWriter {

  /** A nested struct: fields in declared order. */
  def declared(s: StructType, column: String): StructWriter =
    build(s, Array.tabulate(s.length)(identity), _ => column)

  /** The top level of a line: fields sorted by name in code point order. */
  def topLevel(s: StructType): StructWriter = build(s, codePointOrder(s), f => s.fields(f).name)

  /** The field indexes of `s` sorted by name in code point order. */
  def codePointOrder(s: StructType): Array[Int] =
    s.fields.indices.sortWith((a, b) => Kinds.compareCodePoints(s.fields(a).name, s.fields(b).name) < 0).toArray

  private def build(s: StructType, order: Array[Int], column: Int => String): StructWriter =
    new StructWriter(
      s.fields.map(f => ValueWriter.memberPrefix(f.name)),
      s.fields.indices.map(f => ValueWriter(s.fields(f).dataType, column(f))).toArray,
      order)
}
