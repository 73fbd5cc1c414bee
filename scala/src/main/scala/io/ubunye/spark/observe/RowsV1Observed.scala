package io.ubunye.spark.observe

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

/** The rows of `child`, unchanged, with their rows-v1 sums taken on the way through
  * (what `RowsV1Observations.attach` puts over a frame before it is written). Planned
  * by [[RowsV1ObservedStrategy]] as [[RowsV1ObservedExec]].
  *
  * @param id the observation's name in [[RowsV1Observations]]
  * @param sums where the executed plan adds the sums (planning needs no lookup, so a
  *   plan planned again after the result was read still runs). Held strongly only by
  *   this node (and the physical plans made from it): [[RowsV1Observations]] releases
  *   the name once no plan holds them
  * @param jsonRoundTrip when set, the rows hashed are not the frame's but what Spark's json
  *   writer and reader make of each (`JsonRoundTrip`, these options): the hash of the json
  *   files the write creates, taken in the same pass
  *
  * It references every column of its child ([[ReadsAllOfChild]]): a query that reads only
  * some columns of an observed frame must not have the optimizer prune the others below the
  * node, or the sums would be of those columns only (with the right row count).
  */
case class RowsV1Observed(id: String, sums: RowsV1SumsAccumulator, child: LogicalPlan,
                          jsonRoundTrip: Option[JsonOptions] = None) extends UnaryNode with ReadsAllOfChild {
  override def output: Seq[Attribute] = child.output
  override def maxRows: Option[Long] = child.maxRows

  override protected def withNewChildInternal(newChild: LogicalPlan): RowsV1Observed = copy(child = newChild)
}

/** The options a json output is written with and read back with (as the engine reads it). */
final case class JsonOptions(write: Map[String, String], read: Map[String, String])
