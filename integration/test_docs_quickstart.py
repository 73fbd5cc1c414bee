"""docs/install.md's quickstart runs as printed: on the shared session (the builder's
``getOrCreate`` returns it), the native engine hashes ``spark.range(1000)``."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

INSTALL = Path(__file__).resolve().parents[1] / "docs" / "install.md"


def test_the_install_quickstart_runs(spark: Any, capsys: Any) -> None:
    page = INSTALL.read_text(encoding="utf-8")
    block = re.search(r"## 4\. Quickstart\s+```python\n(.*?)```", page, re.S)
    assert block is not None, "docs/install.md has no quickstart block"
    assert len(block.group(1).strip().splitlines()) <= 8
    exec(compile(block.group(1), str(INSTALL), "exec"), {})  # noqa: S102 - the page's own code
    rows, digest = capsys.readouterr().out.split()
    assert rows == "1000" and digest.startswith("sha256:")
