package io.ubunye.spark.observe

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

/** Plans [[RowsV1Observed]]: the plugin's extension injects it, and
  * `RowsV1Observations.attach` adds it to a session that lacks it.
  */
object RowsV1ObservedStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case RowsV1Observed(id, sums, child, json) => RowsV1ObservedExec(id, sums, planLater(child), json) :: Nil
    case _ => Nil
  }
}
