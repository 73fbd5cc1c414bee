package org.apache.spark.sql.ubunye

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry

/** The identifier under which a session's function registry holds a function: from
  * Spark 4.2 the registry takes only qualified names (`system.builtin.<name>`) and
  * asserts on a bare one, as `Ubunye.install` would pass. In Spark's package because
  * `builtinFunctionIdentifier` is `private[sql]`.
  */
object FunctionIds {
  def of(name: String): FunctionIdentifier = FunctionRegistry.builtinFunctionIdentifier(name)
}
