"""Backends: where a task's frames live (Spark, pandas) behind one port."""
from __future__ import annotations

from typing import Any, Optional

from ubunye.engine.backends.base import Backend, FramePort, ReadResult, WriteResult

BACKENDS = ("spark", "pandas")

__all__ = ["Backend", "FramePort", "ReadResult", "WriteResult", "BACKENDS", "make_backend"]


def make_backend(
    name: str,
    *,
    spark: Any = None,
    time_zone: Optional[str] = None,
    spark_conf: Optional[dict[str, str]] = None,
    hash_engine: Optional[str] = None,
) -> Backend:
    """The backend called ``name`` (``"spark"`` or ``"pandas"``)."""
    if name == "pandas":
        from ubunye.engine.backends.pandas_backend import PandasBackend, pyarrow_refusal

        refusal = pyarrow_refusal()
        if refusal is not None:  # before any read: Databricks 14.3 LTS's pyarrow 8.0.0
            from ubunye.engine.errors import BackendError

            raise BackendError(refusal)

        return PandasBackend(time_zone=time_zone)
    if name == "spark":
        from ubunye.engine.backends.spark_backend import SparkBackend

        return SparkBackend(spark=spark, time_zone=time_zone, spark_conf=spark_conf, hash_engine=hash_engine)
    raise ValueError(f"unknown backend {name!r}: expected one of {', '.join(BACKENDS)}")
