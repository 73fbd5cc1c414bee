package io.ubunye.spark.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, Decimal, DecimalType}

/** A long read as an unsigned 64-bit integer, as `decimal(20,0)` (lane sums). */
case class UnsignedDecimal(child: Expression) extends UnaryExpression {
  override def dataType: DataType = DecimalType(20, 0)

  override protected def nullSafeEval(v: Any): Any = UnsignedDecimal.of(v.asInstanceOf[Long])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(ctx, ev, v => s"${UnsignedDecimal.getClass.getName.stripSuffix("$")}.of($v)")

  override protected def withNewChildInternal(newChild: Expression): UnsignedDecimal = copy(child = newChild)
}

object UnsignedDecimal {
  def of(v: Long): Decimal =
    Decimal(new java.math.BigDecimal(new java.math.BigInteger(java.lang.Long.toUnsignedString(v))), 20, 0)
}
