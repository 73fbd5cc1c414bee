"""Lying record: a forger who can write to the store but has no signing key (issue 36, "Records that
cannot be forged") never makes ``lineage compare``, ``diff`` or ``verify`` prove anything where the
store's policy requires signatures.

One usecase is built once (real ``ubunye run`` processes, signed with a key of the test's own, a
policy naming that key): task ``copy`` runs three times, A and C over the same rows and B over
others, and task ``other`` once over A's rows. Each probe forges a copy of that store, then asks the
real CLI: before signed records, every forgery here was ``data proven the same`` (exit 0).
"""
from __future__ import annotations

import base64
import copy
import hashlib
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pytest

from harness import PEOPLE, Result, Usecase, cli

CONFIG = """
CONFIG:
  inputs:
    people: {{format: parquet, path: "{src}"}}
  outputs:
    clean: {{format: parquet, path: "{out}", mode: overwrite}}
"""
OTHER_ROWS = pa.table({"id": pa.array([9], pa.int64()), "name": pa.array(["X"], pa.string()),
                       "age": pa.array([1.0], pa.float64())})
TASK = ("shop", "orders", "copy")


def _key_pem(folder: Path) -> tuple[Path, str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    path = folder / "signing.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    path.chmod(0o600)  # a key others may read is refused
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return path, base64.b64encode(raw).decode("ascii")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The usecase folder and the run ids A, B, C (task copy) and O (task other)."""
    root = tmp_path_factory.mktemp("forgery")
    key, public = _key_pem(root)
    env = {"UBUNYE_SIGNING_KEY": str(key), "XDG_CONFIG_HOME": str(root / "config")}
    uc = Usecase(root / "uc")
    src = uc.parquet("in.parquet")
    for name, out in (("copy", "out"), ("other", "other_out")):
        uc.task(name, CONFIG.format(src=src, out=uc.root / "data" / out))
    ids: dict[str, str] = {}
    for label, table, task in (("A", PEOPLE, "copy"), ("B", OTHER_ROWS, "copy"), ("C", PEOPLE, "copy"),
                               ("O", PEOPLE, "other")):
        uc.parquet("in.parquet", table)
        result = uc.run("-t", task, "--lineage", env=env)
        assert result.code == 0, str(result)
        ids[label] = _newest(uc, task)["run_id"]
    keyid = hashlib.sha256(base64.b64decode(public)).hexdigest()
    (uc.lineage_dir / "ubunye-policy.json").write_text(json.dumps(
        {"policy_version": 1, "require_signatures": True, "keys": [{"keyid": keyid, "public_key": public}]}))
    return uc.root, ids


def _newest(uc: Usecase, task: str) -> dict:
    return max(uc.records(task), key=lambda r: r["ended_at"])


@pytest.fixture()
def store(built: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fresh copy of the built usecase to forge in (its data folder is shared: never changed)."""
    root, ids = built
    copy = tmp_path / "uc"
    shutil.copytree(root, copy)
    return copy, ids


def _task_dir(root: Path, task: str = "copy") -> Path:
    return root / ".ubunye" / "lineage" / "shop" / "orders" / task


def _record(root: Path, run_id: str, task: str = "copy") -> dict:
    return json.loads((_task_dir(root, task) / f"{run_id}.json").read_text())


def _put(root: Path, doc: dict, *, seal: bool = False) -> None:
    from ubunye.lineage.record import seal as seal_of

    doc = {k: v for k, v in doc.items() if k != "seal"}
    if seal:  # the seal is a plain hash: a forger recomputes it
        doc["seal"] = seal_of(doc)
    (_task_dir(root) / f"{doc['run_id']}.json").write_text(json.dumps(doc, indent=2))


def _lineage(root: Path, *args: str) -> Result:
    return cli("lineage", *args, "-d", str(root), "-u", "shop", "-p", "orders", "-t", "copy",
               env={"XDG_CONFIG_HOME": str(root.parent / "config")})


def _refused(result: Result) -> None:
    assert result.code == 1, str(result)
    assert "not proven" in result.text, str(result)
    assert "Traceback" not in result.text, str(result)


def _compare(root: Path, a: str, b: str) -> Result:
    return _lineage(root, "compare", "--run-id1", a, "--run-id2", b)


def test_lying_record_signed_runs_over_the_same_rows_are_proven_the_same(store) -> None:
    root, ids = store
    assert _compare(root, ids["A"], ids["C"]).code == 0
    assert _lineage(root, "diff", "--run-id1", ids["A"], "--run-id2", ids["C"]).code == 0
    checked = _lineage(root, "verify", "--signatures", "--chain")
    assert checked.code == 0, str(checked)
    assert "chain of shop/orders/copy: 3 place(s), holds" in checked.out


def test_lying_record_hashes_edited_and_seal_removed_prove_nothing(store) -> None:
    root, ids = store
    forged = _record(root, ids["B"])
    a = _record(root, ids["A"])
    forged["inputs"], forged["outputs"] = a["inputs"], a["outputs"]
    _put(root, forged)
    _refused(_compare(root, ids["A"], ids["B"]))
    _refused(_lineage(root, "diff", "--run-id1", ids["A"], "--run-id2", ids["B"]))
    _refused(_lineage(root, "verify", "--run-id", ids["B"]))  # the data now is A's rows: re-hashing agrees
    _refused(_lineage(root, "verify", "--signatures"))


@pytest.mark.parametrize("date", ["2030-01-01T00:00:00+00:00", "2001-01-01T00:00:00+00:00"])
def test_lying_record_written_by_hand_proves_nothing(store, date: str) -> None:
    root, ids = store
    forged = dict(_record(root, ids["A"]), run_id="f0f0f0f0-0000-4000-8000-000000000000", started_at=date,
                  ended_at=date)
    _put(root, forged, seal=True)
    _refused(_compare(root, ids["A"], forged["run_id"]))
    _refused(_lineage(root, "diff", "--run-id1", ids["A"], "--run-id2", forged["run_id"]))
    _refused(_lineage(root, "verify", "--run-id", forged["run_id"]))


def test_lying_record_deleted_from_the_middle_of_the_chain_breaks_it(store) -> None:
    root, ids = store
    for name in (f"{ids['B']}.json", f"_signed/{ids['B']}.dsse.json"):
        (_task_dir(root) / name).unlink()
    _refused(_compare(root, ids["A"], ids["C"]))
    _refused(_lineage(root, "diff", "--run-id1", ids["A"], "--run-id2", ids["C"]))
    chain = _lineage(root, "verify", "--chain")
    _refused(chain)
    assert "place 2" in chain.text, str(chain)


def test_lying_record_copied_from_another_task_proves_nothing(store) -> None:
    root, ids = store
    forged = dict(_record(root, ids["O"], "other"), task_name="copy", task_path="shop/orders/copy")
    _put(root, forged, seal=True)
    shutil.copy(_task_dir(root, "other") / "_signed" / f"{ids['O']}.dsse.json", _task_dir(root) / "_signed")
    _refused(_compare(root, ids["A"], ids["O"]))
    _refused(_lineage(root, "verify", "--run-id", ids["O"]))


def test_lying_record_resigned_with_another_key_proves_nothing(store, tmp_path: Path, monkeypatch) -> None:
    """The forger signs a true-looking statement of the forged record with a key of their own and
    publishes that key in the store: the policy does not name it."""
    from ubunye.lineage.attestation.envelopes import publish_key
    from ubunye.lineage.attestation.keys import load_key_file
    from ubunye.lineage.attestation.statement import encode, statement
    from ubunye.lineage.attestation import dsse
    from ubunye.lineage.record import RunRecord
    from ubunye.lineage.store import RecordStore

    root, ids = store
    forged = _record(root, ids["B"])
    a = _record(root, ids["A"])
    forged["inputs"], forged["outputs"] = a["inputs"], a["outputs"]
    _put(root, forged, seal=True)
    signer = load_key_file(_key_pem(tmp_path)[0])
    record = RunRecord.from_dict({k: v for k, v in forged.items() if k != "seal"})
    envelope = dsse.sign(encode(statement(record, {"seq": 2, "previous": None})), signer)
    (_task_dir(root) / "_signed" / f"{ids['B']}.dsse.json").write_bytes(envelope.to_json())
    publish_key(RecordStore(root / ".ubunye" / "lineage").blobs, signer)
    _refused(_compare(root, ids["A"], ids["B"]))
    _refused(_lineage(root, "diff", "--run-id1", ids["A"], "--run-id2", ids["B"]))
    _refused(_lineage(root, "verify", "--run-id", ids["B"]))


def test_lying_record_statement_of_another_record_proves_nothing(store) -> None:
    """A's genuine envelope beside a hand-made copy of A under another run id: its subjects and
    predicate name A, not the copy."""
    root, ids = store
    forged = dict(_record(root, ids["A"]), run_id="f1f1f1f1-0000-4000-8000-000000000000")
    _put(root, forged, seal=True)
    shutil.copy(_task_dir(root) / "_signed" / f"{ids['A']}.dsse.json",
                _task_dir(root) / "_signed" / f"{forged['run_id']}.dsse.json")
    _refused(_compare(root, ids["A"], forged["run_id"]))
    _refused(_lineage(root, "verify", "--run-id", forged["run_id"]))


def test_lying_record_without_a_policy_a_forgery_is_named_in_a_warning(store) -> None:
    root, ids = store
    (root / ".ubunye" / "lineage" / "ubunye-policy.json").unlink()
    forged = _record(root, ids["B"])
    a = _record(root, ids["A"])
    forged["inputs"], forged["outputs"] = a["inputs"], a["outputs"]
    _put(root, forged)
    result = _compare(root, ids["A"], ids["B"])
    assert "is not proven by its signature" in result.err, str(result)
    assert "Traceback" not in result.text


def _attested(root: Path, run_id: str, out: Path) -> tuple[dict, bytes, dict]:
    """``lineage attest`` of a run: the envelope, the signer's PEM public key and the record."""
    result = _lineage(root, "attest", "--run-id", run_id, "-o", str(out))
    assert result.code == 0, str(result)
    return (json.loads((out / f"{run_id}.dsse.json").read_text()), (out / f"{run_id}.pub.pem").read_bytes(),
            json.loads((out / f"{run_id}.record.json").read_text()))


def _check_with_cryptography(envelope: dict, pem: bytes, record: dict) -> bool:
    """The auditor's check of docs/attestation.md with `cryptography` alone (no ubunye)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    body = base64.b64decode(envelope["payload"])
    kind = envelope["payloadType"].encode()
    pae = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)
    try:
        load_pem_public_key(pem).verify(base64.b64decode(envelope["signatures"][0]["sig"]), pae)
    except InvalidSignature:
        return False
    statement = json.loads(body)
    content = {k: v for k, v in record.items() if k != "seal"}
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":"),
                                       ensure_ascii=False).encode()).hexdigest()
    return statement["subject"][0]["digest"] == {"sha256": digest}


def test_lying_record_an_attested_run_verifies_with_cryptography_alone_and_not_after_one_byte(store,
                                                                                         tmp_path: Path) -> None:
    root, ids = store
    envelope, pem, record = _attested(root, ids["C"], tmp_path / "out")
    assert _check_with_cryptography(envelope, pem, record)
    body = bytearray(base64.b64decode(envelope["payload"]))
    body[len(body) // 2] ^= 1
    assert not _check_with_cryptography(dict(envelope, payload=base64.b64encode(bytes(body)).decode()), pem, record)
    assert not _check_with_cryptography(envelope, pem, dict(record, status="error"))


def test_lying_record_an_attested_run_verifies_with_the_in_toto_reference_implementation(store, tmp_path: Path,
                                                                                        unavailable) -> None:
    try:
        import in_toto.models.metadata as in_toto
    except ImportError:  # the test extra has them (pyproject); CI always does
        unavailable("in-toto and securesystemslib are not installed (pip install -e '.[test]')")
    from cryptography.hazmat.primitives import serialization
    from securesystemslib.dsse import Envelope
    from securesystemslib.exceptions import VerificationError
    from securesystemslib.signer import SSlibKey

    root, ids = store
    envelope, pem, _ = _attested(root, ids["C"], tmp_path / "out")
    raw = serialization.load_pem_public_key(pem).public_bytes(serialization.Encoding.Raw,
                                                              serialization.PublicFormat.Raw)
    keyid = hashlib.sha256(raw).hexdigest()
    key = {"keyid": keyid, "keytype": "ed25519", "scheme": "ed25519", "keyval": {"public": raw.hex()}}
    Envelope.from_dict(copy.deepcopy(envelope)).verify([SSlibKey.from_dict(keyid, dict(key))], 1)  # (it edits
    in_toto.Envelope.from_dict(copy.deepcopy(envelope)).verify_signature(dict(key))  # what it reads)
    body = bytearray(base64.b64decode(envelope["payload"]))
    body[0] ^= 1
    changed = dict(copy.deepcopy(envelope), payload=base64.b64encode(bytes(body)).decode())
    with pytest.raises(VerificationError):
        Envelope.from_dict(changed).verify([SSlibKey.from_dict(keyid, dict(key))], 1)


def test_lying_record_the_report_proves_nothing_of_a_forged_record(store) -> None:
    from ubunye.lineage.report_model import build_report
    from ubunye.lineage.store import RecordStore

    root, ids = store
    lineage = RecordStore(root / ".ubunye" / "lineage")

    def verdicts() -> dict[str, dict]:
        runs = build_report(lineage, usecase="shop", package="orders", task="copy").tasks[0]["runs"]
        return {r["run_id"]: r["vs_before"] for r in runs}

    forged = _record(root, ids["B"])
    a = _record(root, ids["A"])
    forged["inputs"], forged["outputs"] = a["inputs"], a["outputs"]
    _put(root, forged)
    shown = verdicts()[ids["B"]]
    assert shown["counts"]["same"] == 0, shown
    assert "not proven by its signature" in shown["steps"][0]["reason"]


def test_lying_record_written_by_hand_into_an_object_store_proves_nothing(tmp_path: Path, monkeypatch) -> None:
    """The S3 case of the issue, on obstore's in-memory object store: a record without a seal put
    as a new object dated 2030 is listed first, and compare's verdict does not prove it."""
    pytest.importorskip("obstore")
    from ubunye.cli.lineage_options import trust_hook
    from ubunye.lineage.attestation import write_policy
    from ubunye.lineage.attestation.keys import Ed25519Verifier, load_key_file
    from ubunye.lineage.compare import compare_records
    from ubunye.lineage.record import RunRecord, Step
    from ubunye.lineage.store import RecordStore
    from ubunye.lineage.store.objects import ObjectBlobs

    key = _key_pem(tmp_path)[0]
    monkeypatch.setenv("UBUNYE_SIGNING_KEY", str(key))
    store = RecordStore(ObjectBlobs("memory:///"), index=True)
    write_policy(store, [Ed25519Verifier(load_key_file(key).public_raw())])
    step = Step("clean", "output", "parquet", "s3://b/out", 4, "sha256:" + "1" * 64, "sha256:" + "2" * 64,
                "rows-v1")
    genuine = RunRecord("aaaaaaaa-0000-4000-8000-000000000001", "shop/orders/copy", "shop", "orders", "copy",
                        started_at="2026-01-01T00:00:00+00:00", ended_at="2026-01-01T00:01:00+00:00",
                        status="success", outputs=[step])
    store.write(genuine)
    forged = {k: v for k, v in json.loads(genuine.to_json()).items() if k != "seal"}
    forged.update(run_id="ffffffff-0000-4000-8000-000000000002", started_at="2030-01-01T00:00:00+00:00")
    store.blobs.put_new(f"shop/orders/copy/{forged['run_id']}.json", json.dumps(forged).encode())
    newest, before = store.latest_runs("shop", "orders", "copy", 2)
    assert newest.run_id == forged["run_id"]
    assert compare_records(before, newest).data_proven_same  # the hashes alone say "the same"
    trust = trust_hook(store)
    assert trust(before) is None
    assert trust(newest).startswith(f"run {forged['run_id']} is not proven by its signature: it is unsigned")
    verdict = compare_records(before, newest, trust=trust)
    assert not verdict.data_proven_same and "is not proven by its signature" in " ".join(verdict.problems)


def test_lying_record_the_newest_records_deleted_with_their_chain_places_are_seen(store) -> None:
    """The store alone cannot show a chain cut at its end; the index remembers the length it saw."""
    root, ids = store
    assert _lineage(root, "verify", "--chain").code == 0  # seen holding, 3 places long
    for name in (f"{ids['C']}.json", f"_signed/{ids['C']}.dsse.json", "_signed/000000000003"):
        (_task_dir(root) / name).unlink()
    cut = _lineage(root, "verify", "--chain")
    _refused(cut)
    assert "place 3" in cut.text and ids["C"] in cut.text, str(cut)


@pytest.mark.parametrize("policy, named", [
    ('{"policy_version": 1, "require_signatures": true, "keys": [{"keyid": "00", "public_key": "%s"}]}',
     "keys[0].keyid"),
    ('{"policy_version": 1, "require_signatures": "yes", "keys": []}', "require_signatures"),
    ("[1, 2", "not a JSON document"),
])
def test_traceback_a_damaged_policy_is_one_line_naming_the_file_and_key(store, policy: str, named: str) -> None:
    root, ids = store
    path = root / ".ubunye" / "lineage" / "ubunye-policy.json"
    public = json.loads(path.read_text())["keys"][0]["public_key"]
    path.write_text(policy % public if "%s" in policy else policy)
    result = _compare(root, ids["A"], ids["C"])
    assert result.code == 2, str(result)
    assert str(path) in result.err and named in result.err and "Traceback" not in result.text, str(result)
    assert len(result.err.strip().splitlines()) == 1, str(result)


def test_lying_record_records_of_ubunye_engine_0_8_0_read_as_before_and_show_unsigned(tmp_path: Path) -> None:
    old = Path(__file__).resolve().parents[1] / "fixtures" / "records" / "ubunye-engine-0.8.0"
    shutil.copytree(old, tmp_path / "store")
    listed = cli("lineage", "list", "-d", str(tmp_path), "--lineage-dir", str(tmp_path / "store"), "-u", "shop",
                 "-p", "orders", "-t", "clean")
    assert listed.code == 0 and listed.err == "", str(listed)
    checked = cli("lineage", "verify", "--signatures", "-d", str(tmp_path), "--lineage-dir", str(tmp_path / "store"),
                  "-u", "shop", "-p", "orders", "-t", "clean")
    assert checked.code == 1, str(checked)
    runs = [line for line in checked.out.splitlines() if "shop/orders/clean" in line]
    assert runs and all(line.startswith("unsigned") for line in runs), str(checked)


def test_lying_record_a_forged_record_never_lends_its_hash_to_a_later_run(tmp_path: Path, monkeypatch) -> None:
    """The reuse of an input's recorded hash (.known) asks the same trust rule: under a policy, an
    entry pointing at an unsigned (hand-written) record is not taken, one at a signed one is."""
    from ubunye.lineage.attestation import write_policy
    from ubunye.lineage.attestation.keys import Ed25519Verifier, load_key_file
    from ubunye.lineage.known import KnownHashes
    from ubunye.lineage.record import RunRecord, Step
    from ubunye.lineage.store import RecordStore

    key = _key_pem(tmp_path)[0]
    store = RecordStore(tmp_path / "store")
    step = Step("people", "input", "csv", "/masked/people.csv", 2, "sha256:" + "5" * 64, "sha256:" + "d" * 64,
                "rows-v1", storage_signature="files:sha256:abc")
    known = KnownHashes(store)
    for run_id, signing in (("run-forged", "off"), ("run-signed", str(key))):
        monkeypatch.setenv("UBUNYE_SIGNING_KEY", signing)
        record = RunRecord(run_id, "shop/orders/clean", "shop", "orders", "clean", status="success",
                           started_at="2026-03-01T08:00:00+00:00", ended_at="2026-03-01T08:00:01+00:00",
                           inputs=[step])
        store.write(record)
        if run_id == "run-forged":
            write_policy(store, [Ed25519Verifier(load_key_file(key).public_raw())])
            known.publish(record, {"input:people": "/data/people.csv"})
            assert known.find("/data/people.csv", "files:sha256:abc", lambda: step.schema_hash) is None
    known.publish(record, {"input:people": "/data/people.csv"})
    found = known.find("/data/people.csv", "files:sha256:abc", lambda: step.schema_hash)
    assert found is not None and found.source == "shop/orders/clean/run-signed:input:people"


def test_secret_leak_a_signed_statement_holds_the_record_masked(tmp_path: Path) -> None:
    """The statement is built from the record as written (masked): a secret in a location or a
    variable is in neither the record nor its envelope's payload."""
    uc = Usecase(tmp_path / "uc")
    src = uc.parquet("in.parquet")
    uc.task("copy", CONFIG.format(src=src, out=uc.root / "data" / "out_token=Sig-Tok-5521"))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    result = uc.run("-t", "copy", "--lineage", "--var", "api_secret=Sig-Var-5522", env=env)
    assert result.code == 0, str(result)
    (envelope,) = (uc.lineage_dir / "shop" / "orders" / "copy" / "_signed").glob("*.dsse.json")
    payload = base64.b64decode(json.loads(envelope.read_text())["payload"]).decode()
    assert "out_token=***" in payload
    for secret in ("Sig-Tok-5521", "Sig-Var-5522"):
        assert secret not in payload and secret not in result.text


def test_hang_a_chain_place_planted_far_ahead_is_one_break_not_a_long_walk(store) -> None:
    root, _ = store
    (_task_dir(root) / "_signed" / "999999999999").write_text('{"run_id": "x", "sha256": "0"}')
    result = _lineage(root, "verify", "--chain")
    _refused(result)
    assert "places 4 to 999999999998" in result.text and "place 999999999999" in result.text, str(result)


def test_data_loss_a_signing_key_that_cannot_be_used_keeps_the_record_and_says_so(tmp_path: Path) -> None:
    uc = Usecase(tmp_path / "uc")
    src = uc.parquet("in.parquet")
    uc.task("copy", CONFIG.format(src=src, out=uc.root / "data" / "out"))
    bad = tmp_path / "not-a-key.pem"
    bad.write_text("hello")
    bad.chmod(0o600)
    result = uc.run("-t", "copy", "--lineage", env={"UBUNYE_SIGNING_KEY": str(bad)})
    assert result.code != 0 and "Traceback" not in result.text, str(result)
    assert f"was written unsigned: signing key {bad}: not an unencrypted PEM private key" in result.err, str(result)
    (record,) = [r for r in uc.records("copy") if r["status"] != "running"]
    assert record["status"] == "success"  # written, unsigned: nothing is lost
    assert not (uc.lineage_dir / "shop" / "orders" / "copy" / "_signed").exists()


def test_lying_record_show_of_a_forged_record_says_it_is_not_proven(store) -> None:
    root, ids = store
    forged = _record(root, ids["B"])
    forged["outputs"] = _record(root, ids["A"])["outputs"]
    _put(root, forged)
    shown = _lineage(root, "show", "--run-id", ids["B"])
    assert shown.code == 0 and json.loads(shown.out)["run_id"] == ids["B"], str(shown)  # shown as stored
    assert f"run {ids['B']} is not proven by its signature" in shown.err, str(shown)
    signed = _lineage(root, "show", "--run-id", ids["A"])
    assert signed.code == 0 and "not proven" not in signed.err, str(signed)


def test_lying_record_a_chain_link_must_name_the_digest_and_an_end_of_the_record_before(tmp_path: Path) -> None:
    """The chain's check on its own (no CLI): a link naming the right run id with another digest (a
    record replaced by a re-signed one of the same run id) breaks it, and so does a record with no
    end time (it cannot be shown not back-dated)."""
    from ubunye.lineage.attestation.chain import walk
    from ubunye.lineage.store.posix import PosixBlobs

    blobs = PosixBlobs(tmp_path)
    d1, d2 = ("sha256:" + hashlib.sha256(t).hexdigest() for t in (b"one", b"two"))
    first = ("r1", d1, "2026-03-01T08:00:00Z", {"seq": 1, "previous": None})

    def second(previous: dict[str, str], ended: object = "2026-03-01T09:00:00Z") -> tuple:
        return ("r2", d2, ended, {"seq": 2, "previous": previous})

    assert walk("t", blobs, "u/p/t", [first, second({"run_id": "r1", "sha256": d1})]).breaks == []  # the control
    replaced = walk("t", blobs, "u/p/t", [first, second({"run_id": "r1", "sha256": d2})]).breaks
    assert replaced == ["place 2 (run r2) names run r1 before it, but place 1 holds run r1 (or another digest)"]
    no_end = walk("t", blobs, "u/p/t", [first, second({"run_id": "r1", "sha256": d1}, None)]).breaks
    assert len(no_end) == 1 and "back-dated" in no_end[0], no_end


def test_lying_record_a_damaged_pinned_policy_is_said_once_when_a_run_reuses_nothing(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    """A ``UBUNYE_TRUST_POLICY`` file that cannot be used proves nothing, so no recorded hash is
    reused; the run said nothing of it (the reuse was silently off). Now one warning naming the
    file and the key, once however many inputs ask."""
    import warnings

    from ubunye.lineage.attestation import UnsignedRecordWarning
    from ubunye.lineage.known import KnownHashes
    from ubunye.lineage.record import RunRecord, Step
    from ubunye.lineage.store import RecordStore

    store = RecordStore(tmp_path / "store")
    step = Step("people", "input", "csv", "/masked/people.csv", 2, "sha256:" + "5" * 64, "sha256:" + "d" * 64,
                "rows-v1", storage_signature="files:sha256:abc")
    monkeypatch.setenv("UBUNYE_SIGNING_KEY", "off")
    record = RunRecord("run-1", "shop/orders/clean", "shop", "orders", "clean", status="success",
                       started_at="2026-03-01T08:00:00+00:00", ended_at="2026-03-01T08:00:01+00:00", inputs=[step])
    store.write(record)
    known = KnownHashes(store)
    known.publish(record, {"input:people": "/data/people.csv"})
    damaged = tmp_path / "pinned.json"
    damaged.write_text('{"policy_version": 1, "require_signatures": "yes", "keys": []}', encoding="utf-8")
    monkeypatch.setenv("UBUNYE_TRUST_POLICY", str(damaged))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            assert known.find("/data/people.csv", "files:sha256:abc", lambda: step.schema_hash) is None
    said = [str(w.message) for w in caught if issubclass(w.category, UnsignedRecordWarning)]
    assert len(said) == 1, said
    assert str(damaged) in said[0] and "require_signatures" in said[0] and "no recorded hash is reused" in said[0]


def test_lying_record_a_damaged_pinned_policy_is_one_line_of_ubunye_run(tmp_path: Path) -> None:
    """The same through the CLI: a second run whose input would be reused says, in one line,
    which policy file and key cannot be used, and still succeeds (its input hashed)."""
    uc = Usecase(tmp_path / "uc")
    src = uc.parquet("in.parquet")
    uc.task("copy", CONFIG.format(src=src, out=uc.root / "data" / "out"))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    assert uc.run("-t", "copy", "--lineage", env=env).code == 0
    damaged = tmp_path / "pinned.json"
    damaged.write_text('{"policy_version": 1, "require_signatures": true, "keys": "none"}', encoding="utf-8")
    result = uc.run("-t", "copy", "--lineage", env={**env, "UBUNYE_TRUST_POLICY": str(damaged)})
    assert result.code == 0, str(result)
    said = [line for line in result.err.splitlines() if "no recorded hash is reused" in line]
    assert len(said) == 1 and str(damaged) in said[0] and "keys" in said[0], str(result)
    assert "Traceback" not in result.text
