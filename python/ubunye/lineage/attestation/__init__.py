"""Records that cannot be forged: each final run record is also a signed in-toto Statement v1
in a DSSE envelope, chained to the task's previous record (``docs/spec/record-attestation.md``).

- :mod:`.keys`: the signer / verifier interface, ed25519 key files, the per-user default key;
- :mod:`.dsse`: PAE and the envelope; :mod:`.statement`: a record as a statement;
- :mod:`.chain`: each task's chain of places; :mod:`.envelopes`: where they live, sign and check;
- :mod:`.policy`: the store's policy and :func:`trust_reason`, the one trust rule;
- :mod:`.audit`: every record of a task or store checked (``lineage verify --signatures``).
"""
from __future__ import annotations

from ubunye.lineage.attestation.policy import (
    POLICY_ENV,
    POLICY_FILE,
    Policy,
    PolicyError,
    UnsignedRecordWarning,
    load_policy,
    trust_reason,
    write_policy,
)

__all__ = ["POLICY_ENV", "POLICY_FILE", "Policy", "PolicyError", "UnsignedRecordWarning", "load_policy",
           "trust_reason", "write_policy"]
