"""The package version. The repository's ``VERSION`` file is the source;
``tests/test_version.py`` fails when this constant drifts from it. A constant
(not ``importlib.metadata``) keeps the CLI's cold start short."""

__version__ = "0.1.0"
