"""Summarise: per city (from the nested address; no address is its own group),
the number of orders and of items."""
from __future__ import annotations

from typing import Any

from ubunye import Task


class Summarise(Task):
    def transform(self, sources: dict[str, Any]) -> dict[str, Any]:
        orders = sources["orders"]
        if self.backend == "spark":
            from pyspark.sql import functions as F

            by_city = orders.groupBy(F.col("address.city").alias("city")).agg(
                F.count(F.lit(1)).alias("orders"), F.sum("quantity").cast("bigint").alias("items")
            )
        else:
            import pandas as pd

            frame = pd.DataFrame({"city": orders["address"].struct.field("city"), "quantity": orders["quantity"]})
            grouped = frame.groupby("city", dropna=False)["quantity"]
            by_city = pd.DataFrame(
                {
                    "orders": grouped.size().astype("int64[pyarrow]"),
                    "items": grouped.sum().astype("int64[pyarrow]"),
                }
            ).reset_index()
        return {"by_city": by_city}
