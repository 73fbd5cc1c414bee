package io.ubunye.spark.observe

import org.apache.spark.sql.catalyst.expressions.AttributeSet
import org.apache.spark.sql.catalyst.plans.logical.UnaryNode

/** A node that uses every column of its child: the optimizer's column pruning cannot put a
  * narrower projection below it (Spark 3.5: `references` is a lazy val).
  */
trait ReadsAllOfChild extends UnaryNode {
  override lazy val references: AttributeSet = child.outputSet
}
