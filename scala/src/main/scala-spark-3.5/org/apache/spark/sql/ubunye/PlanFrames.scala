package org.apache.spark.sql.ubunye

import org.apache.spark.sql.{DataFrame, Dataset, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** A frame's logical plan and a frame of a logical plan (Spark 3.5). */
object PlanFrames {
  def ofRows(spark: SparkSession, plan: LogicalPlan): DataFrame = Dataset.ofRows(spark, plan)

  def logicalPlan(df: DataFrame): LogicalPlan = df.logicalPlan
}
