"""The parity fuzz: generated csv text, JSON lines and invalid UTF-8, read by Spark and by pandas.

Each generator (integration/fuzz_cases.py) makes ``$UBUNYE_FUZZ_CASES`` cases (1,000 in
CI, derandomized: seed 0; 10,000 nightly), read in one Spark job per option set
(integration/fuzz_run.py) and compared per case by rows-v1 fingerprint. Every case must
agree. Generators listed in ``OPEN`` still find differences: they are not run here
(docs/pandas-reads.md lists them as open).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from fuzz_cases import GENERATORS
from fuzz_run import fuzz_count, run

SEED = 0
OPEN: dict[str, str] = {
    "csv": "117 of 1,000 cases differ on Spark 4.1 (univocity's handling of unbalanced quotes, a lone quote, "
           "escapes before doubled quotes, unclosed quotes with multiLine): docs/pandas-reads.md, open",
}


@pytest.mark.parametrize("generator", sorted(g for g in GENERATORS if g not in OPEN))
def test_fuzz(spark: Any, tmp_path: Path, generator: str) -> None:
    make, fmt = GENERATORS[generator]
    started = time.monotonic()
    count, differences = run(spark, tmp_path, fmt, make(SEED, fuzz_count()))
    print(f"[fuzz] {generator}: {count} cases, {len(differences)} differences, "
          f"{time.monotonic() - started:.0f} s on Spark {spark.version}")
    assert not differences, "\n".join(d[:800] for d in differences[:20])
