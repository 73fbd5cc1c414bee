"""Clean: drop orders without an amount (NaN amounts stay: they are values), drop
duplicate orders, add the customer's name, email, city and tags."""
from __future__ import annotations

from typing import Any

from ubunye import Task

CUSTOMER_COLUMNS = ["customer_id", "name", "email", "address", "tags"]


class Clean(Task):
    def transform(self, sources: dict[str, Any]) -> dict[str, Any]:
        orders, customers = sources["orders"], sources["customers"]
        if self.backend == "spark":
            kept = orders.where(orders["amount"].isNotNull()).dropDuplicates(["order_id"])
            joined = kept.join(customers.select(*CUSTOMER_COLUMNS), on="customer_id", how="left")
        else:
            kept = orders[orders["amount"].notna()].drop_duplicates(subset=["order_id"])
            joined = kept.merge(customers[CUSTOMER_COLUMNS], on="customer_id", how="left")
        return {"orders_clean": joined}
