"""The ``ubunye`` command line. Each verb lives in ``ubunye.cli.commands.<verb>``."""
