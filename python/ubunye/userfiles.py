"""Reading a file a user names (a config, a pipeline list, a secret file, a record): the one place.

Every reader of a user's file goes through :func:`read_bytes` (and :func:`read_text`,
:func:`load_yaml`, :func:`load_json` above it), so each gets the same guards and the same
error: only a regular file is opened (a folder, a FIFO, ``/dev/zero`` or a socket is refused
without blocking on it), at most :data:`MAX_BYTES` is read (the size is checked before
reading, and the read stops one byte past the limit for a file that grows), text must be
UTF-8, YAML is parsed safely (no tags that build Python objects) with limits on nesting and
on the size its aliases expand to (a "billion laughs" file is refused, not expanded), and
JSON nested too deeply is refused. Every problem is one :class:`UserFileError` naming the
file; callers turn it into their own error (``ConfigError`` with the key, ``UnreadableRecord``).

Pure: imports nothing from ubunye, so every layer may use it.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Optional, Union

MAX_BYTES = 10 * 1024 * 1024  # config files, pipeline lists, secret files and records
MAX_DEPTH = 100  # nesting of a YAML or JSON document
MAX_NODES = 100_000  # values in a YAML document with every alias expanded

PathLike = Union[str, "os.PathLike[str]"]


class UserFileError(ValueError):
    """A user's file that cannot be read as asked; ``str`` is ``<path>: <reason>``, one line."""

    def __init__(self, path: PathLike, reason: str) -> None:
        self.path = Path(path)
        self.reason = " ".join(str(reason).split())
        super().__init__(f"{self.path}: {self.reason}")


def os_error(exc: OSError, path: Optional[PathLike] = None) -> UserFileError:
    """An errno as one error naming the path it is about (``<path>: Too many levels of symbolic
    links``), never ``[Errno 40] ...``: the path the error names, else ``path``."""
    where = exc.filename if exc.filename is not None else path
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename2 is not None:
        reason = f"{reason} ({os.fsdecode(exc.filename2)})"
    return UserFileError(os.fsdecode(where) if where is not None else "?", reason)


def errno_text(exc: OSError) -> str:
    """An errno as one line: ``<path>: <reason>`` (:func:`os_error`), or the reason alone when
    the error names no path (a full disk while writing a stream)."""
    if exc.filename is None:
        return " ".join(str(exc.strerror or exc or type(exc).__name__).split())
    return str(os_error(exc))


def folder_error(path: PathLike, what: str) -> Optional[str]:
    """None when ``path`` is a folder; else one line saying why not: ``no <what> <path>`` when
    nothing is there, ``<path>: <reason>`` for a loop of links, a file, a name too long."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return f"no {what} {path}"
    except OSError as exc:
        return str(os_error(exc, path))
    if stat.S_ISDIR(info.st_mode):
        return None
    return f"{path}: is {_kind(info.st_mode)}; expected the {what}"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISREG(mode):
        return "a file"
    return "not a regular file"


def _limit_text(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MB" if limit % (1024 * 1024) == 0 else f"{limit} bytes"


def read_bytes(path: PathLike, *, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``), or :class:`UserFileError`."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UserFileError(path, exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UserFileError(path, f"is {_kind(info.st_mode)}; expected a file")
        if info.st_size > limit:
            raise UserFileError(path, f"is {info.st_size} bytes; the limit is {_limit_text(limit)}")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise UserFileError(path, f"is more than {_limit_text(limit)} (it grew while read)")
        return b"".join(chunks)
    except OSError as exc:
        raise UserFileError(path, exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def read_text(path: PathLike, *, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of ``path`` (see :func:`read_bytes`); a byte that is not UTF-8 is an error
    naming its line (not the byte: the file may hold a secret)."""
    data = read_bytes(path, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UserFileError(path, f"not UTF-8 text (line {line})") from None  # not the byte: a secret's


def load_yaml(path: PathLike, *, limit: int = MAX_BYTES) -> Any:
    """The YAML document of ``path``: safe types only, nesting and expanded size limited."""
    import yaml

    text = read_text(path, limit=limit)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(path, node)
        _refuse_duplicate_keys(path, node, loader)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise UserFileError(path, f"not valid YAML: {_yaml_reason(exc)}") from None
    except RecursionError:  # the pure-Python parser, where libyaml is missing
        raise UserFileError(path, f"not valid YAML: nested deeper than {MAX_DEPTH} levels") from None
    finally:
        loader.dispose()


def _yaml_reason(exc: Exception) -> str:
    return " ".join(str(exc).replace('in "<unicode string>", ', "").split())


def _check_nodes(path: PathLike, root: Any) -> None:
    """Refuse a node graph deeper than MAX_DEPTH, holding itself (a recursive alias), or with
    more than MAX_NODES values once aliases are expanded; linear in the distinct nodes."""
    import yaml

    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_NODES:
                raise UserFileError(path, f"not accepted: its aliases expand to more than {MAX_NODES} values")
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise UserFileError(path, "not accepted: an alias refers to a value that holds it (a recursive alias)")
        if depth > MAX_DEPTH:
            raise UserFileError(path, f"not accepted: nested deeper than {MAX_DEPTH} levels")
        if not isinstance(node, yaml.Node):
            raise UserFileError(path, "not valid YAML")
        open_nodes.add(key)
        stack.append((node, depth, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise UserFileError(path, "not accepted: an alias refers to a value that holds it "
                                          "(a recursive alias)")
            stack.append((child, depth + 1, False))


def _refuse_duplicate_keys(path: PathLike, root: Any, loader: Any) -> None:
    """Refuse a mapping that names one key twice (YAML's loaders keep the last silently: a setting
    written twice would change meaning unseen); the error names the key's dotted path and both lines.
    Merge keys (``<<``) are YAML's own and may repeat. Runs after :func:`_check_nodes` (bounded)."""
    import yaml

    seen_nodes: set[int] = set()
    stack: list[tuple[Any, str]] = [(root, "")]
    while stack:
        node, where = stack.pop()
        if id(node) in seen_nodes:  # an alias: checked once
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(node.value))
        if not isinstance(node, yaml.MappingNode):
            continue
        first: dict[tuple[str, str], int] = {}
        for key, value in node.value:
            name = str(key.value) if isinstance(key, yaml.ScalarNode) else "<complex key>"
            dotted = f"{where}.{name}" if where else name
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                # a key as the document will hold it: "yes" and "true" are one bool, "1" and "0x1" one int
                value_of = name if key.tag.endswith(":str") else loader.construct_object(key)
                same = (type(value_of).__name__, repr(value_of))
                line = key.start_mark.line + 1
                if same in first:
                    raise UserFileError(path, f"key {dotted!r} appears twice (line {first[same]} and line {line}); "
                                              "YAML keeps only the last: remove one")
                first[same] = line
            stack.append((value, dotted))


def _children(node: Any) -> list[Any]:
    import yaml

    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def load_json(path: PathLike, *, limit: int = MAX_BYTES) -> Any:
    """The JSON document of ``path`` (UTF-8, at most ``limit`` bytes, nesting limited)."""
    text = read_text(path, limit=limit)
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise UserFileError(path, f"not valid JSON: {exc}") from None
    except RecursionError:
        raise UserFileError(path, f"not valid JSON: nested deeper than {MAX_DEPTH} levels") from None
    if _depth(doc) > MAX_DEPTH:
        raise UserFileError(path, f"not accepted: nested deeper than {MAX_DEPTH} levels")
    return doc


def _depth(doc: Any) -> int:
    deepest = 0
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return deepest
