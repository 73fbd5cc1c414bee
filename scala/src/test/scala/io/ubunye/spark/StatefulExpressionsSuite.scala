package io.ubunye.spark

import java.lang.reflect.Modifier
import java.security.MessageDigest
import java.util.concurrent.{CountDownLatch, TimeUnit}

import io.ubunye.spark.expressions.{RowLine, RowsV1Lanes}
import io.ubunye.spark.rowsv1.{LineBuffer, RowsV1Kernel, RowsV1Plan}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenFallback, GenerateUnsafeProjection}
import org.apache.spark.sql.types.{DataType, LongType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** Expressions that keep state across rows (a reused kernel: line buffer, SHA-256
  * state, lanes row) say so with `stateful`, so Spark hands each projection a fresh
  * copy instead of sharing one instance between threads.
  */
class StatefulExpressionsSuite extends AnyFunSuite {
  import StatefulExpressionsSuite._

  private val columns = Seq(AttributeReference("id", LongType)(), AttributeReference("name", StringType)())

  /** Every node of the expressions a registered function builds, the aggregates'
    * buffer expressions included (where the per-row work happens).
    */
  private def nodes(e: Expression): Seq[Expression] = {
    val parts = e match {
      case a: DeclarativeAggregate =>
        Seq(a) ++ a.initialValues ++ a.updateExpressions ++ a.mergeExpressions :+ a.evaluateExpression
      case other => Seq(other)
    }
    parts.flatMap(_.collect { case n => n })
  }

  /** The fields of the plugin's own classes in `e`'s class chain that hold mutable state. */
  private def stateFields(e: Expression): Seq[String] =
    Iterator.iterate[Class[_]](e.getClass)(_.getSuperclass)
      .takeWhile(c => c != null && c.getName.startsWith("io.ubunye."))
      .flatMap(_.getDeclaredFields)
      .filter(f => !Modifier.isStatic(f.getModifiers))
      .filter(f => f.getType.isArray || StateTypes.exists(_.isAssignableFrom(f.getType)))
      .map(f => s"${e.getClass.getSimpleName}.${f.getName}")
      .toSeq

  test("every expression of a registered function that keeps state across rows reports stateful, and only those") {
    val found = UbunyeFunctionRegistry.functions.flatMap { f =>
      nodes(f.builder(columns)).filter(_.getClass.getName.startsWith("io.ubunye.")).map { n =>
        val state = stateFields(n)
        assert(n.stateful == state.nonEmpty,
          s"${f.name}: ${n.getClass.getSimpleName} holds ${if (state.isEmpty) "no state" else state.mkString(", ")} " +
            s"but stateful is ${n.stateful}")
        n.getClass.getSimpleName -> state.nonEmpty
      }
    }.toMap
    // the check above saw the expressions that hold a kernel (not a vacuous pass)
    assert(found.get("RowLine").contains(true) && found.get("RowsV1Lanes").contains(true), found)
    assert(found.values.exists(!_), found) // and some that hold none
  }

  test("one expression instance in two projections run at the same time: each row gets its own line and lanes") {
    val struct = CreateNamedStruct(Seq(
      Literal("id"), BoundReference(0, LongType, nullable = false),
      Literal("name"), BoundReference(1, StringType, nullable = true)))
    def kernel: RowsV1Kernel = RowsV1Plan(struct.dataType).newKernel() // one of its own
    def line(row: InternalRow): Any = new String(kernel.lineBytes(struct.eval(row).asInstanceOf[InternalRow]), "UTF-8")
    def lanes(row: InternalRow): Any = {
      val k = kernel
      k.hashRow(struct.eval(row).asInstanceOf[InternalRow])
      (k.laneA, k.laneB)
    }
    // (name, the expression over a struct, its value in a projected row, the expected value)
    val kinds: Seq[(String, Expression => Expression, InternalRow => Any, InternalRow => Any)] = Seq(
      ("ubunye_row_line", e => RowLine(e), r => r.getUTF8String(0).toString, line),
      ("lanes", e => RowsV1Lanes(e), r => { val l = r.getStruct(0, 2); (l.getLong(0), l.getLong(1)) }, lanes))
    val factories: Seq[(String, Seq[Expression] => UnsafeProjection)] = Seq(
      "interpreted" -> (e => InterpretedUnsafeProjection.createProjection(e)),
      "generated" -> (e => GenerateUnsafeProjection.generate(e, true)))
    val wrong = for ((kind, make, read, expected) <- kinds; (mode, factory) <- factories) yield {
      val label = s"$kind, $mode"
      val gate = new Gate
      val shared = make(GatedStruct(struct, gate)) // one instance, in both projections
      val (p1, p2) = (factory(Seq(shared)), factory(Seq(shared)))
      val gated = InternalRow(-1L, UTF8String.fromString("first thread " * 20))
      val others = (0 until 50).map(i => InternalRow(i.toLong, UTF8String.fromString(s"second thread $i " * (i % 7))))
      var first: Any = null
      var failure: Throwable = null
      val t1 = new Thread(() => try first = read(p1(gated)) catch { case e: Throwable => failure = e })
      t1.start()
      // this thread runs its rows while the other is in the middle of its row's line
      assert(gate.inside.await(20, TimeUnit.SECONDS), s"$label: the first row never reached the gate")
      val second = try others.map(r => read(p2(r))) finally gate.release.countDown()
      t1.join(20000)
      assert(failure == null, s"$label: $failure")
      Seq(s"$label: the other thread's row" -> (first == expected(gated)),
        s"$label: this thread's rows" -> (second == others.map(expected)))
    }
    assert(wrong.flatten.filterNot(_._2).map(_._1).isEmpty, "wrong results")
  }
}

object StatefulExpressionsSuite {
  /** Types whose instances change as rows go through: a field of one is state. */
  private val StateTypes: Seq[Class[_]] = Seq(classOf[RowsV1Kernel], classOf[LineBuffer],
    classOf[MessageDigest], classOf[InternalRow], classOf[java.io.Writer], classOf[java.io.OutputStream],
    classOf[java.lang.StringBuilder], classOf[scala.collection.mutable.Builder[_, _]])

  /** Where the first thread waits, halfway through a line, for the second to finish. */
  final class Gate extends Serializable {
    val inside = new CountDownLatch(1)
    val release = new CountDownLatch(1)
  }

  /** `child`'s struct, whose row (id -1 only) stops at the gate when its second field
    * is looked at: after the kernel began the row's line.
    */
  final case class GatedStruct(child: Expression, gate: Gate) extends UnaryExpression with CodegenFallback {
    override def dataType: DataType = child.dataType
    override def nullable: Boolean = false
    override def eval(input: InternalRow): Any = {
      val r = child.eval(input).asInstanceOf[InternalRow]
      new GenericInternalRow(r.toSeq(dataType.asInstanceOf[StructType]).toArray) {
        override def isNullAt(ordinal: Int): Boolean = {
          if (ordinal == 1 && getLong(0) == -1L && gate.inside.getCount > 0) {
            gate.inside.countDown()
            gate.release.await(20, TimeUnit.SECONDS)
          }
          super.isNullAt(ordinal)
        }
      }
    }
    override protected def withNewChildInternal(newChild: Expression): GatedStruct = copy(child = newChild)
  }
}
