package io.ubunye.spark.expressions

import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, LongType}

/** `left + right` on longs, wrapping: exactly the sum modulo 2^64 whatever
  * `spark.sql.ansi.enabled` says (rows-v1 lane sums, spec 1.3). Not a SQL function.
  */
case class WrappingAdd(left: Expression, right: Expression) extends BinaryExpression {
  override def dataType: DataType = LongType
  override def nullable: Boolean = left.nullable || right.nullable

  override protected def nullSafeEval(l: Any, r: Any): Any = l.asInstanceOf[Long] + r.asInstanceOf[Long]

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(ctx, ev, (l, r) => s"($l + $r)")

  override def prettyName: String = "wrapping_add"

  override protected def withNewChildrenInternal(newLeft: Expression, newRight: Expression): WrappingAdd =
    copy(left = newLeft, right = newRight)
}
