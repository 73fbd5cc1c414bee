package io.ubunye.spark.aggregate

import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{CollectMetrics, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule

/** Optimizer rule: inside observed metrics (`CollectMetrics`, what `DataFrame.observe`
  * adds), `ubunye_rows_v1_sums` is computed by [[RowsV1ObservedSums]], the form
  * Spark's observation accumulator runs fastest. Same buffer, same result; every
  * other use of the function (aggregations, which Spark compiles whole) is left as
  * it is. Installed with the plugin's extension and by `Ubunye.install`.
  */
object ObservedRowsV1Sums extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case metrics: CollectMetrics =>
      metrics.transformExpressions {
        case agg: AggregateExpression
            if agg.aggregateFunction.isInstanceOf[RowsV1Sums] && agg.filter.isEmpty && !agg.isDistinct =>
          agg.copy(aggregateFunction = RowsV1ObservedSums(agg.aggregateFunction.asInstanceOf[RowsV1Sums].child))
      }
  }
}
