"""Signing keys: the :class:`Signer` / :class:`Verifier` interface and ed25519 key files.

A signer has a ``keyid`` and signs bytes; a verifier has a ``keyid`` and checks a signature.
The key id is the lowercase hex sha256 of the raw 32-byte ed25519 public key
(``docs/spec/record-attestation.md``). Another kind of signer (a KMS key, Sigstore keyless)
implements the same two members and is returned by :func:`default_signer`'s caller instead.

Which key signs (:func:`default_signer`):

1. ``UBUNYE_SIGNING_KEY``: the path of a PEM (PKCS#8) ed25519 private key file;
2. else the per-user key ``$XDG_CONFIG_HOME/ubunye/signing/ed25519.pem`` (default
   ``~/.config/ubunye/...``), created on first use (mode 0600, atomically: two processes
   creating it at once keep one), its public key logged once when it is created.

The key never lives in a store. Problems are :class:`KeyError_` naming the file.
"""
from __future__ import annotations

import base64
import hashlib
import logging
import os
import stat
import tempfile
from pathlib import Path
from typing import Optional, Protocol

log = logging.getLogger("ubunye.lineage")

KEY_ENV = "UBUNYE_SIGNING_KEY"
KEY_TYPE = "ed25519"


class SigningKeyError(ValueError):
    """A key file that cannot be used (one line naming the file and why)."""


class Signer(Protocol):
    keyid: str

    def sign(self, data: bytes) -> bytes:
        """The signature of ``data``."""

    def public_raw(self) -> bytes:
        """The raw public key (32 bytes for ed25519)."""


class Verifier(Protocol):
    keyid: str

    def verify(self, signature: bytes, data: bytes) -> bool:
        """True when ``signature`` is this key's over ``data``."""


def keyid_of(public_raw: bytes) -> str:
    """A key's id: hex sha256 of its raw public key bytes."""
    return hashlib.sha256(public_raw).hexdigest()


class Ed25519Signer:
    """An ed25519 private key (``cryptography``)."""

    def __init__(self, private: object) -> None:
        from cryptography.hazmat.primitives import serialization

        self._private = private
        self._public = private.public_key().public_bytes(  # type: ignore[attr-defined]
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.keyid = keyid_of(self._public)

    def sign(self, data: bytes) -> bytes:
        return self._private.sign(data)  # type: ignore[attr-defined,no-any-return]

    def public_raw(self) -> bytes:
        return self._public

    @classmethod
    def generate(cls) -> "Ed25519Signer":
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.generate())

    def private_pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self._private.private_bytes(  # type: ignore[attr-defined,no-any-return]
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


class Ed25519Verifier:
    """An ed25519 public key, from its raw 32 bytes."""

    def __init__(self, public_raw: bytes) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        if len(public_raw) != 32:
            raise SigningKeyError(f"an ed25519 public key has 32 bytes, not {len(public_raw)}")
        self._key = Ed25519PublicKey.from_public_bytes(public_raw)
        self.public = public_raw
        self.keyid = keyid_of(public_raw)

    def verify(self, signature: bytes, data: bytes) -> bool:
        from cryptography.exceptions import InvalidSignature

        try:
            self._key.verify(signature, data)
        except InvalidSignature:
            return False
        return True


def public_text(public_raw: bytes) -> str:
    """How a public key is written in policies and key files: base64 of the raw bytes."""
    return base64.b64encode(public_raw).decode("ascii")


def verifier_from_text(text: str) -> Ed25519Verifier:
    """A verifier from :func:`public_text`'s form (or a PEM public key)."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        from cryptography.hazmat.primitives import serialization

        try:
            key = serialization.load_pem_public_key(text.encode("ascii"))
            raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        except (ValueError, TypeError) as exc:
            raise SigningKeyError(f"not an ed25519 public key: {exc}") from None
        return Ed25519Verifier(raw)
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise SigningKeyError("a public key must be base64 of its 32 raw bytes, or PEM") from None
    return Ed25519Verifier(raw)


def public_key_files(paths: "list[Path] | tuple[Path, ...]") -> list[Ed25519Verifier]:
    """The public keys in these files (PEM or base64); :class:`SigningKeyError` naming a bad one."""
    from ubunye.userfiles import UserFileError, read_text

    keys = []
    for path in paths:
        try:
            keys.append(verifier_from_text(read_text(path)))
        except UserFileError as exc:
            raise SigningKeyError(f"public key {path}: {exc.reason}") from None
        except ValueError as exc:
            raise SigningKeyError(f"public key {path}: {exc}") from None
    return keys


def public_pem(public_raw: bytes) -> bytes:
    """The PEM (SubjectPublicKeyInfo) form of a raw ed25519 public key: what other tools read."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    return Ed25519PublicKey.from_public_bytes(public_raw).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def load_key_file(path: Path) -> Ed25519Signer:
    """The ed25519 private key in a PEM file; :class:`SigningKeyError` naming the file otherwise."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        data = _private_bytes(path)
        key = serialization.load_pem_private_key(data, password=None)
    except SigningKeyError:
        raise
    except OSError as exc:
        raise SigningKeyError(f"signing key {path}: {exc.strerror or exc}") from None
    except (ValueError, TypeError):
        raise SigningKeyError(f"signing key {path}: not an unencrypted PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"signing key {path}: not an ed25519 key ({type(key).__name__})")
    return Ed25519Signer(key)


def _private_bytes(path: Path) -> bytes:
    """The bytes of a private key file: a regular file (a FIFO is never waited on) that no one but
    its owner may read or write (as ssh asks of its keys: a key others can read signs for them)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SigningKeyError(f"signing key {path}: not a regular file")
        from ubunye.lineage.store.layout import stores_around

        if stores_around(path):
            raise SigningKeyError(f"signing key {path}: is inside a record store, which every reader of "
                                  "the store can read; keep the key outside it")
        if os.name == "posix" and info.st_mode & 0o077:
            raise SigningKeyError(f"signing key {path}: others may read or change it (mode "
                                  f"{stat.S_IMODE(info.st_mode):04o}); a signing key is its owner's alone: "
                                  f"chmod 600 {path}")
        return os.read(fd, 65536)
    finally:
        os.close(fd)


def user_key_path() -> Path:
    """Where the per-user key lives (outside every store)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ubunye" / "signing" / "ed25519.pem"


def key_places() -> list[Path]:
    """Where this process's signing keys live (``UBUNYE_SIGNING_KEY``'s file, the per-user key's
    folder): places no run's output may overlap (an overwrite would delete the key, a write into
    its folder would carry the private key away with the data)."""
    named = os.environ.get(KEY_ENV)
    places = [user_key_path().parent]
    if named and named.lower() != "off":
        places.append(Path(named))
    return places


_CACHE: dict[str, Ed25519Signer] = {}


def default_signer() -> Ed25519Signer:
    """The signer of this process: ``UBUNYE_SIGNING_KEY``'s file, else the per-user key
    (created on first use). Loaded once per path per process."""
    named = os.environ.get(KEY_ENV)
    path = Path(named) if named else user_key_path()
    cached = _CACHE.get(str(path))
    if cached is not None:
        return cached
    if not named and not path.exists():
        _create(path)
    signer = _CACHE[str(path)] = load_key_file(path)
    return signer


def _create(path: Path) -> None:
    """A new per-user key at ``path``: written whole to a temporary file, then linked into place
    (a key another process made first is kept)."""
    signer = Ed25519Signer.generate()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".ed25519-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(signer.private_pem())
                out.flush()
                os.fsync(out.fileno())
            os.link(tmp, path)
        finally:
            os.unlink(tmp)
    except FileExistsError:
        return
    except OSError as exc:
        raise SigningKeyError(f"signing key {path}: cannot create it: {exc.strerror or exc}") from None
    log.warning("created the signing key %s; its public key (key id %s) is %s", path, signer.keyid,
                public_text(signer.public_raw()))


def optional_signer() -> Optional[Ed25519Signer]:
    """:func:`default_signer`, or None when signing is switched off (``UBUNYE_SIGNING_KEY=off``)."""
    return None if os.environ.get(KEY_ENV, "").lower() == "off" else default_signer()
