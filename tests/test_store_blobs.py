"""The byte layer under the record store: the one scheme table, URLs kept whole, the local
backend's create-only write (with and without hard links), and the reuse index's entries.
(The same behaviour on real object-store servers: integration/test_store_backends.py.)"""
from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.lineage.known import KNOWN_DIR, KnownHashes, location_key
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import AlreadyExists, RecordStore, is_url, join, open_blobs, open_store
from ubunye.lineage.store.posix import PosixBlobs


@pytest.mark.parametrize("text, url", [
    ("s3://b/x", True), ("gs://b", True), ("abfss://c@a.dfs.core.windows.net/p", True), ("az://c/p", True),
    ("dbfs:/Volumes/a/b/c", True), ("file:///tmp/x", True), ("C:\\lineage", False), ("C:/x", False),
    ("/Volumes/a/b/c", False), (".ubunye/lineage", False), ("rel/s3:x", False),
])
def test_what_is_a_url(text: str, url: bool) -> None:
    assert is_url(text) is url


def test_urls_are_never_folded_or_joined_to_the_usecase(tmp_path: Path) -> None:
    assert join(tmp_path, "s3://bucket/lineage") == "s3://bucket/lineage"
    assert join(tmp_path, None) == tmp_path / ".ubunye" / "lineage"
    assert join(tmp_path, "records") == tmp_path / "records"
    assert join("s3://bucket/uc", "records") == "s3://bucket/uc/records"
    assert join("s3://bucket/uc", None) == "s3://bucket/uc/.ubunye/lineage"
    assert open_store(tmp_path, "s3://bucket/lineage").root == "s3://bucket/lineage"


def test_backends_join_the_scheme_table_and_a_scheme_has_one_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    """blobs.py imports no backend: each backend's module registers its schemes; another module's
    claim on a held scheme is refused (a plugin cannot take over ``s3://`` or local paths)."""
    import ubunye.lineage.store.blobs as blobs_module

    monkeypatch.setattr(blobs_module, "_BACKENDS", dict(blobs_module._BACKENDS))
    owners = {scheme: opener.__module__ for scheme, (opener, _) in blobs_module._BACKENDS.items()}
    assert owners[""] == owners["file"] == "ubunye.lineage.store.posix"
    assert owners["s3"] == owners["abfss"] == "ubunye.lineage.store.objects"
    assert owners["dbfs"] == "ubunye.lineage.store.filesapi"

    def claim(where: object) -> PosixBlobs:
        return PosixBlobs(Path("/nowhere"))

    for held in ("", "file", "s3"):
        with pytest.raises(ValueError, match=f"scheme '{held}' is ubunye.lineage.store.[a-z]+'s already"):
            blobs_module.register(held, claim, "mine://")
    blobs_module.register("mine", claim, "mine://")
    assert open_blobs("mine://x").root == Path("/nowhere")
    with pytest.raises(ValueError, match=r"unknown scheme 'ftp' \(known: a path, .*, mine://\)"):
        open_blobs("ftp://host/x")


def test_one_scheme_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABRICKS_HOST", raising=False)
    assert isinstance(open_blobs(tmp_path), PosixBlobs) and not open_blobs(tmp_path).volume
    assert open_blobs(f"file://{tmp_path}").root == tmp_path
    with pytest.raises(ValueError, match="/Volumes/main/ops/lineage does not exist here"):
        open_blobs("/Volumes/main/ops/lineage")  # no such volume here: nothing is created under /Volumes
    import ubunye.lineage.store.blobs as blobs_module

    with monkeypatch.context() as mounted:  # the volume's folder exists (a cluster): a PosixBlobs in volume mode
        mounted.setattr(blobs_module, "volume_root", lambda text, local: tmp_path)
        assert open_blobs("/Volumes/main/ops/lineage").volume  # never links or renames there
    with pytest.raises(ValueError, match=r"unknown scheme 'ftp' \(known: a path, file://, s3://.*dbfs:/Volumes\)"):
        open_blobs("ftp://host/x")
    with pytest.raises(ValueError, match="dbfs:/Volumes"):
        open_blobs("dbfs:/tmp/x")
    with pytest.raises(ValueError, match="/Volumes/nope/x/y is not mounted here"):
        open_blobs("dbfs:/Volumes/nope/x/y")
    monkeypatch.setenv("DATABRICKS_HOST", "https://adb-1.azuredatabricks.net")  # off a cluster: the Files API
    files = open_blobs("dbfs:/Volumes/nope/x/y")
    assert type(files).__name__ == "FilesApiBlobs" and files._url("files", "a b/c.json", {"overwrite": "false"}) \
        == "https://adb-1.azuredatabricks.net/api/2.0/fs/files/Volumes/nope/x/y/a%20b/c.json?overwrite=false"


def test_an_unreachable_store_url_is_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "hunter2secret")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    result = CliRunner().invoke(cli, ["lineage", "list", "-d", str(tmp_path), "--lineage-dir",
                                      "s3://bucket/lineage", "-u", "shop", "-p", "orders", "-t", "clean"])
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and "s3://bucket/lineage/shop/orders/clean" in line  # not s3:/bucket
    assert "hunter2secret" not in result.stderr


@pytest.mark.parametrize("links", [True, False])
def test_a_local_object_is_created_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, links: bool) -> None:
    if not links:  # as on a FUSE mount: "Function not implemented"
        def no_link(*_: object) -> None:
            raise OSError(errno.ENOSYS, "Function not implemented")
        monkeypatch.setattr(os, "link", no_link)
    blobs = PosixBlobs(tmp_path)
    blobs.put_new("a/b.json", b"first")
    with pytest.raises(AlreadyExists):
        blobs.put_new("a/b.json", b"second")
    assert blobs.get("a/b.json") == b"first"
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b.json"]  # no temp file left
    files, folders = blobs.listdir("")
    assert files == [] and folders == ["a"]
    assert [(b.key, b.size) for b in blobs.listdir("a")[0]] == [("a/b.json", 5)]


def test_racing_local_writers_have_one_winner(tmp_path: Path) -> None:
    blobs = PosixBlobs(tmp_path)
    barrier = threading.Barrier(8)
    won: list[int] = []

    def write(i: int) -> None:
        barrier.wait()
        try:
            blobs.put_new("race.json", str(i).encode())
            won.append(i)
        except AlreadyExists:
            pass

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and blobs.get("race.json") == str(won[0]).encode()


def _published(store: RecordStore, run_id: str, signature: str) -> RunRecord:
    step = Step("clean", "output", "parquet", "/lake/clean", 3, "sha256:schema", f"sha256:{run_id}", "rows-v1",
                storage_signature=signature)
    record = RunRecord(run_id=run_id, task_path="shop/orders/clean", usecase="shop", package="orders",
                       task_name="clean", started_at="2026-01-01T00:00:00+00:00", status="success", outputs=[step])
    store.write(record)
    return record


def test_index_entries_are_one_object_each_and_old_index_files_still_read(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    known = KnownHashes(store)
    for i in range(3):
        known.publish(_published(store, f"r{i}", f"files:{i}"), {"output:clean": "/lake/clean"})
    entries = sorted((tmp_path / KNOWN_DIR / location_key("/lake/clean")).iterdir())
    assert len(entries) == 3 and all(json.loads(e.read_text())["run_id"].startswith("r") for e in entries)
    old = _published(store, "r-old", "files:old")  # an index file of the layout before entries
    old_entry = {"signature": "files:old", "schema_hash": "sha256:schema", "data_hash": "sha256:r-old",
                 "task_path": "shop/orders/clean", "usecase": "shop", "package": "orders", "task": "clean",
                 "run_id": old.run_id, "step": "output:clean"}
    (tmp_path / KNOWN_DIR / f"{location_key('/lake/other')}.json").write_text(json.dumps({"entries": [old_entry]}))
    found = KnownHashes(store).find("/lake/other", "files:old", lambda: "sha256:schema")
    assert found is not None and found.source == "shop/orders/clean/r-old:output:clean"
    assert KnownHashes(store).find("/lake/clean", "files:1", lambda: "sha256:schema").step.data_hash == "sha256:r1"
