package io.ubunye.spark.rowsv1

/** A table or value that has no canonical rows-v1 text (spec section 5). The message
  * is one line naming the column and type at fault.
  */
class RowsV1Error(message: String) extends RuntimeException(message)
