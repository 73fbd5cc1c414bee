"""``python -m ubunye``: the ``ubunye`` CLI, or (with ``--task-dir DIR``, as
ubunye-engine 0.8.0 took it) one task folder run directly."""
import sys


def _wants_task_dir(argv: list) -> bool:
    return any(arg == "--task-dir" or arg.startswith("--task-dir=") for arg in argv)


if _wants_task_dir(sys.argv[1:]):
    from ubunye.cli.commands.task_dir import main
else:
    from ubunye.cli.app import main

sys.exit(main())
