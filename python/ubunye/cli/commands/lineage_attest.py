"""``ubunye lineage attest``: export one run's signed envelope, its record and the signer's public
key, so that anyone can check it without this package (docs/attestation.md); and the
``verify --signatures/--chain`` check of every record of a task or store."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from ubunye.cli.lineage_options import lineage_errors, make_store, resolve_task, store_options, task_options
from ubunye.cli.render import echo, emit_json, fail


@click.command("attest")
@store_options
@task_options
@click.option("--run-id", default=None, help="Run id or unique prefix (default: the latest run).")
@click.option("-o", "--output", "output", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="The folder to write <run_id>.dsse.json, <run_id>.record.json and <run_id>.pub.pem into "
                   "(never over an existing file).")
@lineage_errors
def attest_command(usecase_dir: Path, lineage_dir: Optional[str], as_json: bool, usecase: Optional[str],
                   package: Optional[str], task: Optional[str], run_id: Optional[str], output: Path) -> None:
    """Export a run's DSSE envelope and public key; exit 0 when the envelope verifies with a key of the
    store's policy (a key the store only publishes proves nothing: exit 1, the files still written)."""
    from ubunye.lineage.attestation.envelopes import checked_statement, published_verifiers, read_envelope
    from ubunye.lineage.attestation.keys import public_pem
    from ubunye.lineage.attestation.policy import load_policy
    from ubunye.lineage.store import stores_around
    from ubunye.userwrites import check_writable, write_file

    store = make_store(usecase_dir, lineage_dir)
    ref = resolve_task(store, usecase, package, task)
    record = ref.find(run_id) if run_id is not None else ref.newest()
    envelope, why = read_envelope(store.blobs, record)
    if envelope is None:
        fail(f"run {record.run_id} of {ref.path} cannot be attested: {why}")
    policy = load_policy(store)
    trusted = bool(policy and policy.verifiers)  # the store's own _keys prove nothing (verify --signatures)
    keys = list(policy.verifiers) if trusted else published_verifiers(store.blobs, envelope)
    ids = {k for k, _ in envelope.signatures}
    key = next((k for k in keys if k.keyid in ids), None)
    if key is None:
        fail(f"run {record.run_id} of {ref.path}: no public key of its signer (key id "
             f"{', '.join(sorted(ids))[:64]}) in the store's policy or its _keys folder")
    files = {"envelope": output / f"{record.run_id}.dsse.json", "record": output / f"{record.run_id}.record.json",
             "public_key": output / f"{record.run_id}.pub.pem"}
    data = {"envelope": envelope.to_json(), "record": record.to_json().encode("utf-8"),
            "public_key": public_pem(key.public)}
    # through the one helper of files the CLI writes: never into a store (not even the one read), never
    # through a link, never over another file; all three checked before the first is written
    rules = {"protected": [*([store.root] if isinstance(store.root, Path) else []), *stores_around(output)],
             "what": "ubunye lineage attest"}
    for name, path in files.items():
        check_writable(path, data=data[name], **rules)
    for name, path in files.items():
        write_file(path, data[name], **rules)
    doc, problem = checked_statement(store.blobs, record, [key])
    if doc is not None and not trusted:
        doc, problem = None, (f"it verifies only with the key the store publishes (_keys), which anyone who can "
                              f"write the store can put there: compare key id {key.keyid} with the one you trust, "
                              "or write a policy (ubunye lineage policy) or pin one (UBUNYE_TRUST_POLICY)")
    summary = {"run_id": record.run_id, "keyid": key.keyid, "verifies": doc is not None, "problem": problem,
               **{name: str(path) for name, path in files.items()}}
    if as_json:
        emit_json("attest", summary)
    else:
        for name, path in files.items():
            echo(f"wrote {path}")
        echo(f"key id {key.keyid}: " + ("the envelope verifies" if doc is not None else f"NOT PROVEN: {problem}"))
    raise SystemExit(0 if doc is not None else 1)
