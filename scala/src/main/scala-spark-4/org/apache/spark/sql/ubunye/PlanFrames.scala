package org.apache.spark.sql.ubunye

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** A frame's logical plan and a frame of a logical plan (Spark 4, classic sessions). */
object PlanFrames {
  def ofRows(spark: SparkSession, plan: LogicalPlan): DataFrame =
    org.apache.spark.sql.classic.Dataset.ofRows(spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession], plan)

  def logicalPlan(df: DataFrame): LogicalPlan = df.asInstanceOf[org.apache.spark.sql.classic.Dataset[_]].logicalPlan
}
