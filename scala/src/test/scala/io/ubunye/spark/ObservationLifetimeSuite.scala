package io.ubunye.spark

import java.util.UUID

import io.ubunye.spark.observe.RowsV1Observations

import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

/** An observation lives as long as a frame that can run it: attached and dropped, it
  * is released once the JVM collects the frame; while a frame (or one built on it)
  * lives, its result is kept, written or not.
  */
class ObservationLifetimeSuite extends AnyFunSuite with SparkSessionManager {

  private def frame: DataFrame = spark.range(0, 200, 1, 2).selectExpr("id", "cast(id % 7 AS string) AS s")

  /** Collects garbage (bounded: about ten seconds) until `pending` is `want`; the last count. */
  private def pendingAfterGc(want: Int): Int = {
    var seen = RowsV1Observations.pending
    var tries = 0
    while (seen != want && tries < 100) {
      System.gc()
      Thread.sleep(100)
      seen = RowsV1Observations.pending
      tries += 1
    }
    seen
  }

  private def aggregate(df: DataFrame): Array[Long] = {
    val r = df.selectExpr("ubunye_rows_v1_sums(*)").head().getStruct(0)
    Array(r.getLong(0), r.getDecimal(1).longValue, r.getDecimal(2).longValue)
  }

  test("a thousand observations attached and dropped are released; one whose frame lives is kept") {
    assert(pendingAfterGc(0) == 0, "observations left over before the test")
    val base = frame
    val dropped = (1 to 1000).map(_ => UUID.randomUUID().toString)
    dropped.foreach(id => RowsV1Observations.attach(base, id)) // each frame dropped at once
    val keptId = UUID.randomUUID().toString
    var kept = RowsV1Observations.attach(base, keptId)
    assert(pendingAfterGc(1) == 1, "the dropped frames' observations are still held")
    // the living frame's observation was not released with the others: it runs and reads
    kept.write.format("noop").mode("overwrite").save()
    assert(RowsV1Observations.sums(keptId).sameElements(aggregate(base)))
    assert(RowsV1Observations.partitions(keptId) == 2)
    val e = intercept[NoSuchElementException](RowsV1Observations.sums(dropped.head))
    assert(e.getMessage.contains(dropped.head), e.getMessage)
    // a released name is free again
    RowsV1Observations.attach(base, dropped.head)
    RowsV1Observations.forget(dropped.head)
    kept = null
    assert(pendingAfterGc(0) == 0, "the last frame's observation is still held after the frame was dropped")
  }

  test("a written result is kept while a frame built on the observed one lives, and read as before") {
    val id = UUID.randomUUID().toString
    // only a frame derived from the observed frame is kept: its plan holds the observation
    val derived = RowsV1Observations.attach(frame, id).where("id >= 0")
    derived.write.format("noop").mode("overwrite").save()
    (1 to 10).foreach { _ => System.gc(); Thread.sleep(50) } // the result stays
    assert(RowsV1Observations.result(id, forget = false) == {
      val s = aggregate(frame)
      s"${s(0)} ${s(1)} ${s(2)} 2"
    })
    assert(RowsV1Observations.pending >= 1)
    RowsV1Observations.forget(id)
    assert(intercept[NoSuchElementException](RowsV1Observations.sums(id)).getMessage.contains(id))
    assert(derived.count() == 200) // the frame still runs after its observation was forgotten
  }
}
