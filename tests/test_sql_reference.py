"""docs/sql-functions.md is what the plugin's own function documentation gives (every
registered function, with its examples), so the reference cannot drift from the code."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_sql_reference_page_is_up_to_date() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "sql-reference"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    page = (ROOT / "docs" / "sql-functions.md").read_text(encoding="utf-8")
    for name in ("ubunye_rows_v1", "ubunye_rows_v1_sums", "ubunye_rows_v1_sketch", "ubunye_row_line",
                 "ubunye_rows_v1_find"):
        assert f"## `{name}`" in page and f"SELECT {name}(" in page
