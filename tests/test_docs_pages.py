"""The docs pages against the repository and the store: no page names a file outside the
repository, and no page that says where records go says they are replaced (the store creates each
record once: ubunye.lineage.store.posix)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
_LINK = re.compile(r"\]\(([^)#\s]+)")


def test_no_page_links_outside_the_repository() -> None:
    outside = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        outside += [f"{page.name}: {m}" for m in re.findall(r"/work/shared/\S+", text)]
        for target in _LINK.findall(text):
            if "://" in target or target.startswith("mailto:"):
                continue
            where = (page.parent / target).resolve()
            if ROOT.resolve() not in where.parents and where != ROOT.resolve():
                outside.append(f"{page.name}: ({target})")
    assert not outside, outside


def test_the_pages_on_where_records_go_say_they_are_never_replaced() -> None:
    for name in ("spark.md", "clusters.md", "storage.md"):
        text = (ROOT / "docs" / name).read_text(encoding="utf-8")
        assert "os.replace" not in text and "never replaced" in text, name
    assert "os.replace" not in (ROOT / "README.md").read_text(encoding="utf-8")
    code = (ROOT / "python" / "ubunye" / "lineage" / "store" / "posix.py").read_text(encoding="utf-8")
    assert "os.link(" in code and "os.replace(" not in code and "os.rename(" not in code
