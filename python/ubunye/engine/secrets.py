"""``secret://<provider>/<reference>`` values in an input's or output's config (ubunye-engine 0.8.0).

A config names a secret instead of holding it::

    password: "secret://env/WAREHOUSE_PASSWORD"
    token:    "secret://file//run/secrets/api_token"

The whole value must be the reference (a secret is not spliced into a longer text).
Two of 0.8.0's providers map onto what every machine has: ``env`` (an environment
variable) and ``file`` (a file's contents without its final newline). They are
resolved when the config is read, in the copy the run reads and writes with
(``CONFIG.inputs`` and ``CONFIG.outputs``, as 0.8.0 resolved its connectors' copy);
the config a record keeps still holds the reference. Each value is taught to the run's
masker (:func:`ubunye.masking.current`), so records, error texts and every line
printed show ``***`` instead; so are the passwords the sections' locations carry. Any other provider (``databricks``,
``aws-sm``, ``gcp-sm``, ``azure-kv``, a plugin's) is refused in one line naming the key
and the provider, before anything runs.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

from ubunye.engine.errors import ConfigError
from ubunye.masking import current
from ubunye.userfiles import UserFileError, read_text

SCHEME = "secret://"
PROVIDERS = ("env", "file")
_SECTIONS = ("inputs", "outputs")


def resolve_secrets(doc: Any, file: Path) -> Any:
    """``doc`` with every ``secret://`` value under ``CONFIG.inputs``/``CONFIG.outputs``
    replaced by the secret; ``doc`` itself is untouched (returned as is when it has none)."""
    config = doc.get("CONFIG") if isinstance(doc, dict) else None
    if not isinstance(config, dict):
        return doc
    if any(True for s in _SECTIONS for _ in _references(config.get(s))):
        config = {**config, **{s: _walk(config[s], f"CONFIG.{s}", file) for s in _SECTIONS if s in config}}
        doc = {**doc, "CONFIG": config}
    for section in _SECTIONS:  # URL and JDBC passwords, secret-named keys: masked wherever they appear
        if isinstance(config.get(section), dict):
            current().add_variables(config[section])
    engine = doc.get("ENGINE")
    if isinstance(engine, dict):  # spark_conf (spark.hadoop.fs.s3a.secret.key ...), its profiles' too
        current().add_variables(engine)
    return doc


def secret_files(doc: Any) -> list[str]:
    """The paths the ``secret://file/PATH`` references under ``CONFIG.inputs``/``CONFIG.outputs``
    read (as written: relative ones against the working directory), for the output check
    (:func:`ubunye.engine.outputs.check_locations`: no output may overlap them)."""
    config = doc.get("CONFIG") if isinstance(doc, dict) else None
    if not isinstance(config, dict):
        return []
    prefix = f"{SCHEME}file/"
    return [ref[len(prefix):] for s in _SECTIONS for ref in _references(config.get(s))
            if ref.startswith(prefix) and ref[len(prefix):]]


def _references(node: Any) -> Iterator[str]:
    """Every ``secret://`` value below ``node``."""
    if isinstance(node, dict):
        for v in node.values():
            yield from _references(v)
    elif isinstance(node, list):
        for v in node:
            yield from _references(v)
    elif isinstance(node, str) and node.startswith(SCHEME):
        yield node


def _walk(node: Any, key: str, file: Path) -> Any:
    if isinstance(node, dict):
        return {k: _walk(v, f"{key}.{k}", file) for k, v in node.items()}
    if isinstance(node, list):
        return [_walk(v, f"{key}[{i}]", file) for i, v in enumerate(node)]
    if isinstance(node, str) and node.startswith(SCHEME):
        return _fetch(node, key, file)
    return node


def _fetch(reference: str, key: str, file: Path) -> str:
    provider, _, ref = reference[len(SCHEME):].partition("/")
    if not provider or not ref:
        raise ConfigError(file, key, f"{reference!r} is not a secret reference; expected "
                                     "secret://<provider>/<reference>, e.g. secret://env/API_TOKEN")
    if provider == "env":
        if ref not in os.environ:
            raise ConfigError(file, key, f"secret://env/{ref}: environment variable {ref} is not set")
        value = os.environ[ref]
    elif provider == "file":
        path = Path(ref)
        if not path.exists():
            raise ConfigError(file, key, f"secret://file/{ref}: no secret file at {ref}")
        try:
            value = read_text(path).rstrip("\r\n")  # a regular UTF-8 file of at most 10 MB
        except UserFileError as exc:
            raise ConfigError(file, key, f"secret://file/{ref}: {exc.reason}") from None
    else:
        raise ConfigError(file, key, f"secret provider {provider!r} (ubunye-engine 0.8.0) is not supported here; "
                                     f"use secret://env/NAME or secret://file/PATH (e.g. export the secret "
                                     f"into an environment variable before the run)")
    current().add(value)
    return value
