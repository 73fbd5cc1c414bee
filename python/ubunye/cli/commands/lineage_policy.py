"""``ubunye lineage policy``: write a store's signature policy, once (create-only)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from ubunye.cli.lineage_options import lineage_errors, make_store, store_options
from ubunye.cli.render import echo, emit_json


@click.command("policy")
@store_options
@click.option("--key", "key_files", multiple=True, type=click.Path(path_type=Path),
              help="A public key file (PEM or base64 of the raw key) whose signatures the store requires "
                   "(default: this user's signing key, UBUNYE_SIGNING_KEY or the per-user key).")
@lineage_errors
def policy_command(usecase_dir: Path, lineage_dir: Optional[str], as_json: bool, key_files: tuple[Path, ...]) -> None:
    """Require signatures by these keys in this store (written once: a policy is never replaced)."""
    from ubunye.lineage.attestation import write_policy
    from ubunye.lineage.attestation.keys import Ed25519Verifier, default_signer, public_key_files

    keys = public_key_files(key_files)  # a bad file: one line naming it (exit 2)
    if not keys:
        keys.append(Ed25519Verifier(default_signer().public_raw()))
    policy = write_policy(make_store(usecase_dir, lineage_dir), keys)
    if as_json:
        emit_json("policy", {"where": policy.where, **policy.to_dict()})
    else:
        echo(f"wrote {policy.where}: signatures required by key id(s) {', '.join(k.keyid for k in keys)}")
