package io.ubunye.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

/** A small user-defined type for the tests (the shape of Spark ML's VectorUDT). */
@SQLUserDefinedType(udt = classOf[PointUDT])
case class Point(x: Double, y: Double)

class PointUDT extends UserDefinedType[Point] {
  override def sqlType: DataType = StructType(Seq(StructField("x", DoubleType), StructField("y", DoubleType)))
  override def serialize(p: Point): Any = InternalRow(p.x, p.y)
  override def deserialize(datum: Any): Point = datum match {
    case r: InternalRow => Point(r.getDouble(0), r.getDouble(1))
  }
  override def userClass: Class[Point] = classOf[Point]
}
