"""The attacker's second look at the merged issue-35/36 work: the new surfaces (signing key, store
policy, ``lineage attest``, the chain) through the real CLI.

One usecase is built once (two real ``ubunye run`` processes signed with a key of the test's own);
each probe works on a fresh copy of it.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from harness import Result, Usecase, assert_one_line_error, cli, tree_digest, assert_unchanged
from test_forgery import CONFIG, _key_pem

TIMEOUT = 15.0  # every probe here ends in a second or two; a hang is what is probed


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("redteam")
    key, _ = _key_pem(root)
    env = {"UBUNYE_SIGNING_KEY": str(key), "XDG_CONFIG_HOME": str(root / "config")}
    uc = Usecase(root / "uc")
    uc.task("copy", CONFIG.format(src=uc.parquet("in.parquet"), out=uc.root / "data" / "out"))
    for _ in range(2):
        result = uc.run("-t", "copy", "--lineage", env=env)
        assert result.code == 0, str(result)
    return uc.root


@pytest.fixture()
def root(built: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "uc"
    shutil.copytree(built, copy)
    return copy


def _store(root: Path) -> Path:
    return root / ".ubunye" / "lineage"


def _lineage(root: Path, *args: str, env: dict | None = None) -> Result:
    return cli("lineage", *args, "-d", str(root), "-u", "shop", "-p", "orders", "-t", "copy",
               env={"XDG_CONFIG_HOME": str(root.parent / "config"), **(env or {})}, timeout=TIMEOUT)


@pytest.mark.parametrize("where", ["task folder", "store root", "through a link"])
def test_escape_attest_never_writes_into_the_store(root: Path, where: str) -> None:
    """``lineage attest -o`` wrote its three files into the store's task folder (then ``verify``
    failed on them: "the latest run may be ...dsse.json, which is unreadable")."""
    store = _store(root)
    target = {"task folder": store / "shop" / "orders" / "copy", "store root": store,
              "through a link": root.parent / "link" / "x"}[where]
    if where == "through a link":
        (root.parent / "link").symlink_to(store / "shop")
    before = tree_digest(store)
    result = _lineage(root, "attest", "-o", str(target))
    assert_one_line_error(result, naming=["the record store"])
    assert_unchanged(before, tree_digest(store))
    assert _lineage(root, "verify").code == 0


def test_data_loss_attest_refuses_before_writing_any_file(root: Path, tmp_path: Path) -> None:
    """A file of the user's at the third name: nothing is written, the file is kept (before: the
    first two were written, then the third refused)."""
    out = tmp_path / "out"
    first = _lineage(root, "attest", "-o", str(out))
    assert len(list(out.iterdir())) == 3, str(first)
    pem = next(out.glob("*.pub.pem"))
    for path in out.iterdir():
        if path != pem:
            path.unlink()
    pem.write_text("mine\n")
    result = _lineage(root, "attest", "-o", str(out))
    assert_one_line_error(result, naming=[pem.name])
    assert sorted(p.name for p in out.iterdir()) == [pem.name] and pem.read_text() == "mine\n"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_hang_a_pinned_policy_that_is_a_fifo_or_a_device_is_one_line(root: Path, tmp_path: Path, kind: str) -> None:
    """``UBUNYE_TRUST_POLICY`` naming a FIFO blocked forever; ``/dev/zero`` read until memory ran out."""
    if kind == "fifo":
        policy = tmp_path / "policy.fifo"
        os.mkfifo(policy)
    else:
        policy = Path("/dev/zero")
    result = _lineage(root, "verify", env={"UBUNYE_TRUST_POLICY": str(policy)})
    assert_one_line_error(result, naming=[str(policy), "UBUNYE_TRUST_POLICY"])


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero"])
@pytest.mark.parametrize("blob", ["policy", "envelope"])
def test_hang_a_fifo_or_device_planted_in_the_store_is_never_read(root: Path, kind: str, blob: str) -> None:
    """A FIFO (or a link to ``/dev/zero``) planted as the store's policy or as a run's signed
    envelope: every read of the store hung (the store's file reader opened it blocking)."""
    store = _store(root)
    if blob == "policy":
        path = store / "ubunye-policy.json"
    else:
        path = next((store / "shop" / "orders" / "copy" / "_signed").glob("*.dsse.json"))
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    result = _lineage(root, "verify", "--signatures")
    if blob == "policy":
        assert_one_line_error(result, naming=[str(path), "not a regular file"])
    else:
        assert result.code == 1 and "not a regular file" in result.text, str(result)
        assert "Traceback" not in result.text, str(result)


def _run_with_key(tmp_path: Path, key: Path) -> tuple[Usecase, Result]:
    uc = Usecase(tmp_path / "uc2")
    uc.task("copy", CONFIG.format(src=uc.parquet("in.parquet"), out=uc.root / "data" / "out"))
    result = uc.run("-t", "copy", "--lineage", env={"UBUNYE_SIGNING_KEY": str(key),
                                                    "XDG_CONFIG_HOME": str(tmp_path / "config")}, timeout=TIMEOUT)
    return uc, result


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o606])
def test_lying_record_a_signing_key_others_may_read_signs_nothing(tmp_path: Path, mode: int) -> None:
    """A key file others can read (``cp key.pem`` under umask 022) signed every record: anyone on
    the machine could sign as its owner. Now the record is kept, unsigned, and the run says why."""
    key, _ = _key_pem(tmp_path)
    key.chmod(mode)
    uc, result = _run_with_key(tmp_path, key)
    assert result.code != 0 and "Traceback" not in result.text, str(result)
    assert f"signing key {key}: others may read or change it (mode {mode:04o})" in result.err, str(result)
    (record,) = [r for r in uc.records("copy") if r["status"] != "running"]
    assert record["status"] == "success"
    assert not (uc.lineage_dir / "shop" / "orders" / "copy" / "_signed").exists()


def test_lying_record_a_signing_key_inside_a_store_signs_nothing(root: Path, tmp_path: Path) -> None:
    """``UBUNYE_SIGNING_KEY`` naming a file in a record store (every reader of the store has it)."""
    key, _ = _key_pem(tmp_path)
    planted = _store(root) / "shop" / "key.pem"
    shutil.copy(key, planted)
    planted.chmod(0o600)
    _, result = _run_with_key(tmp_path, planted)
    assert result.code != 0 and f"signing key {planted}: is inside a record store" in result.err, str(result)


def test_hang_a_signing_key_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    """A FIFO as the key is never waited on, and is named for what it is (before: "not an unencrypted
    PEM private key": the key loader's own error was caught as a ValueError and replaced)."""
    fifo = tmp_path / "key.fifo"
    os.mkfifo(fifo, 0o600)
    _, result = _run_with_key(tmp_path, fifo)
    assert result.code != 0 and f"signing key {fifo}: not a regular file" in result.err, str(result)


@pytest.mark.parametrize("name", ["00000000000\u00b2", "\u0660" * 11 + "\u0661"])
def test_traceback_a_planted_chain_file_of_unicode_digits_is_not_a_place(root: Path, tmp_path: Path, name: str) -> None:
    """A file named with 12 characters ``str.isdigit()`` takes but are not ASCII digits, planted in
    a task's ``_chain/``: ``verify --chain`` stopped with ``error: invalid literal for int() ...``
    (exit 2), so one planted file stopped every chain check of the store. (The Arabic-Indic name
    passed before too: it reads as place 1, which is there; a guard.)"""
    from cryptography.hazmat.primitives import serialization

    from ubunye.lineage.attestation.chain import CHAIN

    chain = _store(root) / "shop" / "orders" / "copy" / CHAIN  # the chain places' folder
    (chain / name).write_text("{}")
    key, _ = _key_pem(tmp_path)
    private = serialization.load_pem_private_key(key.read_bytes(), password=None)
    pub = tmp_path / "k.pub"
    pub.write_bytes(private.public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo))
    result = _lineage(root, "verify", "--chain", "--signatures", "--key", str(pub))
    assert "int()" not in result.text and "Traceback" not in result.text, str(result)
    assert result.code == 1 and "NOT PROVEN" in result.out, str(result)  # a key the records are not signed by
    assert "chain of shop/orders/copy: 2 place(s)" in result.out, str(result)


@pytest.mark.parametrize("where", ["key folder", "folder above it", "inside it", "named key file"])
def test_data_loss_an_output_on_the_signing_key_is_refused(tmp_path: Path, where: str) -> None:
    """An output at the per-user key's folder: the record was signed by a key made inside the
    output (the private key shipped with the data), and the next run's overwrite deleted it (a new
    key each run: every policy naming the old one then refused the records). The named key file was
    refused before too, as an existing file; now it is named as the key (a guard)."""
    config = tmp_path / "config"
    signing = config / "ubunye" / "signing"
    named = tmp_path / "named.pem"
    out = {"key folder": signing, "folder above it": config / "ubunye", "inside it": signing / "out",
           "named key file": named}[where]
    env = {"XDG_CONFIG_HOME": str(config)}
    if where == "named key file":
        key, _ = _key_pem(tmp_path)
        key.rename(named)
        env["UBUNYE_SIGNING_KEY"] = str(named)
    uc = Usecase(tmp_path / "uc3")
    uc.task("copy", CONFIG.format(src=uc.parquet("in.parquet"), out=out))
    before = named.read_bytes() if where == "named key file" else None
    result = uc.run("-t", "copy", "--lineage", env=env, timeout=TIMEOUT)
    assert_one_line_error(result, naming=["CONFIG.outputs.clean.path", "signing key"])
    if before is not None:
        assert named.read_bytes() == before
    else:
        assert not (signing / "ed25519.pem").exists() or not (signing / "_SUCCESS").exists()


def test_lying_exit_code_attest_with_only_the_store_published_key_is_not_proven(root: Path, tmp_path: Path) -> None:
    """No policy: ``attest`` took the signer's key from the store's own ``_keys/`` and said "the
    envelope verifies", exit 0, where ``verify --signatures`` says those keys prove nothing (a
    forger publishes their own key beside a forged record). The files are still written."""
    out = tmp_path / "out"
    result = _lineage(root, "attest", "-o", str(out))
    assert result.code == 1 and "NOT PROVEN" in result.out and "_keys" in result.out, str(result)
    assert len(list(out.iterdir())) == 3


def test_hang_a_huge_sparse_file_planted_in_the_store_is_never_read(root: Path) -> None:
    """A sparse file planted as a run's envelope (or any object the store reads by name) was read
    whole into memory, whatever its size (64 MB here, so the red run stays cheap); now it is
    refused by its size before reading (that run not proven)."""
    path = next((_store(root) / "shop" / "orders" / "copy" / "_signed").glob("*.dsse.json"))
    with open(path, "wb") as handle:
        handle.truncate(64 << 20)
    result = _lineage(root, "verify", "--signatures")
    assert result.code == 1 and "an object of the store is at most 32 MB" in result.text, str(result)
    assert "Traceback" not in result.text, str(result)
