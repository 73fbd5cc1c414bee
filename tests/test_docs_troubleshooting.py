"""docs/troubleshooting.md quotes the CLI's messages: the stable part of each (the first cell of
every table row, split at ``…`` where the names of a case go) still occurs in the code, so a
message that is reworded fails here until the page follows it."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import jinja2.runtime

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "troubleshooting.md"
_ROW = re.compile(r"^\| `([^`]+)` \|")


def quoted() -> list[str]:
    return [m.group(1) for line in PAGE.read_text(encoding="utf-8").splitlines() if (m := _ROW.match(line))]


def literals(source: str) -> list[str]:
    """The string literals of a module as Python builds them (adjacent ones joined; an f-string's
    text with NUL where a value goes), docstrings and other bare-expression strings left out."""
    tree = ast.parse(source)
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    out = []
    for node in ast.walk(tree):
        if id(node) in bare:
            continue
        if isinstance(node, ast.JoinedStr):
            out.append("".join(v.value if isinstance(v, ast.Constant) else "\0" for v in node.values))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
    return out


def code_text() -> str:
    """Every string literal of the package, one a line (and jinja2's, for its undefined names)."""
    sources = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "python" / "ubunye").rglob("*.py"))]
    sources.append(Path(jinja2.runtime.__file__).read_text(encoding="utf-8"))  # "... is undefined"
    return "\n".join(text for source in sources for text in literals(source))


def test_every_quoted_message_still_occurs_in_the_code() -> None:
    messages = quoted()
    assert len(messages) >= 50, len(messages)  # the rows are found
    code = code_text()
    gone = []
    for message in messages:
        fragments = [f.strip(" :;,") for f in message.split("…")]
        checked = [f for f in fragments if len(f) >= 5]  # "no", ":" between two names say nothing
        assert checked, f"{message!r}: nothing of it can be checked"
        gone += [f"{message!r}: {f!r}" for f in checked if f not in code]
    assert not gone, "quoted in docs/troubleshooting.md, not in the code:\n" + "\n".join(gone)


def test_each_section_gives_cause_and_fix() -> None:
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if _ROW.match(line):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            assert len(cells) == 3 and all(cells), line
