package io.ubunye.spark.observe

import io.ubunye.spark.rowsv1.{RowsV1Kernel, RowsV1Plan, SketchCells}

import scala.util.control.NonFatal

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{CodegenSupport, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.types._
import org.apache.spark.sql.ubunye.JsonRoundTrip

/** Passes its child's rows on unchanged and adds their rows-v1 sums, per partition, to
  * `sums` (observation `name`), with the sketch cells of the same lanes when `sums`
  * asks for them (`sums.sketch`). In whole-stage code the canonical line is written
  * from the column values the stage already holds (no row read back, no accumulator
  * projection per row); otherwise row by row through the kernel.
  *
  * With `json` (a json output), each row is hashed as Spark's json writer and reader make it
  * ([[JsonRoundTrip]]), row by row (no whole-stage code); a row whose round trip fails marks
  * the partition's sums broken (the write goes on).
  */
case class RowsV1ObservedExec(name: String, sums: RowsV1SumsAccumulator, child: SparkPlan,
                              json: Option[JsonOptions] = None)
  extends UnaryExecNode with CodegenSupport {

  override def supportCodegen: Boolean = json.isEmpty

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  @transient private lazy val childSchema =
    StructType(child.output.map(a => StructField(a.name, a.dataType, a.nullable, a.metadata)))
  @transient private lazy val plan = RowsV1Plan(childSchema)

  override protected def doExecute(): RDD[InternalRow] = {
    val trip = json.map(o => JsonRoundTrip(childSchema, o.write, o.read)) // the session's conf, as the write's
    val (p, acc) = (trip.map(t => RowsV1Plan(t.outputSchema)).getOrElse(plan), sums)
    child.execute().mapPartitionsWithIndex { (index, rows) =>
      val kernel = p.newKernel()
      val partial = new Array[Long](if (trip.isDefined) 4 else 3) // [3]: the round trip failed
      val cells = if (acc.sketch) SketchCells.empty() else null
      val tally = if (acc.keys != null) acc.keys.newTally() else null
      RowsV1ObservedExec.reportAtTaskEnd(acc, index, partial, cells, tally)
      def hash(r: InternalRow): Unit = {
        kernel.hashRow(r)
        partial(0) += 1; partial(1) += kernel.laneA; partial(2) += kernel.laneB
        if (cells != null) SketchCells.add(cells, kernel.laneA, kernel.laneB)
      }
      trip.map(_.newRun()) match {
        case None => rows.map { r =>
          hash(r)
          if (tally != null) {
            tally.putRow(r, acc.keys.ordinals)
            tally.add(kernel.laneA, kernel.laneB)
          }
          r
        }
        // a json round trip is refused for a partitioned output (RowsV1Observed.jsonRoundTrip):
        // no tally here
        case Some(run) => rows.map { r =>
          if (partial(3) == 0) {
            try run.rows(r).foreach(hash) catch { case NonFatal(_) => partial(3) = 1 }
          }
          r
        }
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
    val cells = if (sums.sketch) {
      Some(ctx.addMutableState("long[]", "rowsV1Cells", v => s"$v = new long[${SketchCells.Longs}];"))
    } else None
    val tally = Option(sums.keys).map { keys =>
      ctx.addMutableState(classOf[PartitionTally].getName, "rowsV1Tally", v => s"$v = $accRef.keys().newTally();")
    }
    // partitionIndex is set when the stage's iterator starts a partition
    ctx.addPartitionInitializationStatement(
      s"${RowsV1ObservedExec.getClass.getName}.MODULE$$.reportAtTaskEnd($accRef, partitionIndex, $partial, " +
        s"${cells.getOrElse("null")}, ${tally.getOrElse("null")});")
    // the line in functions of their own (the stage's loop keeps its JIT budget for
    // its own work), the values and null flags as arguments: the first begins the
    // line, the last ends it, hashes it and adds the lanes to the partition's sums
    val words = plan.memberWords
    val groups = RowsV1ObservedExec.lineFunctions(plan.fieldOrder.toSeq, child.output.map(_.dataType))
    val calls = groups.zipWithIndex.map { case (fields, i) =>
      val params = fields.flatMap { f =>
        Seq(s"boolean rowsV1Null$f", s"${CodeGenerator.javaType(child.output(f).dataType)} rowsV1Value$f")
      }
      val members = fields.map { f =>
        LineFunctions.member(k, f, child.output(f).dataType, words(f), s"rowsV1Null$f", s"rowsV1Value$f")
      }
      val first = (if (i == 0) s"$k.begin();\n" else "") + LineFunctions.start(k)
      val last = if (i == groups.size - 1) {
        s"""${LineFunctions.end(k)}
           |$partial[0]++;
           |$partial[1] += $k.laneA();
           |$partial[2] += $k.laneB();
           |${cells.map(c => s"${RowsV1ObservedExec.Sketch}.add($c, $k.laneA(), $k.laneB());").getOrElse("")}""".stripMargin
      } else LineFunctions.handBack(k)
      val fn = ctx.freshName("rowsV1Line")
      val call = ctx.addNewFunction(fn, s"""private void $fn(${params.mkString(", ")}) {
           |  $first
           |  ${members.mkString("\n")}
           |  $last
           |}""".stripMargin)
      s"$call(${fields.flatMap(f => Seq(input(f).isNull.toString, input(f).value.toString)).mkString(", ")});"
    }
    // the row's partition values (each read after the line functions took them), then its lanes
    val keyed = tally.map { t =>
      val puts = sums.keys.ordinals.zipWithIndex.map { case (f, i) =>
        s"if (${input(f).isNull}) $t.putNull($i); else $t.${RowsV1ObservedExec.put(child.output(f).dataType)}($i, ${input(f).value});"
      }
      (puts :+ s"$t.add($k.laneA(), $k.laneB());").mkString("\n")
    }.getOrElse("")
    s"""
       |${evaluateVariables(input)}
       |${calls.mkString("\n")}
       |$keyed
       |${consume(ctx, input)}
     """.stripMargin
  }

  override def simpleString(maxFields: Int): String = s"RowsV1Observed $name${if (json.isDefined) " (json)" else ""}"

  override protected def withNewChildInternal(newChild: SparkPlan): RowsV1ObservedExec = copy(child = newChild)
}

object RowsV1ObservedExec {
  private val Sketch = SketchCells.getClass.getName + ".MODULE$"

  /** The most JVM argument slots per member function (the JVM allows 255, `this` one). */
  private final val MaxArgumentSlots = 200

  /** `fields` (in line order) grouped for member functions: each field takes its null
    * flag and its value as arguments (a long or a double two slots, anything else one).
    */
  private[observe] def lineFunctions(fields: Seq[Int], types: Seq[DataType]): Seq[Seq[Int]] = {
    def slots(f: Int): Int = 1 + (types(f) match { case LongType | DoubleType => 2; case _ => 1 })
    fields.foldLeft(Vector.empty[(Vector[Int], Int)]) {
      case (groups, f) if groups.nonEmpty && groups.last._2 + slots(f) <= MaxArgumentSlots =>
        groups.init :+ ((groups.last._1 :+ f, groups.last._2 + slots(f)))
      case (groups, f) => groups :+ ((Vector(f), slots(f)))
    }.map(_._1) match {
      case Seq() => Seq(Seq.empty) // no columns: one function, the line `{}`
      case groups => groups
    }
  }

  /** When the running task ends, `partial` (the partition's row count and lane sums, and
    * when it has a fourth a failed json round trip, filled meanwhile), `cells` (its sketch,
    * or null) and `tally` (its sums per partition folder, or null) go to `sums` as partition
    * `index`.
    */
  def reportAtTaskEnd(sums: RowsV1SumsAccumulator, index: Int, partial: Array[Long], cells: Array[Long],
                      tally: PartitionTally): Unit =
    TaskContext.get().addTaskCompletionListener[Unit] { _ =>
      sums.add(PartitionSums(index, partial(0), partial(1), partial(2), cells,
        if (tally == null) null else tally.keyed, partial.length > 3 && partial(3) != 0))
    }

  /** The [[PartitionTally]] method that takes a generated value of type `t`. */
  private def put(t: DataType): String = t match {
    case BooleanType => "putBoolean"
    case ByteType | ShortType | IntegerType | DateType => "putInt"
    case LongType => "putLong"
    case FloatType => "putFloat"
    case DoubleType => "putDouble"
    case TimestampType => "putLong"
    case other if other.typeName == "timestamp_ntz" => "putLong"
    case _ => "putObject"
  }
}
