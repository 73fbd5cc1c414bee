package io.ubunye.spark.aggregate

import io.ubunye.spark.expressions.RowsV1DataHash
import io.ubunye.spark.rowsv1.{Digests, Kinds}

import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription}
import org.apache.spark.sql.types.{DataType, StringType, StructType}

/** The rows-v1 `data_hash` of the argument columns over the rows of a group (spec
  * section 1): `sha256:` and 64 hex digits. The canonical schema is the argument
  * names and types, so `_FUNC_(*)` hashes the whole table and `GROUP BY` gives one
  * hash per group. Fails at analysis for duplicate names or types without a kind.
  *
  * @param child the struct of the columns; the registry builds it from the SQL arguments
  */
// scalastyle:off line.size.limit
@ExpressionDescription(
  usage = "_FUNC_(col1, col2, ...) - Returns the rows-v1 data hash (sha256:<hex>) of the given columns over the rows of the group: row order and partitioning do not change it.",
  arguments = """
    Arguments:
      * col1, col2, ... - columns of any type with a rows-v1 kind; `*` hashes every column
  """,
  examples = """
    Examples:
      > SELECT _FUNC_(*) FROM VALUES (1, 'a'), (2, NULL) AS tab(id, name);
       sha256:c1a5d40cfc760916f6d39cb241c20f01c78d6e8c8a7a0b1ac589ac2e17cedaaf
      > SELECT _FUNC_(*) FROM VALUES (2, NULL), (1, 'a') AS tab(id, name);
       sha256:c1a5d40cfc760916f6d39cb241c20f01c78d6e8c8a7a0b1ac589ac2e17cedaaf
      > SELECT _FUNC_(id) FROM VALUES (1) AS tab(id) WHERE id > 1;
       sha256:841eb1657777bbd6084e7b6a08063ec107718385e6abd7b26a84f1a1f74a04b7
      > SELECT k, _FUNC_(v) FROM VALUES ('x', 1), ('y', 2), ('x', 3) AS tab(k, v) GROUP BY k ORDER BY k;
       x	sha256:6d701c1fc6e8761acdf43a71ca8dc56089e66ed43ee0821ed25645ede57d0767
       y	sha256:cb13512a74a319b858bbeaf5746bb60d86b0bd66b1a8d905dce60eb3fe892eb3
  """,
  group = "agg_funcs",
  since = "0.1.0")
// scalastyle:on line.size.limit
case class RowsV1Hash(child: Expression) extends RowsV1LaneSums {

  override def dataType: DataType = StringType

  @transient private lazy val schemaJson: String =
    Digests.schemaJson(Kinds.canonicalSchema(child.dataType.asInstanceOf[StructType]).fold(
      why => throw new IllegalStateException(why), identity))

  override lazy val evaluateExpression: Expression = RowsV1DataHash(rows, sumA, sumB, schemaJson)

  override def prettyName: String = "ubunye_rows_v1"

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RowsV1Hash =
    copy(child = newChildren.head)
}
