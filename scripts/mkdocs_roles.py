"""The site's hook (mkdocs.yml ``hooks:``): Sphinx cross-reference roles in the docstrings that
mkdocstrings renders (``:class:`X```, ``:func:`~a.b.c```, ``:mod:`m```) shown as the code they
name, as Sphinx shows them, instead of the raw role text mkdocstrings' sphinx style leaves.
``~`` keeps the last name; ``title <target>`` keeps the title."""
from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const|term|ref):<code>([^<]*)</code>")


def _shown(target: str) -> str:
    titled = re.match(r"^(.*?)\s*&lt;[^&]*&gt;$", target)
    if titled:
        return titled.group(1)
    if target.startswith("~"):
        return target.rsplit(".", 1)[-1]
    return target.lstrip(".") if target.startswith(".") else target


def on_page_content(html: str, **_: Any) -> str:
    return _ROLE.sub(lambda m: f"<code>{_shown(m.group(1))}</code>", html)
