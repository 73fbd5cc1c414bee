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

  // the member prefixes: entry f `"name":` of field f (the first member), entry
  // f + numFields `,"name":` (a member after the first: one write, comma included);
  // those of at most 16 bytes also as two words, written by two word stores
  private val memberPrefixes: Array[Array[Byte]] = prefixes ++ prefixes.map(p => ','.toByte +: p)
  private val wordLength: Array[Int] =
    memberPrefixes.map(p => if (LineBuffer.WordStores && p.length <= 16) p.length else Int.MaxValue)
  private val words: Array[Long] = memberPrefixes.flatMap { p =>
    if (p.length <= 16) { val (w0, w1) = LineBuffer.asWords(p); Array(w0, w1) } else Array(0L, 0L)
  }

  /** Writes `"name":` of field `f`, after a comma unless it is the `first` member. */
  def putPrefix(out: LineBuffer, f: Int, first: Boolean): Unit = {
    val i = if (first) f else f + numFields
    val n = wordLength(i)
    if (n <= 16) out.putWords(words(2 * i), words(2 * i + 1), n) else out.put(memberPrefixes(i))
  }

  /** The words [[putPrefix]] stores for field `f`, for generated code to pass as
    * literals (no table reads per row): `Some` where both of its prefixes fit two words.
    */
  def memberWords(f: Int): Option[MemberWords] = {
    val (i, j) = (f, f + numFields)
    if (memberPrefixes(j).length > 16) None
    else Some(MemberWords(words(2 * i), words(2 * i + 1), memberPrefixes(i).length,
      words(2 * j), words(2 * j + 1), memberPrefixes(j).length))
  }

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
        putPrefix(out, f, first)
        first = false
        writers(f).write(out, row, f)
      }
      k += 1
    }
    out.put('}')
  }
}

/** A member's prefixes as little-endian words ([[LineBuffer.asWords]]): `"name":` for
  * the first member (`first0`, `first1`, its length) and `,"name":` for a later one.
  */
final case class MemberWords(first0: Long, first1: Long, firstLength: Int, next0: Long, next1: Long, nextLength: Int)

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
