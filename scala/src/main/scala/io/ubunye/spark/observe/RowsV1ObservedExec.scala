package io.ubunye.spark.observe

import io.ubunye.spark.expressions.RowsV1Lanes
import io.ubunye.spark.rowsv1.{RowsV1Kernel, RowsV1Plan}

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{CodegenSupport, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.types.{StructField, StructType}

/** Passes its child's rows on unchanged and adds their rows-v1 sums, per partition, to
  * `sums` (observation `name`). In whole-stage code the canonical line is written from the column values
  * the stage already holds (no row read back, no accumulator projection per row);
  * otherwise row by row through the kernel.
  */
case class RowsV1ObservedExec(name: String, sums: RowsV1SumsAccumulator, child: SparkPlan)
  extends UnaryExecNode with CodegenSupport {

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  @transient private lazy val plan =
    RowsV1Plan(StructType(child.output.map(a => StructField(a.name, a.dataType, a.nullable, a.metadata))))

  override protected def doExecute(): RDD[InternalRow] = {
    val (p, acc) = (plan, sums)
    child.execute().mapPartitionsWithIndex { (index, rows) =>
      val kernel = p.newKernel()
      val partial = new Array[Long](3)
      RowsV1ObservedExec.reportAtTaskEnd(acc, index, partial)
      rows.map { r =>
        kernel.hashRow(r)
        partial(0) += 1; partial(1) += kernel.laneA; partial(2) += kernel.laneB
        r
      }
    }
  }

  override def inputRDDs(): Seq[RDD[InternalRow]] = child.asInstanceOf[CodegenSupport].inputRDDs()

  override protected def doProduce(ctx: CodegenContext): String = child.asInstanceOf[CodegenSupport].produce(ctx, this)

  override def doConsume(ctx: CodegenContext, input: Seq[ExprCode], row: ExprCode): String = {
    val planRef = ctx.addReferenceObj("rowsV1Plan", plan, classOf[RowsV1Plan].getName)
    val accRef = ctx.addReferenceObj("rowsV1Sums", sums, classOf[RowsV1SumsAccumulator].getName)
    val k = ctx.addMutableState(classOf[RowsV1Kernel].getName, "rowsV1Kernel", v => s"$v = $planRef.newKernel();")
    val partial = ctx.addMutableState("long[]", "rowsV1Partial", v => s"$v = new long[3];")
    // partitionIndex is set when the stage's iterator starts a partition
    ctx.addPartitionInitializationStatement(
      s"${RowsV1ObservedExec.getClass.getName}.MODULE$$.reportAtTaskEnd($accRef, partitionIndex, $partial);")
    val members = plan.fieldOrder.toSeq.map { f =>
      val v = input(f)
      s"if (!${v.isNull}) { $k.member($f); ${RowsV1Lanes.putStatement(k, f, child.output(f).dataType, v.value.toString)} }"
    }
    s"""
       |${evaluateVariables(input)}
       |$k.begin();
       |${members.mkString("\n")}
       |$k.end();
       |$partial[0]++;
       |$partial[1] += $k.laneA();
       |$partial[2] += $k.laneB();
       |${consume(ctx, input)}
     """.stripMargin
  }

  override def simpleString(maxFields: Int): String = s"RowsV1Observed $name"

  override protected def withNewChildInternal(newChild: SparkPlan): RowsV1ObservedExec = copy(child = newChild)
}

object RowsV1ObservedExec {
  /** When the running task ends, `partial` (the partition's row count and lane sums,
    * filled meanwhile) goes to `sums` as partition `index`.
    */
  def reportAtTaskEnd(sums: RowsV1SumsAccumulator, index: Int, partial: Array[Long]): Unit =
    TaskContext.get().addTaskCompletionListener[Unit] { _ =>
      sums.add(PartitionSums(index, partial(0), partial(1), partial(2)))
    }
}
