package org.apache.spark.sql.ubunye

import org.apache.spark.sql.catalyst.FunctionIdentifier

/** The identifier under which a session's function registry holds a function (3.5 to 4.1: the bare name). */
object FunctionIds {
  def of(name: String): FunctionIdentifier = FunctionIdentifier(name)
}
