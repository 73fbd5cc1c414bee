"""Reading Spark's analyzed plan of a classic frame: the partition columns of the table or
folders it reads (a write's per-partition sums, issue 14)."""
from __future__ import annotations

from typing import Any

from ubunye.spark._compat.sessions import is_connect, session_of

# Plan nodes whose rows are rows of their child, with the child's values (a projection may drop
# or replace columns: what stays is checked by attribute id).
_ROW_KEEPING_NODES = frozenset(f"org.apache.spark.sql.catalyst.plans.logical.{name}" for name in (
    "Project", "Filter", "SubqueryAlias", "View", "Sort", "Repartition", "RepartitionByExpression",
    "LocalLimit", "GlobalLimit", "Sample", "Distinct", "Deduplicate"))
_LOGICAL_RELATION = "org.apache.spark.sql.execution.datasources.LogicalRelation"
_HADOOP_FS_RELATION = "org.apache.spark.sql.execution.datasources.HadoopFsRelation"
_V2_RELATION = "org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation"


def read_partition_columns(df: Any) -> list[str]:
    """The partition columns of the table or folders a classic frame reads, in folder order, as
    the relation names them (``select("AGE")`` keeps ``age``); ``[]`` when there are none or
    the plan is anything else. Never raises.

    From Spark's analyzed plan: one relation under nodes that keep its rows and values (project,
    filter, alias, sort, limit, sample, repartition, distinct; no join, union or aggregate), the
    relation either a ``LogicalRelation`` over a ``HadoopFsRelation`` (files read from
    ``key=value`` folders, catalog tables of files, and Delta tables by path or name: Delta's
    relation is an anonymous subclass of it, whose ``TahoeLogFileIndex`` answers the table's
    partition columns) with its ``partitionSchema``, or a ``DataSourceV2Relation`` whose table is
    partitioned by identity transforms of top-level columns only. Every partition column must
    still be in the frame's output as the relation's own attribute (same id): a frame that drops
    or replaces one has none. Spark Connect frames (no ``_jdf``, no plan in this process): ``[]``.
    """
    jdf = getattr(df, "_jdf", None)
    if jdf is None or is_connect(df):
        return []
    try:
        return _plan_partition_columns(session_of(df).sparkContext._gateway, jdf.queryExecution().analyzed())
    except Exception:  # noqa: BLE001 - a plan this walk does not know: no partition columns
        return []


def _plan_partition_columns(gateway: Any, top: Any) -> list[str]:
    from py4j.java_gateway import is_instance_of

    node = top
    while node.getClass().getName() in _ROW_KEEPING_NODES:
        if node.children().size() != 1:
            return []
        node = node.children().apply(0)
    kind = node.getClass().getName()
    if kind == _LOGICAL_RELATION and is_instance_of(gateway, node.relation(), _HADOOP_FS_RELATION):
        names = list(node.relation().partitionSchema().fieldNames())
    elif kind == _V2_RELATION:
        names = []
        for transform in node.table().partitioning():
            refs = list(transform.references())
            if transform.name() != "identity" or len(refs) != 1 or len(list(refs[0].fieldNames())) != 1:
                return []
            names.append(str(list(refs[0].fieldNames())[0]))
    else:
        return []
    relation = _attributes(node.output())
    kept = {exprid for _, exprid in _attributes(top.output())}
    columns = []
    for wanted in names:
        same = [a for a in relation if a[0] == wanted] or [a for a in relation if a[0].lower() == wanted.lower()]
        if len(same) != 1 or same[0][1] not in kept:
            return []
        columns.append(same[0][0])
    return columns


def _attributes(seq: Any) -> list[tuple[str, int]]:
    """A plan's output attributes: (name, expression id)."""
    return [(str(a.name()), int(a.exprId().id())) for a in (seq.apply(i) for i in range(seq.size()))]
