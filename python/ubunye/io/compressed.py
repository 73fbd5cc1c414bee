"""Files as Spark reads them through Hadoop's codecs: ``.gz`` and ``.bz2`` decompressed here, the
other codecs refused in one line naming the file; and the one error of a path that cannot be read
(:class:`UnreadablePath`, handed on by :mod:`ubunye.io`). Below the package and its readers."""
from __future__ import annotations

from pathlib import Path

# compression suffixes Spark (Hadoop's codecs) reads text files through; the first two are read here
CODECS = (".gz", ".bz2")
OTHER_CODECS = (".deflate", ".lz4", ".snappy", ".zst", ".zstd", ".br")


class UnreadablePath(OSError):
    """A path that does not exist, is empty, or cannot be read in the format."""


def refuse_other_codec(path: Path) -> None:
    """:class:`UnreadablePath` for a compression this reader cannot decompress."""
    suffix = path.suffix.lower()
    if suffix in OTHER_CODECS:
        raise UnreadablePath(
            f"{path}: compressed as {suffix}, which this reader cannot decompress (.gz and .bz2 only)")


def read_bytes(path: Path) -> bytes:
    """A file's bytes, decompressed by its suffix (``.gz``, ``.bz2``) as Spark decompresses them."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        import gzip

        return gzip.decompress(path.read_bytes())
    if suffix == ".bz2":
        import bz2

        return bz2.decompress(path.read_bytes())
    refuse_other_codec(path)
    return path.read_bytes()
