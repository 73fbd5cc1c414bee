"""DSSE (Dead Simple Signing Envelope, v1.0): the pre-authentication encoding and the envelope.

``PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`` (LEN: the byte length
in ASCII decimal, no leading zeros). The envelope is the JSON object ``{"payload": base64(body),
"payloadType": type, "signatures": [{"keyid": ..., "sig": base64(signature)}]}`` (standard
base64 with padding; readers accept URL-safe too, as DSSE asks).
"""
from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, Iterable

from ubunye.lineage.attestation.keys import Signer, Verifier

PAYLOAD_TYPE = "application/vnd.in-toto+json"
MAX_ENVELOPE = 4 * 1024 * 1024


class EnvelopeError(ValueError):
    """An envelope that is not one (one line saying what is wrong)."""


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE's pre-authentication encoding: what is signed."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


@dataclass(frozen=True)
class Envelope:
    payload_type: str
    payload: bytes
    signatures: tuple[tuple[str, bytes], ...]  # (keyid, signature)

    def to_dict(self) -> dict[str, Any]:
        return {"payload": base64.b64encode(self.payload).decode("ascii"), "payloadType": self.payload_type,
                "signatures": [{"keyid": k, "sig": base64.b64encode(s).decode("ascii")} for k, s in self.signatures]}

    def to_json(self) -> bytes:
        return (json.dumps(self.to_dict(), indent=2) + "\n").encode("utf-8")

    def verified_by(self, verifiers: Iterable[Verifier]) -> list[str]:
        """The key ids of ``verifiers`` with a valid signature on this envelope."""
        signed = pae(self.payload_type, self.payload)
        found = []
        for verifier in verifiers:
            for keyid, signature in self.signatures:
                if keyid == verifier.keyid and verifier.verify(signature, signed):
                    found.append(verifier.keyid)
                    break
        return found


def sign(payload: bytes, signer: Signer, payload_type: str = PAYLOAD_TYPE) -> Envelope:
    return Envelope(payload_type, payload, ((signer.keyid, signer.sign(pae(payload_type, payload))),))


def _b64(text: Any, what: str) -> bytes:
    if not isinstance(text, str):
        raise EnvelopeError(f"{what} must be a base64 string")
    try:
        if "-" in text or "_" in text:
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise EnvelopeError(f"{what} is not base64") from None


def parse(data: bytes) -> Envelope:
    """An envelope from its JSON bytes; :class:`EnvelopeError` when it is not one."""
    if len(data) > MAX_ENVELOPE:
        raise EnvelopeError(f"the envelope is larger than {MAX_ENVELOPE} bytes")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise EnvelopeError("the envelope is not JSON") from None
    if not isinstance(doc, dict):
        raise EnvelopeError("the envelope is not a JSON object")
    kind = doc.get("payloadType")
    if not isinstance(kind, str):
        raise EnvelopeError("the envelope has no payloadType")
    sigs = doc.get("signatures")
    if not isinstance(sigs, list) or not sigs:
        raise EnvelopeError("the envelope has no signatures")
    out = []
    for i, entry in enumerate(sigs[:16]):
        if not isinstance(entry, dict):
            raise EnvelopeError(f"signatures[{i}] is not an object")
        keyid = entry.get("keyid", "")
        out.append((keyid if isinstance(keyid, str) else "", _b64(entry.get("sig"), f"signatures[{i}].sig")))
    return Envelope(kind, _b64(doc.get("payload"), "payload"), tuple(out))
