"""Ingest: the raw files, unchanged, as parquet (the same code on Spark and pandas)."""
from __future__ import annotations

from typing import Any

from ubunye import Task


class Ingest(Task):
    def transform(self, sources: dict[str, Any]) -> dict[str, Any]:
        return {"orders_raw": sources["orders"], "customers_raw": sources["customers"]}
