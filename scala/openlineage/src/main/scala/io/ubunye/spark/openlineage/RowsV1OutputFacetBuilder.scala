package io.ubunye.spark.openlineage

import java.net.URI
import java.util.function.BiConsumer

import io.openlineage.client.OpenLineage.{DefaultOutputDatasetFacet, OutputDatasetFacet}
import io.openlineage.spark.api.{CustomFacetBuilder, OpenLineageContext}
import io.ubunye.spark.observe.RowsV1Observed
import io.ubunye.spark.rowsv1.{Digests, Kinds}

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{Command, LogicalPlan, Project, RepartitionOperation, Sort}
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd

/** Adds `ubunye_rows_v1` to the output of the listener's COMPLETE event of a SQL execution
  * (a write) whose plan holds an observed frame ([[RowsV1Observed]], what the run engine
  * puts over each frame it writes): the row count, schema hash and data hash of the rows
  * the write's own stage hashed on the way through. No Spark job is run: the sums are the
  * node's accumulator, complete once the execution ended. A failed execution (FAIL event)
  * gets nothing: its sums may cover part of the rows.
  *
  * The observed node taken is the one the write command writes: reached from the plan's
  * root through commands and nodes that keep the rows as they are (the planned write, a
  * sort or repartition, a projection of columns); an observed frame deeper down (an input
  * hashed while the run read it) is not what was written. The facet goes on every output
  * of the event, as the listener attaches output facets (a write has one output).
  */
class RowsV1OutputFacetBuilder(context: OpenLineageContext)
  extends CustomFacetBuilder[SparkListenerSQLExecutionEnd, OutputDatasetFacet] {

  override protected def build(event: SparkListenerSQLExecutionEnd,
                               consumer: BiConsumer[String, _ >: OutputDatasetFacet]): Unit = {
    if (RowsV1OutputFacetBuilder.failed(event)) return
    val plan = context.getOptimizedPlanOptional
    if (!plan.isPresent) return
    RowsV1OutputFacetBuilder.observed(plan.get).foreach { node =>
      RowsV1OutputFacetBuilder.facet(node).foreach(f => consumer.accept(RowsV1OutputFacetBuilder.Name, f))
    }
  }
}

object RowsV1OutputFacetBuilder {
  /** The facet's key, as the Python events name it. */
  val Name = "ubunye_rows_v1"
  /** Its JSON schema, in the repository (docs/spec/openlineage/), as the Python events name it. */
  val SchemaUrl: URI = URI.create(
    "urn:ubunye:spec:docs/spec/openlineage/UbunyeRowsV1DatasetFacet.json#/$defs/UbunyeRowsV1DatasetFacet")
  val Producer: URI = URI.create(s"urn:ubunye:${OpenLineageBuildInfo.version}")

  /** The facet: an output facet of the listener's own client, with our schema URL. */
  final class RowsV1Facet extends DefaultOutputDatasetFacet(Producer) {
    override def get_schemaURL(): URI = SchemaUrl
  }

  private[openlineage] def failed(event: SparkListenerSQLExecutionEnd): Boolean =
    event.errorMessage.exists(_.nonEmpty)

  /** The observed node `plan` writes (see the class doc), if any. */
  private[openlineage] def observed(plan: LogicalPlan): Option[RowsV1Observed] = plan match {
    case o: RowsV1Observed => Some(o)
    case p if keepsRows(p) =>
      val inner = p.innerChildren.collect { case c: LogicalPlan => c }
      (p.children ++ inner).iterator.map(observed).collectFirst { case Some(o) => o }
    case _ => None
  }

  private def keepsRows(p: LogicalPlan): Boolean = p match {
    case _: Command | _: Sort | _: RepartitionOperation => true
    case Project(columns, _) => columns.forall(_.isInstanceOf[Attribute])
    case other => other.nodeName == "WriteFiles" || other.nodeName == "CommandResult"
  }

  /** The step name in the run's config: the engine observes output `out` as `ubunye_out_<8 hex>`. */
  private[openlineage] def stepName(id: String): String = id match {
    case Label(name) => name
    case other => other
  }
  private val Label = "^ubunye_(.+)_[0-9a-f]{8}$".r

  /** The facet of an observed node, when its columns have rows-v1 kinds (they had when attached).
    * A json output's node hashed each row's round trip through Spark's json writer and reader
    * (the hash of the files, as the engine's read-back takes it: `second-pass` in the run
    * record): none when a row's round trip failed.
    */
  private[openlineage] def facet(node: RowsV1Observed): Option[RowsV1Facet] =
    if (node.jsonRoundTrip.isDefined && node.sums.broken) None
    else Kinds.canonicalSchema(node.child.schema).toOption.map { kinds =>
      val Array(rows, a, b) = node.sums.value
      val f = new RowsV1Facet
      val props = f.getAdditionalProperties
      props.put("stepName", stepName(node.id))
      props.put("rowCount", java.lang.Long.valueOf(rows))
      props.put("schemaHash", Digests.schemaHash(kinds))
      props.put("dataHash", Digests.dataHash(Digests.schemaJson(kinds), rows, a, b))
      props.put("method", "rows-v1")
      props.put("engine", "spark-native") // as the run record names the plugin's hash
      props.put("hashPass", if (node.jsonRoundTrip.isDefined) "second-pass" else "same-pass")
      f
    }
}
