package io.ubunye.spark.openlineage

import java.util.{Collection => JCollection, Collections}

import io.openlineage.client.OpenLineage.OutputDatasetFacet
import io.openlineage.spark.api.{CustomFacetBuilder, OpenLineageContext, OpenLineageEventHandlerFactory}

/** What the OpenLineage Spark listener loads through Java's service loader
  * (`META-INF/services/io.openlineage.spark.api.OpenLineageEventHandlerFactory`): one output
  * dataset facet builder, [[RowsV1OutputFacetBuilder]]. Every other kind of builder keeps the
  * interface's default (none).
  */
class UbunyeOpenLineageFactory extends OpenLineageEventHandlerFactory {
  override def createOutputDatasetFacetBuilders(
      context: OpenLineageContext): JCollection[CustomFacetBuilder[_, _ <: OutputDatasetFacet]] =
    Collections.singletonList[CustomFacetBuilder[_, _ <: OutputDatasetFacet]](new RowsV1OutputFacetBuilder(context))
}
