package io.ubunye.spark.rowsv1

import java.nio.charset.StandardCharsets.US_ASCII
import java.security.MessageDigest

/** `schema_hash` and `data_hash` (spec 1.5 to 1.9): SHA-256 of compact JSON written
  * the way Python's `json.dumps(..., separators=(",", ":"))` writes it (ASCII only,
  * lower-case `\\uXXXX` escapes).
  */
object Digests {

  /** The canonical schema S as compact JSON: `[["day","date"],["id","int32"]]`. */
  def schemaJson(kinds: Seq[(String, String)]): String =
    kinds.map { case (n, k) => "[" + jsonString(n) + "," + jsonString(k) + "]" }.mkString("[", ",", "]")

  def schemaHash(kinds: Seq[(String, String)]): String = sha256Text(schemaJson(kinds))

  /** `data_hash` from S (as [[schemaJson]] wrote it), the row count and the lane sums
    * (read as unsigned 64-bit integers).
    */
  def dataHash(schemaJson: String, rows: Long, sumA: Long, sumB: Long): String =
    sha256Text(s"""{"method":"rows-v1","rows":$rows,"schema":$schemaJson,"sums":[""" +
      java.lang.Long.toUnsignedString(sumA) + "," + java.lang.Long.toUnsignedString(sumB) + "]}")

  /** A JSON string as Python's `json.dumps` writes it with `ensure_ascii=True`. */
  def jsonString(s: String): String = {
    val b = new StringBuilder(s.length + 2)
    b.append('"')
    s.foreach {
      case '"' => b.append("\\\"")
      case '\\' => b.append("\\\\")
      case '\b' => b.append("\\b")
      case '\t' => b.append("\\t")
      case '\n' => b.append("\\n")
      case '\f' => b.append("\\f")
      case '\r' => b.append("\\r")
      case c if c >= 0x20 && c <= 0x7e => b.append(c)
      case c => b.append(f"\\u${c.toInt}%04x") // UTF-16 units: surrogate pairs above U+FFFF
    }
    b.append('"').toString
  }

  private def sha256Text(ascii: String): String = {
    val d = MessageDigest.getInstance("SHA-256").digest(ascii.getBytes(US_ASCII))
    val hex = new StringBuilder("sha256:")
    d.foreach(x => hex.append(f"${x & 0xff}%02x"))
    hex.toString
  }
}
