"""The official OpenLineage schemas, generated at test time from the official client's models.

No registry package ships the spec's JSON files (openlineage-python's wheel and
openlineage-java's jar carry none), so these schemas are generated from the models
``openlineage-python`` generates from the spec: each attrs class becomes a JSON Schema
(its fields, types, required fields and enums), each facet is checked against the model
whose ``_get_schema()`` equals the facet's ``_schemaURL`` (a URL no model states fails),
and ``ubunye_rows_v1`` against its own schema in the repository. Formats: ``runId`` a
UUID, ``eventTime`` an RFC 3339 date-time, ``producer``/``schemaURL`` URIs.
"""
from __future__ import annotations

import enum
import importlib
import json
import pkgutil
import types
import typing
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

import attr
import jsonschema
from openlineage.client import generated
from openlineage.client.generated import base

ROOT = Path(__file__).resolve().parents[1]
_FORMATS = {"runId": "uuid", "eventTime": "date-time", "producer": "uri", "schemaURL": "uri",
            "_producer": "uri", "_schemaURL": "uri"}
_BASES = {base.RunFacet, base.DatasetFacet, base.InputDatasetFacet, base.OutputDatasetFacet, base.JobFacet}
FORMAT_CHECKER = jsonschema.FormatChecker()


@FORMAT_CHECKER.checks("uri")
def _is_uri(value: object) -> bool:
    return not isinstance(value, str) or bool(urlsplit(value).scheme)


def _schema_of(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    if tp is Any:
        return {}
    if tp is type(None):
        return {"type": "null"}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_schema_of(a, defs) for a in typing.get_args(tp)]}
    if origin is list:
        return {"type": "array", "items": _schema_of(typing.get_args(tp)[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema_of(typing.get_args(tp)[1], defs)}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [m.value for m in tp]}
    if isinstance(tp, type) and attr.has(tp):
        name = f"{tp.__module__}.{tp.__qualname__}"
        if name not in defs:
            defs[name] = {}
            defs[name] = _class_schema(tp, defs)
        return {"$ref": f"#/$defs/{name}"}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    return {"type": simple[tp]}


def _class_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    names = {**vars(typing), **vars(importlib.import_module(cls.__module__))}
    hints = {f.name: eval(f.type, names) if isinstance(f.type, str) else f.type  # noqa: S307 (the client's own annotations)
             for f in attr.fields(cls)}
    props, required = {}, []
    for field in attr.fields(cls):
        name = field.name
        props[name] = _schema_of(hints[field.name], defs)
        if name in _FORMATS:
            props[name]["format"] = _FORMATS[name]
        if field.default is attr.NOTHING:
            required.append(name)
    if cls in _BASES or any(issubclass(cls, b) for b in _BASES):
        required += [n for n in ("_producer", "_schemaURL") if n not in required]
    if issubclass(cls, base.BaseEvent):  # the spec requires them; the models default them
        required += ["producer", "schemaURL"]
    return {"type": "object", "properties": props, "required": required}


def model_schema(cls: type) -> dict[str, Any]:
    """The JSON Schema of one of the client's generated classes."""
    defs: dict[str, Any] = {}
    root = _schema_of(cls, defs)
    return {**root, "$defs": defs}


def facet_models() -> dict[str, type]:
    """Every facet model of the client by its ``_schemaURL``."""
    out = {}
    for info in pkgutil.iter_modules(generated.__path__):
        module = importlib.import_module(f"{generated.__name__}.{info.name}")
        for obj in vars(module).values():
            if isinstance(obj, type) and attr.has(obj) and issubclass(obj, base.BaseFacet) and obj not in _BASES:
                out[obj._get_schema()] = obj
    return out


def rows_v1_schema() -> dict[str, Any]:
    doc = json.loads((ROOT / "docs/spec/openlineage/UbunyeRowsV1DatasetFacet.json").read_text())
    return {**doc["$defs"]["UbunyeRowsV1DatasetFacet"], "$defs": doc["$defs"]}


def _facets(event: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for key, facet in event["run"].get("facets", {}).items():
        yield "run", key, facet
    for key, facet in event["job"].get("facets", {}).items():
        yield "job", key, facet
    for side in ("inputs", "outputs"):
        for dataset in event.get(side, []):
            for group in ("facets", "inputFacets", "outputFacets"):
                for key, facet in dataset.get(group, {}).items():
                    yield f"{side}.{dataset['name']}.{group}", key, facet


def errors(event: dict[str, Any]) -> list[str]:
    """Every way ``event`` breaks the official schemas (its facets' included); [] when none."""
    from ubunye.lineage.openlineage import ROWS_V1_SCHEMA

    found = [f"event: {e.message}" for e in jsonschema.Draft202012Validator(
        model_schema(base.RunEvent), format_checker=FORMAT_CHECKER).iter_errors(event)]
    models = facet_models()
    for where, key, facet in _facets(event):
        url = facet.get("_schemaURL")
        if url == ROWS_V1_SCHEMA:
            schema = rows_v1_schema()
        elif url in models:
            schema = model_schema(models[url])
        else:
            found.append(f"{where}.{key}: no official model has _schemaURL {url!r}")
            continue
        validator = jsonschema.Draft202012Validator(schema, format_checker=FORMAT_CHECKER)
        found += [f"{where}.{key}: {e.message}" for e in validator.iter_errors(facet)]
    return found
