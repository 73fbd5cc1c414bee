package io.ubunye.spark.observe

import org.apache.spark.sql.catalyst.expressions.AttributeSet
import org.apache.spark.sql.catalyst.plans.logical.UnaryNode

/** A node that uses every column of its child: the optimizer's column pruning cannot put a
  * narrower projection below it (Spark 4: `references` is a method).
  */
trait ReadsAllOfChild extends UnaryNode {
  override def references: AttributeSet = child.outputSet
}
