package io.ubunye.spark.expressions

import io.ubunye.spark.rowsv1.{Kinds, MemberWords, RowsV1Kernel, RowsV1Plan}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{CreateNamedStruct, Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode, FalseLiteral}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types._

/** The two SHA-256 lanes of one row's canonical line (spec 1.2), as
  * `struct<a: bigint, b: bigint>`. `child` is the struct of the hashed columns (its
  * field names are the column names). Built by the rows-v1 aggregates; not a SQL
  * function.
  *
  * The returned row is reused by the kernel: read it before the next row (the
  * aggregates take both lanes out at once, once per row thanks to common
  * subexpression elimination). Stateful: see [[stateful]].
  */
case class RowsV1Lanes(child: Expression) extends UnaryExpression {

  override def dataType: DataType = RowsV1Lanes.LanesType
  override def nullable: Boolean = false

  override def checkInputDataTypes(): TypeCheckResult = RowsV1Lanes.check(prettyName, child)

  @transient private lazy val plan = RowsV1Plan(child.dataType.asInstanceOf[StructType])
  @transient private lazy val kernel = plan.newKernel()

  /** The interpreted path reuses its kernel (line buffer, SHA-256 state, lanes row)
    * row after row: Spark gives every projection a fresh copy instead of sharing this
    * instance. (Generated code keeps a kernel of its own per generated object.)
    */
  override def stateful: Boolean = true

  override def eval(input: InternalRow): Any = {
    kernel.hashRow(child.eval(input).asInstanceOf[InternalRow])
    kernel.lanes
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val kernelClass = classOf[RowsV1Kernel].getName
    val planRef = ctx.addReferenceObj("rowsV1Plan", plan, classOf[RowsV1Plan].getName)
    val kernelVar = ctx.addMutableState(kernelClass, "rowsV1Kernel", v => s"$v = $planRef.newKernel();")
    val hash = child match {
      case s: CreateNamedStruct => memberByMember(ctx, kernelVar, s)
      case _ =>
        val c = child.genCode(ctx)
        s"""${c.code}
           |$kernelVar.hashRow(${c.isNull} ? null : ${c.value});""".stripMargin
    }
    ev.copy(code = code"""
      $hash
      ${CodeGenerator.javaType(dataType)} ${ev.value} = $kernelVar.lanes();
      """, isNull = FalseLiteral)
  }

  /** The columns of the struct written straight from their generated values, in the
    * kernel's field order: no struct row, no boxing of primitives.
    */
  private def memberByMember(ctx: CodegenContext, k: String, s: CreateNamedStruct): String = {
    val order = plan.fieldOrder
    val words = plan.memberWords
    val members = order.toSeq.map { f =>
      val e = s.valExprs(f)
      val v = e.genCode(ctx)
      val put = RowsV1Lanes.putStatement(k, f, e.dataType, v.value.toString)
      s"""${v.code}
         |if (!${v.isNull}) { ${RowsV1Lanes.memberStatement(k, f, words)} $put }""".stripMargin
    }
    val body = ctx.splitExpressionsWithCurrentInputs(members, funcName = "rowsV1Members")
    s"""$k.begin();
       |$body
       |$k.end();""".stripMargin
  }

  override def prettyName: String = "ubunye_rows_v1_lanes"

  override protected def withNewChildInternal(newChild: Expression): RowsV1Lanes = copy(child = newChild)
}

object RowsV1Lanes {
  /** The Java statement that begins member `f` with kernel `k`: its prefix words as
    * literals where `words` (the plan's [[RowsV1Plan.memberWords]]) has them.
    */
  def memberStatement(k: String, f: Int, words: Array[Option[MemberWords]]): String = words(f) match {
    case Some(w) =>
      s"$k.member(${w.first0}L, ${w.first1}L, ${w.firstLength}, ${w.next0}L, ${w.next1}L, ${w.nextLength});"
    case None => s"$k.member($f);"
  }

  /** The Java statement that writes `value`, the non-null value of top-level field `f`
    * of type `dt`, with kernel `k`: a typed call with no boxing for the common types.
    */
  def putStatement(k: String, f: Int, dt: DataType, value: String): String = dt match {
    case BooleanType => s"$k.putBoolean($value);"
    case ByteType | ShortType | IntegerType => s"$k.putInt($value);"
    case LongType => s"$k.putLong($value);"
    case DoubleType => s"$k.putDouble($value);"
    case FloatType => s"$k.putFloat($value);"
    case _: StringType => s"$k.putString($value);"
    case ArrayType(_: StringType, _) => s"$k.putStringArray($value);"
    case BinaryType => s"$k.putBinary($value);"
    case DateType => s"$k.putDate($value);"
    case TimestampType => s"$k.putTimestamp($value);"
    case TimestampNTZType => s"$k.putTimestampNtz($value);"
    case _ => s"$k.putValue($f, $value);"
  }

  val LanesType: StructType = StructType(Seq(
    StructField("a", LongType, nullable = false), StructField("b", LongType, nullable = false)))

  /** The analysis-time check shared by every rows-v1 function: the argument struct
    * must make a canonical line (no duplicate names, every type with a kind).
    */
  def check(function: String, child: Expression): TypeCheckResult = child.dataType match {
    case s: StructType =>
      Kinds.canonicalSchema(s) match {
        case Right(_) => TypeCheckResult.TypeCheckSuccess
        case Left(why) => TypeCheckResult.TypeCheckFailure(s"$function: $why")
      }
    case other => TypeCheckResult.TypeCheckFailure(s"$function: expects the columns as a struct, got ${other.catalogString}")
  }

  /** The hashed columns as SQL text: `a, b` for the struct the registry builds. */
  def argumentsSql(child: Expression): String = child match {
    case s: org.apache.spark.sql.catalyst.expressions.CreateNamedStruct => s.valExprs.map(_.sql).mkString(", ")
    case other => other.sql
  }
}
