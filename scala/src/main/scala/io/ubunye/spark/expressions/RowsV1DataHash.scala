package io.ubunye.spark.expressions

import io.ubunye.spark.rowsv1.Digests

import org.apache.spark.sql.catalyst.expressions.{Expression, TernaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/** `data_hash` (spec 1.7) from the row count and the two lane sums of an aggregate
  * buffer; `schemaJson` is the canonical schema S, fixed at analysis time. Evaluated
  * once per group; not a SQL function.
  */
case class RowsV1DataHash(rows: Expression, sumA: Expression, sumB: Expression, schemaJson: String)
  extends TernaryExpression {

  override def first: Expression = rows
  override def second: Expression = sumA
  override def third: Expression = sumB
  override def dataType: DataType = StringType

  override protected def nullSafeEval(n: Any, a: Any, b: Any): Any = UTF8String.fromString(
    Digests.dataHash(schemaJson, n.asInstanceOf[Long], a.asInstanceOf[Long], b.asInstanceOf[Long]))

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val schema = ctx.addReferenceObj("rowsV1Schema", schemaJson, "java.lang.String")
    val digests = Digests.getClass.getName.stripSuffix("$")
    defineCodeGen(ctx, ev, (n, a, b) =>
      s"${classOf[UTF8String].getName}.fromString($digests.dataHash($schema, $n, $a, $b))")
  }

  override protected def withNewChildrenInternal(
      newFirst: Expression, newSecond: Expression, newThird: Expression): RowsV1DataHash =
    copy(rows = newFirst, sumA = newSecond, sumB = newThird)
}
