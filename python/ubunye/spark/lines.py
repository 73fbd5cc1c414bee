"""The Spark lines the package supports, what each needs, and the delta-spark release that pairs.

The one table of it (pyproject.toml's per-line extras ``spark35`` ... ``delta42`` are checked
against it by ``tests/test_spark_lines_table.py``). pip cannot choose delta-spark by the
installed pyspark (delta-spark's own pyspark ranges overlap: 4.4 allows pyspark 4.1 but is
made for 4.2), so each line has an extra pinning both: ``pip install 'ubunye[delta41]'``.

- 3.5: pyspark's ``sql``/``connect`` extras pin numpy<2; pyarrow 26 refuses to import with
  numpy 1 ("pyarrow requires NumPy 2.0 or newer") and does not say so in its requirements,
  so pyarrow<26. pandas 3 breaks ``import pyspark.pandas`` and turns a missing string into
  the text 'NaN' in ``createDataFrame(pandas_df)`` without Arrow, so pandas<3.
  delta-spark 3.3.x (needs pyspark>=3.5.3).
- 4.0: delta-spark 4.0.x. 4.1: delta-spark 4.2 or 4.3 (they allow pyspark<=4.1.1).
  4.2: delta-spark 4.4 (allows pyspark<=4.2.0). 4.3: no delta-spark release yet.

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Line:
    """One Spark line: its pyspark range, what it needs besides, its Delta pairing."""

    spark: str  # "3.5"
    pyspark: str  # the line's pyspark range, ">=3.5.0,<3.6"
    needs: tuple[str, ...] = ()  # other requirements on this line ("pyarrow<26")
    delta: Optional[str] = None  # the delta-spark range that pairs (None: no release)
    delta_pyspark: Optional[str] = None  # the pyspark range that delta-spark release allows

    @property
    def tag(self) -> str:
        """``"35"``: the suffix of the line's extras (``spark35``, ``delta35``)."""
        return self.spark.replace(".", "")

    def spark_extra(self) -> list[str]:
        return [f"pyspark[connect]{self.pyspark}", *self.needs]

    def delta_extra(self) -> Optional[list[str]]:
        if self.delta is None:
            return None
        return [f"pyspark[connect]{self.delta_pyspark or self.pyspark}", *self.needs, f"delta-spark{self.delta}"]


LINES: tuple[Line, ...] = (
    Line("3.5", ">=3.5.0,<3.6", ("pyarrow<26", "pandas<3"), ">=3.3,<3.4", ">=3.5.3,<3.6"),
    Line("4.0", ">=4.0.0,<4.1", (), ">=4.0,<4.1", ">=4.0.0,<4.1"),
    Line("4.1", ">=4.1.0,<4.2", (), ">=4.2,<4.4", ">=4.1.0,<=4.1.1"),
    Line("4.2", ">=4.2.0,<4.3", (), ">=4.4,<4.5", "==4.2.0"),
    Line("4.3", ">=4.3.0,<4.4", ()),
)


def extras() -> dict[str, list[str]]:
    """The per-line extras pyproject.toml must declare: ``{"spark35": [...], "delta35": [...]}``."""
    out: dict[str, list[str]] = {}
    for line in LINES:
        out[f"spark{line.tag}"] = line.spark_extra()
        delta = line.delta_extra()
        if delta is not None:
            out[f"delta{line.tag}"] = delta
    return out


def _version(text: str) -> tuple[int, ...]:
    """The numeric release of a version string: ``"4.1.1"`` -> (4, 1, 1), ``"3.5.0.dev1"`` -> (3, 5, 0)."""
    parts = []
    for part in text.strip().split("."):
        found = re.match(r"\d+", part)
        if not found:
            break
        parts.append(int(found.group()))
        if found.end() < len(part):
            break
    return tuple(parts)


def satisfies(version: str, spec: str) -> bool:
    """Whether ``version`` is in ``spec`` (comma-separated ``>=``, ``>``, ``<=``, ``<``, ``==``)."""
    have = _version(version)
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        op, bound = re.match(r"(>=|<=|==|>|<)\s*(.+)", clause).groups()  # type: ignore[union-attr]
        want = _version(bound)
        width = max(len(have), len(want))
        a, b = have + (0,) * (width - len(have)), want + (0,) * (width - len(want))
        if not {">=": a >= b, "<=": a <= b, "==": a == b, ">": a > b, "<": a < b}[op]:
            return False
    return True


def line_for(pyspark: str) -> Optional[Line]:
    """The supported line of a pyspark version, or None."""
    return next((line for line in LINES if satisfies(pyspark, line.pyspark)), None)


def delta_mismatch(pyspark: str, delta: str) -> Optional[str]:
    """One line when delta-spark ``delta`` does not pair with pyspark ``pyspark`` (both named,
    with the pip command that fixes it), else None (also for a line this table does not know)."""
    line = line_for(pyspark)
    if line is None:
        return None
    if line.delta is None:
        others = ", ".join(f"ubunye[delta{other.tag}]" for other in LINES if other.delta)
        return (f"delta-spark {delta} is installed with pyspark {pyspark}, but no delta-spark release "
                f"pairs with Spark {line.spark} yet: Delta tables may fail to read or write - "
                f"uninstall delta-spark, or use a Spark line that has one ({others})")
    paired = satisfies(delta, line.delta) and satisfies(pyspark, line.delta_pyspark or line.pyspark)
    if paired:
        return None
    return (f"delta-spark {delta} does not pair with pyspark {pyspark}: Spark {line.spark} takes "
            f"delta-spark{line.delta} with pyspark{line.delta_pyspark or line.pyspark}; Delta tables "
            f"may fail to read or write - pip install 'ubunye[delta{line.tag}]'")
