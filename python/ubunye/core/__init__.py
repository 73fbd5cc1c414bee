"""Import paths of ubunye-engine 0.8.0, kept so its task folders run unchanged.

``from ubunye.core.interfaces import Task`` gives this project's
:class:`ubunye.engine.task.Task` (the same class, not a copy). The rest of
0.8.0's ``ubunye.core`` (its plugin ABCs, runtime, hooks, task runner) has no
counterpart here; importing it fails with one line saying what to use instead.
"""
