"""Task configuration: load ``config.yaml``, render it with Jinja2, validate it.

A config has four top-level keys::

    MODEL: etl                    # optional, default "etl"
    VERSION: "0.1.0"              # optional
    ENGINE:                       # optional Spark settings
      time_zone: UTC              # session time zone (default UTC)
      spark_conf: {spark.sql.shuffle.partitions: "4"}
      profiles: {PROD: {spark_conf: {...}}}   # merged in for that mode
      timeout: 3600               # optional: seconds a run may take, else it ends as error
    CONFIG:
      inputs:  {name: {format, path | table, options, schema, version}}
                                  # schema: a Spark DDL string ("a INT, b STRING"), as .schema(...)
      outputs: {name: {format, path | table, mode, options, partition_by}}
                                  # format table: options.using picks the provider (delta ...)
      transform: {params: {...}}  # handed to the Task as ``self.params``
      expectations: {name: [{kind, column, severity, ...}] | {rules, quarantine, reconcile}}  # list or 0.8.0 form
      monitors: [{type: lineage, params: {hash_inputs: true}}]   # older configs

Every string is rendered with Jinja2 in a sandbox (``StrictUndefined``: an unknown name is
an error; see :mod:`ubunye.engine.templates`) after the YAML is parsed, so a value can never
change the structure. The file is read through :mod:`ubunye.userfiles` (a regular UTF-8
file of at most 10 MB; safe YAML with nesting and aliases limited).
Every problem is a :class:`ConfigError` naming the file, the key and what was
expected.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Optional

from ubunye.engine.errors import ConfigDeprecationWarning, ConfigError
from ubunye.engine.expectation_sets import parse_expectations
from ubunye.engine.expectations import Rule
from ubunye.engine.templates import EnvVars, render
from ubunye.masking import current
from ubunye.userfiles import UserFileError, load_yaml

FORMATS = ("parquet", "csv", "json", "delta", "table")
MODES = ("overwrite", "append", "ignore", "errorifexists")
_MODE_ALIASES = {"error": "errorifexists", "default": "errorifexists"}
_TOP_KEYS = ("MODEL", "VERSION", "ENGINE", "CONFIG", "ORCHESTRATION")
# ubunye-engine 0.8.0's scheduler export settings: checked, not used by a run (as there).
_ORCHESTRATION_KEYS = ("type", "schedule", "retries", "owner", "tags", "databricks")
_ORCHESTRATORS = ("airflow", "databricks", "prefect", "dagster")
_CONFIG_KEYS = ("inputs", "outputs", "transform", "expectations", "monitors")
_ENGINE_KEYS = ("time_zone", "spark_conf", "profiles", "backend", "catalog", "schema_name", "timeout")
_PROFILE_KEYS = ("spark_conf", "time_zone", "catalog", "schema_name", "timeout")
_INPUT_KEYS = ("format", "path", "table", "options", "schema", "version")
_OUTPUT_KEYS = ("format", "path", "table", "mode", "options", "partition_by")
# The engine's reader defaults, on both backends (lower-case names, Spark's string values).
READ_DEFAULTS: Mapping[str, Mapping[str, str]] = {"csv": {"header": "true", "inferschema": "true"}}
_LINEAGE_PARAMS = ("hash_inputs", "sample_fraction", "store", "base_dir", "reuse_hashes")
_TRANSFORM_KEYS, _MONITOR_KEYS, _OPENLINEAGE_PARAMS = ("params", "type"), ("type", "params"), ("namespace",)


@dataclass(frozen=True)
class IOSpec:
    """One input or output: where it is and how to read or write it."""

    name: str
    direction: str  # "input" | "output"
    format: str
    path: Optional[str] = None
    table: Optional[str] = None
    mode: str = "overwrite"
    options: Mapping[str, Any] = field(default_factory=dict)
    partition_by: tuple[str, ...] = ()
    version: Optional[int] = None  # Delta: read this version (time travel)
    schema: Optional[str] = None  # inputs: an explicit schema, a Spark DDL string (``.schema(ddl)``)
    # jdbc: url, dbtable or query, user, password, driver (never recorded: see ubunye.engine.connectors)
    connection: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    label: Optional[str] = None  # the recorded location when it is not a path or table (jdbc)
    # table outputs (0.8.0's unity writer): set on the table after the write
    table_comment: Optional[str] = None
    table_properties: Mapping[str, str] = field(default_factory=dict)

    @property
    def location(self) -> str:
        """The path or table name, as recorded on the step."""
        if self.label is not None:
            return self.label
        return self.path if self.path is not None else str(self.table)

    def reader_options(self) -> dict[str, str]:
        """The options an input is read with, on every backend and in its record: the
        config's options (names lower-cased, as Spark looks them up; values as Spark keeps
        them, ``True`` -> ``"true"``) with the engine's defaults (csv: ``header`` and
        ``inferSchema`` true) where the config does not set them."""
        out = {str(k).lower(): _spark_value(v) for k, v in self.options.items()}
        for key, value in READ_DEFAULTS.get(self.format, {}).items():
            out.setdefault(key, value)
        return out

    @property
    def written_whole(self) -> bool:
        """An output whose write leaves at its location exactly what it wrote (mode ``overwrite``
        or ``errorifexists``, no ``partition_by``): the location alone can be read back as
        this write's data (a second pass, a storage signature). The one statement of that rule."""
        return self.mode in ("overwrite", "errorifexists") and not self.partition_by

    def writer_options(self) -> dict[str, str]:
        """The options an output is written with, as Spark keeps them (``True`` -> ``"true"``)."""
        return {str(k): _spark_value(v) for k, v in self.options.items()}

    def read_back_options(self) -> dict[str, str]:
        """The reader options that read a csv or json output's files as this write stored them, on
        every backend and in its record: the writer's options (names lower-cased, Spark's string
        values; the reader takes the ones it shares, such as ``sep``, ``nullValue``,
        ``timestampFormat``, and ignores the others), csv's ``header`` as the writer defaults it,
        and ``mode=FAILFAST`` (text the written schema cannot take fails the hash instead of
        reading as null)."""
        out = {str(k).lower(): _spark_value(v) for k, v in self.options.items()}
        if self.format == "csv":
            out.setdefault("header", "true")
        out["mode"] = "FAILFAST"
        return out


def _spark_value(value: Any) -> str:
    """The string Spark keeps for an option value (pyspark's ``to_str``: ``True`` -> ``"true"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class LineageSettings:
    """Recording settings from ``CONFIG.monitors`` (``type: lineage``)."""

    hash_inputs: bool = True
    store: str = "filesystem"
    base_dir: Optional[str] = None
    # Take an input's hash from an earlier record of exactly the same files
    # (ubunye.engine.snapshots) instead of scanning it again.
    reuse_hashes: bool = True
    # ``type: openlineage``: send each run's START and end event live, in this job namespace.
    openlineage: Optional[str] = None


@dataclass(frozen=True)
class EngineSettings:
    """The ``ENGINE`` section, with the run mode's profile merged in."""

    time_zone: Optional[str] = None
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    backend: Optional[str] = None
    catalog: Optional[str] = None  # qualifies unqualified table names (0.8.0's USE CATALOG)
    schema_name: Optional[str] = None  # ... and USE SCHEMA
    timeout: Optional[float] = None  # seconds a run of the task may take (lineage/ending.py time_limit)


@dataclass(frozen=True)
class TaskConfig:
    """A validated, rendered task configuration."""

    file: Path
    model: str
    version: Optional[str]
    engine: EngineSettings
    inputs: Mapping[str, IOSpec]
    outputs: Mapping[str, IOSpec]
    params: Mapping[str, Any]
    expectations: Mapping[str, tuple[Rule, ...]]
    lineage: Optional[LineageSettings]
    raw: Mapping[str, Any]  # the rendered document, for the config hash

    def rules_for(self, name: str) -> tuple[Rule, ...]:
        return tuple(self.expectations.get(name, ()))


def template_variables(
    *,
    task_dir: Path,
    mode: str = "DEV",
    dt: Optional[str] = None,
    dtf: Optional[str] = None,
    variables: Optional[Mapping[str, Any]] = None,
) -> dict[str, Any]:
    """The Jinja2 variables of a run: ``dt``, ``dtf`` (when given), ``mode``,
    every ``--var``, ``task_dir`` and ``env`` (the process environment)."""
    out: dict[str, Any] = dict(variables or {})
    out["mode"] = mode
    if dt is not None:
        out["dt"] = dt
    if dtf is not None:
        out["dtf"] = dtf
    out["task_dir"] = str(task_dir)
    out["env"] = EnvVars(os.environ)
    return out


def load_config(
    task_dir: Path,
    *,
    mode: str = "DEV",
    dt: Optional[str] = None,
    dtf: Optional[str] = None,
    variables: Optional[Mapping[str, Any]] = None,
    lineage_dir: Optional[str] = None,
) -> TaskConfig:
    """Read, render and validate ``<task_dir>/config.yaml``; relative paths become absolute
    against the usecase folder, and every location is checked
    (:func:`ubunye.engine.outputs.check_locations`, with the record store ``lineage_dir``
    or the config's ``base_dir``)."""
    task_dir = Path(task_dir)
    file = task_dir / "config.yaml"
    if not file.exists():
        raise ConfigError(file, None, "no such file (a task folder needs config.yaml)")
    try:
        doc = load_yaml(file)  # a regular UTF-8 file, size, nesting and aliases limited
    except UserFileError as exc:
        raise ConfigError(file, None, exc.reason) from None
    current().add_variables(variables or {})  # secret-named --var values: masked in every text from here
    env = template_variables(task_dir=task_dir, mode=mode, dt=dt, dtf=dtf, variables=variables)
    rendered = render(doc, env, file)
    from ubunye.engine.secrets import resolve_secrets, secret_files  # secret://env/NAME, secret://file/PATH (0.8.0)

    config = replace(validate(resolve_secrets(rendered, file), file, mode=mode), raw=rendered)  # raw keeps references
    from ubunye.engine import outputs

    usecase_dir = outputs.usecase_dir_of(task_dir)
    config = replace(config, inputs=outputs.resolve_paths(config.inputs, usecase_dir),
                     outputs=outputs.resolve_paths(config.outputs, usecase_dir))
    base_dir = config.lineage.base_dir if config.lineage is not None else None
    outputs.check_store(outputs.store_where(usecase_dir, lineage_dir), "--lineage-dir", None)
    outputs.check_locations(config, task_dir=task_dir, store=outputs.store_folder(usecase_dir, lineage_dir, base_dir),
                            reads=secret_files(rendered))
    return config


def _mapping(value: Any, file: Path, key: str, *, required: bool = False) -> dict[str, Any]:
    if value is None:
        if required:
            raise ConfigError(file, key, "expected a mapping; got nothing")
        return {}
    if not isinstance(value, dict):
        raise ConfigError(file, key, f"expected a mapping; got {type(value).__name__} {value!r}")
    for k in value:
        if not isinstance(k, str):
            raise ConfigError(file, key, f"expected string keys; got {k!r}")
    return value


def _unknown(doc: Mapping[str, Any], allowed: tuple[str, ...], file: Path, key: str) -> None:
    for k in doc:
        if k not in allowed:
            where = f"{key}.{k}" if key else k
            raise ConfigError(file, where, f"unknown key; expected one of {', '.join(allowed)}")


def _text(value: Any, file: Path, key: str) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        raise ConfigError(file, key, f"expected a string; got {value!r}")
    return str(value)


def validate(doc: Any, file: Path, *, mode: str = "DEV") -> TaskConfig:
    """Turn a rendered document into a :class:`TaskConfig` or raise :class:`ConfigError`."""
    top = _mapping(doc, file, "", required=True) if doc is not None else None
    if top is None:
        raise ConfigError(file, None, "empty file; expected MODEL, VERSION, ENGINE and CONFIG")
    _unknown(top, _TOP_KEYS, file, "")
    _orchestration(top.get("ORCHESTRATION"), file)
    if "CONFIG" not in top:
        raise ConfigError(file, "CONFIG", "missing; expected a mapping with inputs and outputs")
    model = _text(top.get("MODEL", "etl"), file, "MODEL")
    version = None if top.get("VERSION") is None else _text(top["VERSION"], file, "VERSION")
    engine = _engine(_mapping(top.get("ENGINE"), file, "ENGINE"), file, mode)
    config = _mapping(top["CONFIG"], file, "CONFIG", required=True)
    _unknown(config, _CONFIG_KEYS, file, "CONFIG")
    inputs = {
        name: _io(name, spec, "input", file, engine)
        for name, spec in _mapping(config.get("inputs"), file, "CONFIG.inputs").items()
    }
    outputs = {
        name: _io(name, spec, "output", file, engine)
        for name, spec in _mapping(config.get("outputs"), file, "CONFIG.outputs").items()
    }
    if not outputs:
        raise ConfigError(file, "CONFIG.outputs", "expected at least one output")
    both = sorted(set(inputs) & set(outputs))
    if both:
        raise ConfigError(file, f"CONFIG.outputs.{both[0]}", "the same name is also an input; names must differ")
    transform = _mapping(config.get("transform"), file, "CONFIG.transform")
    _unknown(transform, _TRANSFORM_KEYS, file, "CONFIG.transform")
    if transform.get("type", "task") != "task":  # 0.8.0's noop / model ...: transformations.py runs anyway
        warnings.warn(f"{file}: CONFIG.transform.type {transform['type']!r} is ignored: the task's "
                      "transformations.py runs", ConfigDeprecationWarning, stacklevel=2)
    params = _mapping(transform.get("params"), file, "CONFIG.transform.params")
    expectations = parse_expectations(_mapping(config.get("expectations"), file, "CONFIG.expectations"),
                                      inputs, outputs, file)
    lineage = _monitors(config.get("monitors"), file)
    return TaskConfig(
        file=file,
        model=model,
        version=version,
        engine=engine,
        inputs=inputs,
        outputs=outputs,
        params=dict(params),
        expectations=expectations,
        lineage=lineage,
        raw=top,
    )


def _orchestration(value: Any, file: Path) -> None:
    """0.8.0's ``ORCHESTRATION`` (what ``ubunye export`` read): checked so a typo is caught,
    otherwise not used by a run, as in 0.8.0."""
    if value is None:
        return
    body = _mapping(value, file, "ORCHESTRATION")
    _unknown(body, _ORCHESTRATION_KEYS, file, "ORCHESTRATION")
    if body.get("type") not in _ORCHESTRATORS:
        raise ConfigError(file, "ORCHESTRATION.type",
                          f"expected one of {', '.join(_ORCHESTRATORS)}; got {body.get('type')!r}")


def _engine(section: dict[str, Any], file: Path, mode: str) -> EngineSettings:
    _unknown(section, _ENGINE_KEYS, file, "ENGINE")
    conf = {str(k): str(v) for k, v in _mapping(section.get("spark_conf"), file, "ENGINE.spark_conf").items()}
    profiles = _mapping(section.get("profiles"), file, "ENGINE.profiles")
    time_zone = section.get("time_zone")
    timeout, timeout_key = section.get("timeout"), "ENGINE.timeout"
    naming = {k: section.get(k) for k in ("catalog", "schema_name")}
    for name, body in profiles.items():
        _unknown(_mapping(body, file, f"ENGINE.profiles.{name}"), _PROFILE_KEYS, file, f"ENGINE.profiles.{name}")
    if profiles and mode not in profiles:  # as 0.8.0: a mode with no profile stops the run
        raise ConfigError(file, "ENGINE.profiles",
                          f"no profile {mode!r} for the run mode (-m/--mode {mode}); expected one of "
                          f"{', '.join(sorted(profiles))}")
    if mode in profiles:
        profile = _mapping(profiles[mode], file, f"ENGINE.profiles.{mode}")
        _unknown(profile, _PROFILE_KEYS, file, f"ENGINE.profiles.{mode}")
        conf.update({str(k): str(v) for k, v in _mapping(profile.get("spark_conf"), file, f"ENGINE.profiles.{mode}.spark_conf").items()})
        time_zone = profile.get("time_zone", time_zone)
        if profile.get("timeout") is not None:
            timeout, timeout_key = profile["timeout"], f"ENGINE.profiles.{mode}.timeout"
        naming = {k: profile[k] if profile.get(k) is not None else naming[k] for k in naming}
    if time_zone is None:
        time_zone = conf.get("spark.sql.session.timeZone")
    backend = section.get("backend")
    if backend is not None and backend not in ("spark", "pandas"):
        raise ConfigError(file, "ENGINE.backend", f"expected one of spark, pandas; got {backend!r}")
    tz = None if time_zone is None else _text(time_zone, file, "ENGINE.time_zone")
    names = {k: None if v is None else _text(v, file, f"ENGINE.{k}") for k, v in naming.items()}
    return EngineSettings(time_zone=tz, spark_conf=conf, backend=backend, timeout=_timeout(timeout, file, timeout_key),
                          **names)


def _timeout(value: Any, file: Path, key: str) -> Optional[float]:
    """``ENGINE.timeout``: seconds (a number > 0), or absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 10**9:
        raise ConfigError(file, key, f"expected a number of seconds greater than 0; got {value!r}")
    return float(value)


def _io(name: str, spec: Any, direction: str, file: Path, engine: Optional[EngineSettings] = None) -> IOSpec:
    from ubunye.engine import connectors

    key = f"CONFIG.{direction}s.{name}"
    body = _mapping(spec, file, key, required=True)
    fmt = body.get("format")
    if fmt is None:
        raise ConfigError(file, f"{key}.format", f"missing; expected one of {', '.join(FORMATS)}")
    extra: dict[str, Any] = {}
    fmt = str(fmt).lower()
    if connectors.is_connector(fmt) and (fmt != "delta" or connectors.uses_080_keys(body)):
        body, extra = connectors.to_native(body, direction, file, key, engine.catalog if engine else None,
                                           engine.schema_name if engine else None)
        fmt = body["format"]
    elif fmt == "table" and engine is not None and body.get("table") is not None:
        body = {**body, "table": connectors.qualify(str(body["table"]), engine.catalog, engine.schema_name)}
    if fmt not in FORMATS and fmt != "jdbc":
        raise connectors.refuse_unknown_format(body["format"], file, key, FORMATS)
    _unknown(body, _INPUT_KEYS if direction == "input" else _OUTPUT_KEYS, file, key)
    path = body.get("path")
    table = body.get("table")
    if fmt == "jdbc":
        pass  # where it is: extra["connection"] (connectors.to_native checked it)
    elif fmt == "table":
        if table is None:
            raise ConfigError(file, f"{key}.table", "missing; format 'table' needs a catalog table name")
        if path is not None:
            raise ConfigError(file, f"{key}.path", "not allowed with format 'table'; use table")
    else:
        if path is None:
            raise ConfigError(file, f"{key}.path", f"missing; format {fmt!r} needs a path")
        if table is not None:
            raise ConfigError(file, f"{key}.table", f"not allowed with format {fmt!r}; use path")
    options = _mapping(body.get("options"), file, f"{key}.options")
    seen: dict[str, str] = {}
    for opt, value in options.items():
        if opt.lower() in seen:
            raise ConfigError(file, f"{key}.options.{opt}",
                              f"names the same option as {seen[opt.lower()]!r} (option names ignore case)")
        seen[opt.lower()] = opt
        if value is None or isinstance(value, (dict, list)):
            raise ConfigError(file, f"{key}.options.{opt}", f"expected a string, number or true/false; got {value!r}")
    mode = "overwrite"
    partition_by: tuple[str, ...] = ()
    version: Optional[int] = None
    if direction == "output":
        raw_mode = str(body.get("mode", "overwrite")).lower()
        mode = _MODE_ALIASES.get(raw_mode, raw_mode)
        if mode not in MODES:
            raise ConfigError(file, f"{key}.mode", f"expected one of {', '.join(MODES)}; got {body['mode']!r}")
        pb = body.get("partition_by", [])
        if isinstance(pb, str):
            pb = [pb]
        if not isinstance(pb, list) or not all(isinstance(c, str) for c in pb):
            raise ConfigError(file, f"{key}.partition_by", f"expected a list of column names; got {pb!r}")
        partition_by = tuple(pb)
    schema = body.get("schema")
    if schema is not None and direction == "input":
        if not isinstance(schema, str) or not schema.strip():
            raise ConfigError(file, f"{key}.schema",
                              f"expected a Spark DDL string such as 'a INT, b STRING'; got {schema!r}")
        if fmt in ("delta", "table"):
            raise ConfigError(file, f"{key}.schema", f"only file inputs (parquet, csv, json) take a schema; "
                                                      f"format is {fmt!r}")
    if direction == "input" and body.get("version") is not None:
        if fmt not in ("delta", "table"):
            raise ConfigError(file, f"{key}.version", f"only Delta inputs have versions; format is {fmt!r}")
        try:
            version = int(body["version"])
        except (TypeError, ValueError):
            raise ConfigError(file, f"{key}.version", f"expected an integer; got {body['version']!r}") from None
    return IOSpec(
        name=name,
        direction=direction,
        format=fmt,
        path=None if path is None else _text(path, file, f"{key}.path"),
        table=None if table is None else _text(table, file, f"{key}.table"),
        mode=mode,
        options=dict(options),
        partition_by=partition_by,
        version=version,
        schema=schema if direction == "input" else None,
        connection=dict(extra.get("connection", {})),
        table_comment=extra.get("comment"),
        table_properties=dict(extra.get("tblproperties", {})),
        label=extra.get("location"),
    )


def _monitors(value: Any, file: Path) -> Optional[LineageSettings]:
    """``CONFIG.monitors`` of older configs: ``type: lineage`` turns recording on."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise ConfigError(file, "CONFIG.monitors", f"expected a list of {{type, params}}; got {value!r}")
    settings: Optional[LineageSettings] = None
    for i, item in enumerate(value):
        key = f"CONFIG.monitors[{i}]"
        body = _mapping(item, file, key, required=True)
        _unknown(body, _MONITOR_KEYS, file, key)
        if body.get("type") not in ("lineage", "openlineage"):
            raise ConfigError(file, f"{key}.type", f"expected 'lineage' or 'openlineage'; got {body.get('type')!r}")
        params = _mapping(body.get("params"), file, f"{key}.params")
        if body["type"] == "openlineage":  # implies recording: the events are built from the record
            _unknown(params, _OPENLINEAGE_PARAMS, file, f"{key}.params")
            settings = replace(settings or LineageSettings(), openlineage=str(params.get("namespace") or "ubunye"))
            continue
        _unknown(params, _LINEAGE_PARAMS, file, f"{key}.params")
        if "sample_fraction" in params:
            warnings.warn(
                f"{file}: {key}.params.sample_fraction is ignored: rows-v1 hashes every row",
                ConfigDeprecationWarning,
                stacklevel=2,
            )
        store = params.get("store", "filesystem")
        if store != "filesystem":  # the only kind: a folder of JSON files, set by base_dir
            raise ConfigError(file, f"{key}.params.store",
                              f"expected 'filesystem' (the only store; set base_dir for the records' folder); "
                              f"got {store!r}")
        from ubunye.engine.outputs import check_store  # a base_dir on a volume that does not exist here
        check_store(params.get("base_dir"), file, f"{key}.params.base_dir")
        settings = LineageSettings(
            openlineage=settings.openlineage if settings else None,
            hash_inputs=_flag(params, "hash_inputs", file, f"{key}.params"),
            reuse_hashes=_flag(params, "reuse_hashes", file, f"{key}.params"),
            store=store,
            base_dir=None if params.get("base_dir") is None else str(params["base_dir"]),
        )
    return settings


def _flag(params: Mapping[str, Any], name: str, file: Path, key: str) -> bool:
    """A true/false parameter (default true); the strings "true"/"false" are accepted."""
    value = params.get(name, True)
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "false"):
        return str(value).lower() == "true"
    raise ConfigError(file, f"{key}.{name}", f"expected true or false; got {value!r}")
