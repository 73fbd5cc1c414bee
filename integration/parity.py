"""The parity harness: one input read by Spark and by the pandas backend's reader.

``check(spark, path, fmt, options=None, schema=None)`` reads ``path`` with
``spark.read.format(fmt).options(...).schema(...).load(path)`` and with
``ubunye.io.read_arrow(path, fmt, options=..., schema=...)``, and returns an
:class:`Outcome`:

- ``agree``: both read a table, with the same column names, the same schema hash
  and the same rows-v1 digest and count (so the same kinds and values);
- ``both-refuse``: Spark raised and the pandas reader refused with a one-line
  reason of its own (:data:`REFUSALS`; an option it does not follow counts only when
  Spark refuses too);
- ``differ``: anything else (different tables, or one side refused alone).

Only the pandas reader's own refusals count as refusals: any other exception (a
``TypeError`` from a bug, a refusal message of several lines) is raised, so the test
fails instead of counting it as "both refused". A suite lists the cases it expects
both sides to refuse (:func:`expect`'s ``both_refuse``); every other case must agree,
so a reader that starts refusing everything cannot pass.

CSV is read on both sides with the engine's defaults ``header=true,
inferSchema=true`` unless ``options`` says otherwise. Every outcome is appended
to ``$UBUNYE_PARITY_LOG`` (default ``target/parity/<worker>.jsonl``); the suite's
summary (``conftest.pytest_terminal_summary``) prints the counts.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Mapping, Optional

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Outcome:
    case: str
    kind: str  # agree | both-refuse | differ
    detail: str

    def __str__(self) -> str:
        return f"{self.case}: {self.kind}: {self.detail}"


def log_path() -> Path:
    explicit = os.environ.get("UBUNYE_PARITY_LOG")
    if explicit:
        return Path(explicit)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return ROOT / "target" / "parity" / f"{worker}.jsonl"


def _record(outcome: Outcome) -> Outcome:
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        handle.write(json.dumps({"case": outcome.case, "kind": outcome.kind, "detail": outcome.detail}) + "\n")
    return outcome


class HashRefused(ValueError):
    """The pandas side read a table whose rows-v1 hash refused (the fingerprint's one-line error)."""


def _refusal_types() -> tuple[type, ...]:
    """The pandas reader's own refusal types: :class:`ubunye.io.UnreadablePath` (every read error,
    one line), the refusals raised before reading (options named twice, a bad DDL schema), and a
    refused hash. Exact types: a subclass elsewhere (or a bare ``ValueError``) is not one."""
    from ubunye.io import UnreadablePath
    from ubunye.io.ddl import DDLError
    from ubunye.io.options import UnsupportedOption

    return (UnreadablePath, UnsupportedOption, DDLError, HashRefused)


def pandas_refusal(exc: BaseException) -> BaseException:
    """``exc`` when it is one of the pandas reader's own one-line refusals, else it is raised again."""
    if type(exc) in _refusal_types() and "\n" not in str(exc).strip():
        return exc
    raise AssertionError(f"the pandas reader failed with {type(exc).__name__}, not a one-line refusal of its "
                         f"own: {str(exc)[:300]}") from exc


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def spark_read(spark: Any, path: Path, fmt: str, options: Mapping[str, Any], schema: Optional[str]) -> Any:
    """Spark's frame, loaded as ``ubunye hash --engine spark`` loads it (csv: header and
    inferSchema true unless the options say otherwise); data errors surface when it is hashed."""
    from ubunye.spark.cli import read_spark

    return read_spark(spark, path, fmt, options, schema)


def _hash(frame: Any) -> Any:
    import ubunye

    fp = ubunye.fingerprint(frame)
    if not fp.ok:
        raise HashRefused(fp.error)
    return fp


def pandas_read(path: Path, fmt: str, options: Mapping[str, Any], schema: Optional[str]) -> Any:
    from ubunye.io import read_arrow

    return read_arrow(path, fmt, options=dict(options), schema=schema)


def _diff_rows(spark_frame: Any, table: Any) -> str:
    """The first row that differs, for the message (or why it cannot be shown)."""
    try:
        left = [tuple(r) for r in spark_frame.collect()]
    except Exception as exc:  # noqa: BLE001 - e.g. a date past 9999, which Python cannot hold
        return f"rows not shown: Spark's rows cannot be collected into Python ({_one_line(exc)[:120]})"
    right = [tuple(r.values()) for r in table.to_pylist()]
    missing = [r for r in left if r not in right][:1]
    extra = [r for r in right if r not in left][:1]
    return f"spark has {missing or 'no other row'}, pandas has {extra or 'no other row'}"


def check(spark: Any, path: Path, fmt: str, options: Optional[Mapping[str, Any]] = None,
          schema: Optional[str] = None, case: Optional[str] = None, record: bool = True) -> Outcome:
    """Read ``path`` both ways and say whether they agree (see the module docstring).

    ``record=False`` leaves the outcome out of the log (for tests of the harness itself).
    """
    outcome = _compare(spark, path, fmt, options, schema, case)
    return _record(outcome) if record else outcome


def _compare(spark: Any, path: Path, fmt: str, options: Optional[Mapping[str, Any]],
             schema: Optional[str], case: Optional[str]) -> Outcome:
    name = case or f"{fmt}:{path.name}:{dict(options or {})}"
    opts = dict(options or {})
    spark_error = pandas_error = hash_error = None
    spark_frame = table = left = right = None
    try:
        spark_frame = spark_read(spark, path, fmt, opts, schema)
        try:
            left = _hash(spark_frame)
        except Exception as exc:  # noqa: BLE001 - Spark's own refusal (FAILFAST ...) or a kind not hashed
            try:
                spark_frame.collect()  # does Spark itself read it? then the hash failed, not the read
            except Exception as read_exc:  # noqa: BLE001
                raise read_exc from exc
            hash_error = exc
    except Exception as exc:  # noqa: BLE001 - any refusal by Spark
        spark_error = exc
    try:
        table = pandas_read(path, fmt, opts, schema)
        right = _hash(table)
    except Exception as exc:  # noqa: BLE001 - only the reader's own refusals; anything else is raised
        pandas_error = pandas_refusal(exc)
    if spark_error is not None and pandas_error is not None:
        return Outcome(name, "both-refuse", f"pandas: {_one_line(pandas_error)}")
    if spark_error is not None:
        return Outcome(name, "differ", f"only Spark refused: {_one_line(spark_error)}")
    if pandas_error is not None:
        return Outcome(name, "differ", f"only pandas refused: {_one_line(pandas_error)}")
    if hash_error is not None:
        return Outcome(name, "differ", f"Spark read it, its frame cannot be hashed: {_one_line(hash_error)}")
    assert spark_frame is not None and table is not None and left is not None and right is not None
    if list(spark_frame.columns) != list(table.column_names):
        return Outcome(name, "differ", f"columns: spark {spark_frame.columns}, pandas {table.column_names}")
    if left.schema_hash != right.schema_hash:
        return Outcome(name, "differ", f"schema: spark {spark_frame.schema.simpleString()}, "
                                       f"pandas {table.schema}".replace("\n", "; "))
    if (left.row_count, left.data_hash) != (right.row_count, right.data_hash):
        return Outcome(name, "differ", f"rows ({left.row_count} vs {right.row_count}): "
                                       f"{_diff_rows(spark_frame, table)}")
    return Outcome(name, "agree", f"{left.row_count} rows, {spark_frame.schema.simpleString()}")


def expect(spark: Any, outcome: Outcome, case: str, pandas_refuses: Mapping[str, str],
           spark35_differs: Mapping[str, str], both_refuse: Collection[str] = ()) -> None:
    """Assert a case's outcome: ``agree``, or ``both-refuse`` for a case listed in ``both_refuse``;
    except a case listed as refused by the pandas reader alone (``differ``, its refusal holding the
    listed words) or, on Spark 3.5, a case listed as read differently there (``differ``)."""
    if case in pandas_refuses:
        assert outcome.kind == "differ" and "only pandas refused" in outcome.detail \
            and pandas_refuses[case] in outcome.detail, str(outcome)
        return
    if spark.version.startswith("3.5") and case in spark35_differs:
        assert outcome.kind == "differ", f"{outcome} (Spark 3.5 was known to differ: {spark35_differs[case]})"
        return
    assert outcome.kind in allowed(case, both_refuse), str(outcome)


def allowed(case: str, both_refuse: Collection[str]) -> tuple[str, ...]:
    """The outcomes a case may have: ``agree``, and ``both-refuse`` only when the suite lists it
    (a listed case may also agree: another Spark line may read what this one refuses)."""
    return ("agree", "both-refuse") if case in both_refuse else ("agree",)


def summary(folder: Optional[Path] = None) -> dict[str, int]:
    """Counts of outcomes logged under ``folder`` (default ``target/parity``)."""
    counts = {"agree": 0, "both-refuse": 0, "differ": 0}
    for path in sorted((folder or log_path().parent).glob("*.jsonl")):
        for line in path.read_text().splitlines():
            kind = json.loads(line)["kind"]
            counts[kind] = counts.get(kind, 0) + 1
    return counts
