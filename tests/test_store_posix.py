"""The local backend of the record store (ubunye.lineage.store.posix): create-only files that
others can read, volume mode without links, listings and errors that say what happened."""
from __future__ import annotations

import errno
import os
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ubunye.lineage.store.blobs import AlreadyExists, BlobNotFound
from ubunye.lineage.store.posix import PosixBlobs


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("volume", [False, True])
def test_a_stored_object_is_readable_by_others_and_written_once(tmp_path: Path, volume: bool) -> None:
    old = os.umask(0o022)
    try:
        blobs = PosixBlobs(tmp_path / "store", volume=volume)
        blobs.put_new("shop/run.json", b"{}")
        with pytest.raises(AlreadyExists) as refused:
            blobs.put_new("shop/run.json", b"[]")
    finally:
        os.umask(old)
    path = tmp_path / "store" / "shop" / "run.json"
    assert path.read_bytes() == b"{}" and _mode(path) == 0o644  # not mkstemp's 0600: records are shared
    assert refused.value.errno == errno.EEXIST and refused.value.filename == str(path)
    assert refused.value.strerror == "already stored (records are written once)"
    assert os.listdir(path.parent) == ["run.json"]


def test_volume_mode_never_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def link(*_: object) -> None:
        raise AssertionError("a volume is written without links")
    monkeypatch.setattr(os, "link", link)
    blobs = PosixBlobs(tmp_path, volume=True)
    blobs.put_new("a.json", b"x")
    assert blobs.get("a.json") == b"x"
    assert repr(blobs) == f"PosixBlobs({str(tmp_path)!r}, volume=True)"
    assert repr(PosixBlobs(tmp_path)) == f"PosixBlobs({str(tmp_path)!r})"


def test_a_link_failure_other_than_unsupported_is_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def link(*_: object) -> None:
        raise OSError(errno.EACCES, "Permission denied")
    monkeypatch.setattr(os, "link", link)
    with pytest.raises(OSError) as failed:
        PosixBlobs(tmp_path).put_new("a.json", b"x")
    assert failed.value.errno == errno.EACCES
    assert os.listdir(tmp_path) == []  # neither the object nor its temp file


def test_a_mount_that_refuses_fsync_still_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fsync(_: int) -> None:
        raise OSError(errno.EINVAL, "Invalid argument")
    monkeypatch.setattr(os, "fsync", fsync)
    blobs = PosixBlobs(tmp_path, volume=True)
    blobs.put_new("a.json", b"x")
    assert blobs.get("a.json") == b"x"


def test_a_missing_object_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(BlobNotFound) as missing:
        PosixBlobs(tmp_path).get("shop/none.json")
    assert isinstance(missing.value, FileNotFoundError) and missing.value.errno == errno.ENOENT
    assert missing.value.filename == str(tmp_path / "shop" / "none.json")
    assert missing.value.strerror == "no such record"


def test_the_temp_file_is_a_dot_file_beside_the_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Left behind by a crash, it is a hidden ``.tmp`` in the same folder (readers pass over it, and
    the link stays on one file system)."""
    linked: list[tuple[str, str]] = []
    real = os.link

    def link(src: str, dst: str) -> None:
        linked.append((str(src), str(dst)))
        real(src, dst)
    monkeypatch.setattr(os, "link", link)
    PosixBlobs(tmp_path).put_new("shop/run-1.json", b"{}")
    ((temp, final),) = linked
    assert final == str(tmp_path / "shop" / "run-1.json")
    assert os.path.dirname(temp) == str(tmp_path / "shop")
    name = os.path.basename(temp)
    assert name.startswith(".run-1.") and name.endswith(".tmp")


def test_listing_one_level(tmp_path: Path) -> None:
    blobs = PosixBlobs(tmp_path)
    assert blobs.locate("") == tmp_path and blobs.locate("a/b.json") == tmp_path / "a" / "b.json"
    for key in ("a/z.json", "a/b.json", "a/sub/c.json"):
        blobs.put_new(key, b"12345")
    files, folders = blobs.listdir("a")
    assert [f.key for f in files] == ["a/b.json", "a/z.json"] and folders == ["sub"]
    st = (tmp_path / "a" / "b.json").stat()
    assert files[0].size == 5 and files[0].name == "b.json"
    assert files[0].modified == datetime.fromtimestamp(st.st_mtime_ns / 1e9, timezone.utc)
    assert blobs.listdir("none") == ([], []) and blobs.listdir("a/b.json") == ([], [])


def test_listing_the_root_gives_keys_without_a_leading_slash(tmp_path: Path) -> None:
    blobs = PosixBlobs(tmp_path / "store")
    blobs.put_new("top.json", b"{}")
    blobs.put_new("shop/run.json", b"{}")
    files, folders = blobs.listdir("")
    assert [f.key for f in files] == ["top.json"] and folders == ["shop"]
    assert blobs.get(files[0].key) == b"{}"


def test_holds_any(tmp_path: Path) -> None:
    blobs = PosixBlobs(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / ".hidden.json").write_text("{}")
    (tmp_path / "a" / "dir.json").mkdir()
    (tmp_path / "a" / "note.txt").write_text("")
    assert not blobs.holds_any("a", ".json", "index")  # a dot file, a folder, another suffix
    (tmp_path / "a" / "index").mkdir()
    assert blobs.holds_any("a", ".json", "index")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "index").write_text("")  # a file named like the folder
    assert not blobs.holds_any("b", ".json", "index")
    (tmp_path / "b" / "r.json").write_text("{}")
    assert blobs.holds_any("b", ".json", "index")
    assert not blobs.holds_any("none", ".json", "index") and not blobs.holds_any("b/r.json", ".json", "index")


def test_a_volume_whose_exclusive_create_does_not_refuse_is_never_written(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A mount that lets a second O_CREAT|O_EXCL create succeed (records could be overwritten)
    is refused before the first record is written, with what to use instead; its probe file is
    removed."""
    import ubunye.lineage.store.posix as posix

    real_open = os.open
    monkeypatch.setattr(posix.os, "open", lambda path, flags, mode=0o777: real_open(path, flags & ~os.O_EXCL, mode))
    blobs = PosixBlobs(tmp_path, volume=True)
    with pytest.raises(OSError, match="does not refuse a second exclusive create.*Files API"):
        blobs.put_new("shop/run-1.json", b"{}")
    assert not (tmp_path / "shop" / "run-1.json").exists()
    assert list((tmp_path / "shop").iterdir()) == []  # the probe is gone


def test_a_volume_checks_its_exclusive_create_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ubunye.lineage.store.posix as posix

    calls = []
    real_check = posix._check_exclusive
    monkeypatch.setattr(posix, "_check_exclusive", lambda folder: (calls.append(folder), real_check(folder)))
    blobs = PosixBlobs(tmp_path, volume=True)
    blobs.put_new("shop/run-1.json", b"{}")
    blobs.put_new("shop/run-2.json", b"{}")
    assert len(calls) == 1 and sorted(p.name for p in (tmp_path / "shop").iterdir()) == ["run-1.json", "run-2.json"]
