package io.ubunye.spark.rowsv1

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.spark.sql.types._

/** The rows-v1 kinds of Spark types (spec section 3) and the checks that a schema
  * has a canonical text, done once at analysis time.
  */
object Kinds {

  /** The kind of a type that has one; `Left(reason)` names the part without one. */
  def kindOf(dt: DataType): Either[String, String] = dt match {
    case BooleanType => Right("bool")
    case ByteType => Right("int8")
    case ShortType => Right("int16")
    case IntegerType => Right("int32")
    case LongType => Right("int64")
    case FloatType => Right("float32")
    case DoubleType => Right("float64")
    case d: DecimalType => Right(s"decimal(${d.precision},${d.scale})")
    case _: StringType | _: CharType | _: VarcharType => Right("string")
    case BinaryType => Right("binary")
    case DateType => Right("date")
    case TimestampType => Right("timestamp")
    case TimestampNTZType => Right("timestamp_ntz")
    case NullType => Right("null")
    case ArrayType(e, _) => kindOf(e).map(k => s"list<$k>")
    case MapType(k, v, _) =>
      for {
        kk <- kindOf(k)
        _ <- if (isKeyType(k)) Right(()) else Left(s"map key of kind $kk has no canonical text")
        vk <- kindOf(v)
      } yield s"map<$kk,$vk>"
    case s: StructType =>
      s.fields.foldLeft[Either[String, List[String]]](Right(Nil)) { (acc, f) =>
        acc.flatMap(ks => kindOf(f.dataType).map(k => s"${f.name}:$k" :: ks))
      }.map(ks => ks.reverse.mkString("struct<", ",", ">"))
    case u: UserDefinedType[_] => kindOf(u.sqlType)
    case other => Left(s"type ${other.catalogString} has no canonical text")
  }

  /** Types whose values can be map keys (2.4): scalars with a text, not null. */
  def isKeyType(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType => true
    case _: DecimalType | _: StringType | _: CharType | _: VarcharType => true
    case BinaryType | DateType | TimestampType | TimestampNTZType => true
    case u: UserDefinedType[_] => isKeyType(u.sqlType)
    case _ => false
  }

  /** The canonical schema: `(name, kind)` pairs sorted by name (code points), then
    * kind. `Left` is a one-line reason naming the column and type at fault.
    */
  def canonicalSchema(schema: StructType): Either[String, Seq[(String, String)]] = {
    val dup = schema.fieldNames.groupBy(identity).collect { case (n, v) if v.length > 1 => n }
    if (dup.nonEmpty) {
      return Left(s"duplicate top-level column names: ${dup.toSeq.sorted.map(quote).mkString(", ")}")
    }
    val kinds = schema.fields.toSeq.map { f =>
      kindOf(f.dataType) match {
        case Right(k) => Right(f.name -> k)
        case Left(why) => Left(s"column ${quote(f.name)} of type ${f.dataType.catalogString}: $why")
      }
    }
    kinds.collectFirst { case Left(why) => why } match {
      case Some(why) => Left(why)
      case None =>
        Right(kinds.collect { case Right(p) => p }.sortWith { (a, b) =>
          val c = compareCodePoints(a._1, b._1)
          if (c != 0) c < 0 else compareCodePoints(a._2, b._2) < 0
        })
    }
  }

  /** Code point order: unsigned comparison of the UTF-8 bytes (not `String.compareTo`). */
  def compareCodePoints(a: String, b: String): Int = compareUnsigned(a.getBytes(UTF_8), b.getBytes(UTF_8))

  def compareUnsigned(x: Array[Byte], y: Array[Byte]): Int = {
    val n = math.min(x.length, y.length)
    var i = 0
    while (i < n) {
      val c = (x(i) & 0xff) - (y(i) & 0xff)
      if (c != 0) return c
      i += 1
    }
    x.length - y.length
  }

  private def quote(name: String): String = "'" + name + "'"
}
