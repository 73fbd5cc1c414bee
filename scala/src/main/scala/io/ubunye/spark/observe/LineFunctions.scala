package io.ubunye.spark.observe

import io.ubunye.spark.expressions.RowsV1Lanes
import io.ubunye.spark.rowsv1.{LineText, MemberWords}

import org.apache.spark.sql.types._

/** The Java of the members of a row's canonical line in the observed node's generated
  * functions. The line's array, its position and the first-member flag live in the
  * function's local variables `b`, `p` and `first` (taken from the kernel `k` at the
  * start of the function, handed back at its end): the common types are written by
  * [[LineText]] at `p` after one room check per member, with the member's prefix words
  * as literals; any other value, a prefix too long for two words and a string that
  * needs escapes go through the kernel, the locals handed over and taken back around
  * the call. Arrays of strings are written element by element the same way.
  */
private[observe] object LineFunctions {
  private val Text = LineText.getClass.getName + ".MODULE$"

  /** Takes the locals from kernel `k` (after `k.begin()` in the line's first function). */
  def start(k: String): String = s"byte[] b = $k.lineBytes(); int p = $k.linePosition(); boolean first = $k.firstMember();"

  /** Hands the locals back to `k` (the end of every function but the line's last). */
  def handBack(k: String): String = s"$k.moveTo(p, first);"

  /** Ends the line at `p` and hashes it (the line's last function). */
  def end(k: String): String = s"$k.end(p);"

  /** The statements of member `f` of type `dt`, skipped when `isNull` holds. */
  def member(k: String, f: Int, dt: DataType, words: Option[MemberWords], isNull: String, value: String): String = {
    val reload = s"b = $k.lineBytes(); p = $k.linePosition();"
    def room(n: String): String = s"if ((long) p + $n > b.length) b = $k.room(p, $n);"
    def viaKernel(call: String): String = s"$k.moveTo(p, first); $call $reload first = false;"
    // the prefix, after making `valueRoom` more room for the value (its own room too
    // when written here)
    def prefix(valueRoom: String): String = words match {
      case Some(w) =>
        s"""${room(s"${LineText.PrefixRoom}L + $valueRoom")}
           |p = $Text.prefix(b, p, first, ${w.first0}L, ${w.first1}L, ${w.firstLength}, ${w.next0}L, ${w.next1}L, ${w.nextLength});
           |first = false;""".stripMargin
      case None => s"${viaKernel(s"$k.member($f);")}\n${room(valueRoom)}"
    }
    val body = dt match {
      case _: StringType =>
        s"""${prefix(s"${LineText.StringRoom}L + $value.numBytes()")}
           |int end$f = $Text.plainString(b, p, $value);
           |if (end$f >= 0) p = end$f; else { $k.moveTo(p, false); $k.putString($value); $reload }""".stripMargin
      case ArrayType(_: StringType, _) =>
        // `[`, the elements (each after its own room check), `]`
        s"""${prefix("1L")}
           |b[p] = (byte) '['; p++;
           |for (int i$f = 0, n$f = $value.numElements(); i$f < n$f; i$f++) {
           |  if ($value.isNullAt(i$f)) {
           |    ${room("5L")}
           |    p = $Text.nullElement(b, p, i$f == 0);
           |  } else {
           |    org.apache.spark.unsafe.types.UTF8String s$f = $value.getUTF8String(i$f);
           |    ${room(s"${LineText.StringRoom + 1}L + s$f.numBytes()")}
           |    if (i$f > 0) { b[p] = (byte) ','; p++; }
           |    int end$f = $Text.plainString(b, p, s$f);
           |    if (end$f >= 0) p = end$f; else { $k.moveTo(p, false); $k.putString(s$f); $reload }
           |  }
           |}
           |${room("1L")}
           |b[p] = (byte) ']'; p++;""".stripMargin
      case _ => writer(dt, value) match {
        case Some((call, valueRoom)) => s"${prefix(s"${valueRoom}L")}\np = $Text.$call;"
        case None => s"${prefix("0L")}\n$k.moveTo(p, false); ${RowsV1Lanes.putStatement(k, f, dt, value)} $reload"
      }
    }
    s"if (!$isNull) {\n$body\n}"
  }

  /** The [[LineText]] call writing `value` of `dt` at `p` and the room it needs. */
  private def writer(dt: DataType, value: String): Option[(String, Int)] = dt match {
    case BooleanType => Some((s"writeBoolean(b, p, $value)", LineText.BooleanRoom))
    case ByteType | ShortType | IntegerType | LongType => Some((s"writeLong(b, p, $value)", LineText.LongRoom))
    case DoubleType => Some((s"writeDouble(b, p, $value)", LineText.DoubleRoom))
    case FloatType => Some((s"writeFloat(b, p, $value)", LineText.DoubleRoom))
    case DateType => Some((s"quotedDate(b, p, $value)", LineText.DateRoom))
    case TimestampType => Some((s"quotedTimestamp(b, p, $value, true)", LineText.TimestampRoom))
    case TimestampNTZType => Some((s"quotedTimestamp(b, p, $value, false)", LineText.TimestampRoom))
    case _ => None
  }
}
