package org.apache.spark.sql.ubunye

import java.io.CharArrayWriter
import java.nio.charset.StandardCharsets

import com.fasterxml.jackson.core.{JsonFactory, JsonParser}
import org.apache.hadoop.io.Text

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.json.{CreateJacksonParser, JacksonGenerator, JacksonParser, JSONOptions,
  JSONOptionsInRead}
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.unsafe.types.UTF8String

/** A row as Spark's json writer writes it and its reader reads it back, in one step: the
  * writer's generator (`JsonOutputWriter`: `JacksonGenerator`, one line per row) with the
  * writer's options, then the reader's parser (`TextInputJsonDataSource`: `JacksonParser`
  * over the line's bytes, arrays as structs) with the reader's options and the written
  * schema, made nullable as a file source makes it. What [[rows]] gives for a row is what
  * reading its line of the files gives, when each line is read alone: [[whyNot]] names the
  * settings under which that does not hold (then no round trip is taken).
  *
  * The options are built as the file format builds them, from the session's conf when the
  * write runs (time zone, corrupt-record column, generator defaults).
  */
final class JsonRoundTrip private (schema: StructType, writeOptions: JSONOptions, readOptions: JSONOptionsInRead)
  extends Serializable {
  private val readSchema = schema.asNullable

  /** The schema the rows of [[JsonRoundTrip.Run.rows]] have (what the reader gives). */
  def outputSchema: StructType = readSchema

  /** A per-partition round trip (not thread-safe). */
  def newRun(): JsonRoundTrip.Run = new JsonRoundTrip.Run(schema, readSchema, writeOptions, readOptions)
}

object JsonRoundTrip {
  /** The round trip of rows of `schema` written with options `write` and read with `read`, the
    * options built from the session's conf now (call it where the write is planned or run).
    */
  def apply(schema: StructType, write: Map[String, String], read: Map[String, String]): JsonRoundTrip = {
    val conf = SQLConf.get
    new JsonRoundTrip(schema,
      new JSONOptions(CaseInsensitiveMap(write), conf.sessionLocalTimeZone, conf.columnNameOfCorruptRecord),
      new JSONOptionsInRead(CaseInsensitiveMap(read), conf.sessionLocalTimeZone, conf.columnNameOfCorruptRecord))
  }

  /** Why a row's round trip would not be what the files give back, or None. */
  def whyNot(schema: StructType, write: Map[String, String], read: Map[String, String]): Option[String] = {
    val w = CaseInsensitiveMap(write)
    val r = CaseInsensitiveMap(read)
    def on(m: CaseInsensitiveMap[String], key: String) = m.get(key).exists(_.trim.equalsIgnoreCase("true"))
    val corrupt = r.getOrElse("columnNameOfCorruptRecord", SQLConf.get.columnNameOfCorruptRecord)
    if (on(r, "multiLine")) Some("multiLine: the reader parses whole files, not lines")
    else if (on(w, "pretty")) Some("pretty: the writer spreads a row over lines")
    else if (Seq("lineSep", "encoding", "charset").exists(k => w.contains(k) || r.contains(k)))
      Some("lineSep/encoding: lines are split or decoded otherwise than the round trip's")
    else if (schema.fieldNames.contains(corrupt)) Some(s"a column is named as the corrupt-record column ($corrupt)")
    else if (schema.fields.exists(f => f.metadata.contains("__CHAR_VARCHAR_TYPE_STRING")))
      Some("a CHAR/VARCHAR column (padded or checked by the writer or the reader)")
    else None
  }

  final class Run private[JsonRoundTrip] (schema: StructType, readSchema: StructType,
                                          writeOptions: JSONOptions, readOptions: JSONOptionsInRead) {
    private val out = new CharArrayWriter()
    private val generator = new JacksonGenerator(schema, out, writeOptions)
    private val parser = new JacksonParser(readSchema, readOptions, true, Seq.empty)
    private val createParser: (JsonFactory, Text) => JsonParser = CreateJacksonParser.text(_, _)
    private val literal: Text => UTF8String = t => UTF8String.fromBytes(t.getBytes, 0, t.getLength)

    /** The rows reading `row`'s written line gives (throws where a FAILFAST read fails). */
    def rows(row: InternalRow): Iterable[InternalRow] = {
      generator.write(row)
      generator.flush()
      val line = new Text(out.toString.getBytes(StandardCharsets.UTF_8))
      out.reset()
      parser.parse(line, createParser, literal)
    }
  }
}
