package io.ubunye.spark

import scala.reflect.ClassTag

import io.ubunye.spark.aggregate.{RowsV1Find, RowsV1Hash, RowsV1Sketch, RowsV1Sums}
import io.ubunye.spark.expressions.RowLine

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry.FunctionBuilder
import org.apache.spark.sql.catalyst.analysis.FunctionRegistryBase
import org.apache.spark.sql.catalyst.expressions.{CreateStruct, Expression, ExpressionInfo, Literal}
import org.apache.spark.sql.types.StringType

/** Every SQL function of the plugin, once: name, documentation (from the class's
  * `@ExpressionDescription`) and builder. The extension, the runtime registration
  * and the tests all read this list.
  *
  * The functions take any number of columns; the builder packs them into one struct
  * (`CreateStruct`, as `struct(...)` names its fields), so the column names travel in
  * the struct's type and survive the optimizer's rewrites of the arguments.
  */
object UbunyeFunctionRegistry {

  /** A registered function. */
  final case class Entry(name: String, info: ExpressionInfo, builder: FunctionBuilder) {
    def identifier: FunctionIdentifier = FunctionIdentifier(name)
  }

  val RowsV1: String = "ubunye_rows_v1"
  val RowsV1Sums: String = "ubunye_rows_v1_sums"
  val RowsV1Sketch: String = "ubunye_rows_v1_sketch"
  val RowLine: String = "ubunye_row_line"
  val RowsV1Find: String = "ubunye_rows_v1_find"

  /** The function names, without touching the function classes (a jar of another line
    * registers failing functions under them, see [[UbunyeSparkExtensions.inject]]); the
    * same as `functions.map(_.name)`.
    */
  val names: Seq[String] = Seq(RowsV1, RowsV1Sums, RowsV1Sketch, RowLine, RowsV1Find)

  lazy val functions: Seq[Entry] = Seq(
    columns[RowsV1Hash](RowsV1, c => new RowsV1Hash(c)),
    columns[RowsV1Sums](RowsV1Sums, c => new RowsV1Sums(c)),
    columns[RowsV1Sketch](RowsV1Sketch, c => new RowsV1Sketch(c)),
    columns[RowLine](RowLine, c => new RowLine(c)),
    entry[RowsV1Find](RowsV1Find, args =>
      new RowsV1Find(args.headOption.getOrElse(Literal(null, StringType)), columnsStruct(args.drop(1)))))

  /** The struct of the columns a function is called with. */
  def columnsStruct(columns: Seq[Expression]): Expression = CreateStruct(columns)

  private def columns[T <: Expression : ClassTag](name: String, make: Expression => T): Entry =
    entry[T](name, args => make(columnsStruct(args)))

  /** A function whose builder takes the SQL arguments as they are. */
  private def entry[T <: Expression : ClassTag](name: String, build: Seq[Expression] => T): Entry =
    Entry(name, FunctionRegistryBase.expressionInfo[T](name, None), (args: Seq[Expression]) => build(args))
}
