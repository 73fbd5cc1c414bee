"""A folder on its Hadoop file system, for an output written beside it and swapped in
(:func:`ubunye.spark.saving.save`). Classic sessions only."""
from __future__ import annotations

from typing import Any

from ubunye.spark._compat import hadoop_handles


class HadoopFolder:
    """A folder on its Hadoop file system (classic sessions): its scheme, a hidden sibling
    name, and the renames and deletes a swap needs (each a JVM call)."""

    def __init__(self, spark: Any, path: str) -> None:
        self._path_class, conf = hadoop_handles(spark)
        raw = self._path_class(path)
        self.fs = raw.getFileSystem(conf)
        self.path = self.fs.makeQualified(raw)
        self.scheme = str(self.fs.getUri().getScheme() or "").lower()

    def sibling(self, tag: str) -> Any:
        return self._path_class(self.path.getParent(), f".{self.path.getName()}.ubunye-{tag}")

    def exists(self, path: Any) -> bool:
        return bool(self.fs.exists(path))

    def rename(self, source: Any, target: Any) -> None:
        if not self.fs.rename(source, target):
            raise OSError(f"could not rename {source.toString()} to {target.toString()}")

    def delete(self, path: Any) -> None:
        self.fs.delete(path, True)


def remove_quietly(spark: Any, path: str) -> None:
    """Delete ``path`` (recursively) if it exists; any failure is left unsaid (the caller is
    handling an error of its own, which is the one to raise)."""
    try:
        folder = HadoopFolder(spark, path)
        if folder.exists(folder.path):
            folder.delete(folder.path)
    except Exception:  # noqa: BLE001 - best effort, see above
        pass
