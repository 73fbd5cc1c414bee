"""How a run ends: one mapping from what was raised to the record's status and reason,
the signals that end a run, a task's time limit, and whether a ``running`` record's process
is gone.

- :func:`end_status`: ``None`` -> ``success``; :class:`KeyboardInterrupt` -> ``interrupted``;
  anything else (any :class:`Exception`, :class:`SystemExit` even with code 0,
  :class:`GeneratorExit`, any other :class:`BaseException`, a signal, a time limit) -> ``error``.
- :func:`reraise`: after its record is written, a run re-raises what stops the process (a
  :class:`KeyboardInterrupt`, a signal: :class:`Stopped`); what task code raised, ``SystemExit``
  included, is a failed run and nothing more.
- :func:`ending_signals`: SIGTERM, SIGINT, SIGHUP (a closed terminal, a dropped SSH session),
  SIGUSR1 and SIGUSR2 (whose default also ends the process) raise :class:`Stopped` in the main
  thread, so the run ends its record (``error``, "stopped by signal 15 (SIGTERM)") before the process exits. The CLI
  installs it; library callers opt in (``handle_signals=True``). Previous handlers are put back.
- :func:`time_limit`: a task past ``ENGINE.timeout`` seconds gets :class:`TimedOut` raised in the
  main thread (``setitimer``); in another thread the limit is not enforced (a warning says so).
- :func:`_interrupt`: what both handlers (signal, time limit) do in the main thread just before
  they raise, for every caller (the CLI, ``run_task``, ``ubunye.lineage.run``, a notebook run):
  drop the py4j connection a Spark action may be waiting on
  (:func:`ubunye.spark._compat.close_signalled_connection`; otherwise the first py4j call on the
  way up, pyspark's own ``SCCallSiteSync.__exit__``, waits on it for ever).
- :func:`shown_status`: a ``running`` record whose process is gone reads as ``abandoned``.
"""
from __future__ import annotations

import os
import signal
import socket
import threading
import warnings
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

SUCCESS, ERROR, INTERRUPTED, RUNNING, ABANDONED = "success", "error", "interrupted", "running", "abandoned"
# every signal whose default action ends the process quietly and that a user or a system sends to
# stop a run: each ends the record (error, "stopped by signal N (NAME)") before the process exits
ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGUSR1", "SIGUSR2")
                       if hasattr(signal, name))
# a running record written on another host is taken as abandoned once it is this old (no way to ask
# that host whether the process lives; a run longer than this reads as abandoned there)
ABANDONED_AFTER_SEC = 7 * 24 * 3600


class Stopped(BaseException):
    """A signal asked the process to stop (raised in the main thread by :func:`ending_signals`)."""

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        super().__init__(self.signum)

    @property
    def exit_code(self) -> int:
        """The shell's convention for a process ended by signal N: 128 + N."""
        return 128 + self.signum

    def __str__(self) -> str:
        return f"stopped by signal {self.signum} ({_signal_name(self.signum)})"


class TimedOut(BaseException):
    """A task ran past its ``ENGINE.timeout``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(seconds)

    def __str__(self) -> str:
        return f"timed out after {self.seconds:g} s (ENGINE.timeout)"


def end_status(exc: Optional[BaseException]) -> str:
    """The record status of a run that ended with ``exc`` raised (None: it returned)."""
    if exc is None:
        return SUCCESS
    if isinstance(exc, KeyboardInterrupt):
        return INTERRUPTED
    return ERROR


def reraise(exc: BaseException) -> bool:
    """Whether a run re-raises ``exc`` once its record is written (what stops the process)."""
    return isinstance(exc, (KeyboardInterrupt, Stopped))


def describe(exc: BaseException, where: Optional[str] = None) -> str:
    """One line saying why a run ended with ``exc`` (not yet masked).

    ``"<ErrorType>: <message>"`` for an :class:`Exception` (the record's form since 0.8.0);
    ``"SystemExit(0) raised by task code at transformations.py:12 in transform"`` for a
    :class:`BaseException` task code raised; the signal or the time limit for those."""
    if isinstance(exc, (Stopped, TimedOut)):
        return str(exc)
    if isinstance(exc, Exception) or isinstance(exc, KeyboardInterrupt):
        message = str(exc)
        return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    args = exc.code if isinstance(exc, SystemExit) else (exc.args[0] if len(exc.args) == 1 else "")
    shown = "" if args is None or args == "" else repr(args)
    text = f"{type(exc).__name__}({shown}) raised by task code"
    return f"{text} at {where}" if where else text


# --- signals -------------------------------------------------------------
class _Ending:
    """The state of :func:`ending_signals`: the first signal raises; one arriving while a record is
    being ended (:func:`held`) waits until it is written."""

    def __init__(self) -> None:
        self.active = 0
        self.holding = 0
        self.pending: Optional[int] = None
        self.raised = False

    def handler(self, signum: int, frame: Any) -> None:
        if self.holding or self.raised:
            self.pending = self.pending or signum
            return
        self.raised = True
        _interrupt()
        raise Stopped(signum)


_STATE = _Ending()


def _interrupt() -> None:
    """The one thing each handler does before it raises, wherever the main thread was (maybe inside
    a py4j call that will now never read its answer): close that connection. Returns at once; no
    call into the JVM; what it raises is ignored."""
    try:
        from ubunye.spark._compat import close_signalled_connection

        close_signalled_connection()
    except Exception:  # noqa: BLE001 - the run is ending either way
        pass


class _Forwarder:
    """A signal reaches any thread of the process, but Python runs its handler in the main thread
    only, once that thread runs Python again: a main thread blocked in a call (a Spark action
    waiting on the JVM through py4j, while another thread took the signal) would never see it.
    While in use, each signal (seen through ``signal.set_wakeup_fd``) is sent on to the main thread
    (``pthread_kill``): its blocked call returns (EINTR) and the handler runs there."""

    def __init__(self) -> None:
        self.users = 0
        self.pair: Optional[tuple[socket.socket, socket.socket]] = None
        self.previous = -1
        self.thread: Optional[threading.Thread] = None

    def __enter__(self) -> None:
        self.users += 1
        if self.users > 1 or not hasattr(signal, "pthread_kill"):
            return
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        self.previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        self.pair = (reader, writer)
        self.thread = threading.Thread(target=self._forward, args=(reader, threading.main_thread().ident),
                                       name="ubunye-signals", daemon=True)
        self.thread.start()

    def __exit__(self, *exc: Any) -> None:
        self.users -= 1
        if self.users or self.pair is None:
            return
        (reader, writer), thread = self.pair, self.thread
        self.pair = self.thread = None
        try:
            signal.set_wakeup_fd(self.previous)
            writer.close()  # the thread reads end of file and stops
            if thread is not None:
                thread.join(timeout=5)
        finally:  # even when a signal's handler raises meanwhile
            reader.close()

    @staticmethod
    def _forward(reader: socket.socket, main: Any) -> None:
        own = 0  # signals this thread sent: their wakeup bytes are not sent on again
        while True:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data:
                return
            for signum in data:
                if own:
                    own -= 1
                    continue
                if signal.getsignal(signum) not in _OURS:  # handled already, and ours put back
                    continue
                try:
                    signal.pthread_kill(main, signum)
                    own += 1
                except (OSError, ValueError):
                    pass


_FORWARD = _Forwarder()
_OURS: set[Any] = {_STATE.handler}  # the handlers a forwarded signal may reach


@contextmanager
def ending_signals(enabled: bool = True, signals: Sequence[int] = ENDING_SIGNALS) -> Iterator[None]:
    """:data:`ENDING_SIGNALS` raise :class:`Stopped` while the block runs (main thread only; elsewhere,
    and when not ``enabled``, nothing is installed). The previous handlers are put back after.
    A signal that arrived while a record was being ended is raised when the block ends."""
    if not enabled or threading.current_thread() is not threading.main_thread() or _STATE.active:
        yield
        return
    previous = {s: signal.getsignal(s) for s in signals}
    _STATE.__init__()  # type: ignore[misc]
    _STATE.active = 1
    try:
        with _FORWARD:
            for s in signals:
                signal.signal(s, _STATE.handler)
            yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        pending, raised = _STATE.pending, _STATE.raised
        _STATE.__init__()  # type: ignore[misc]
    if pending is not None and not raised:
        raise Stopped(pending)


@contextmanager
def held() -> Iterator[None]:
    """While a run ends its record, a signal waits: it is raised as :class:`Stopped` once the record
    is written (unless the run is already ending because of a signal)."""
    _STATE.holding += 1
    try:
        yield
    finally:
        _STATE.holding -= 1
        if not _STATE.holding and _STATE.pending is not None and not _STATE.raised:
            signum, _STATE.pending, _STATE.raised = _STATE.pending, None, True
            raise Stopped(signum)


# --- a task's time limit ---------------------------------------------------
@contextmanager
def time_limit(seconds: Optional[float]) -> Iterator[None]:
    """Raise :class:`TimedOut` in the block once ``seconds`` have passed (None: no limit).

    A watchdog on the process's real-time timer (``setitimer``, SIGALRM): main thread only,
    where Python code runs or a call returns to Python (a Spark action waiting on the JVM is
    interrupted when the driver's Python wakes; the JVM job itself is not cancelled). In another
    thread the limit cannot be enforced: a RuntimeWarning says so and the task runs unbounded."""
    if seconds is None:
        yield
        return
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        warnings.warn(f"ENGINE.timeout ({seconds:g} s) is enforced only in the main thread; this run is not bounded",
                      RuntimeWarning, stacklevel=3)
        yield
        return

    fired: list[bool] = []

    def expired(signum: int, frame: Any) -> None:
        if not fired:  # once: a forwarded copy of the same SIGALRM is not a second time-out
            fired.append(True)
            _interrupt()
            raise TimedOut(seconds)  # type: ignore[arg-type]

    previous = signal.signal(signal.SIGALRM, expired)
    _OURS.add(expired)
    try:
        with _FORWARD:  # SIGALRM may reach another thread (a Spark driver has many)
            signal.setitimer(signal.ITIMER_REAL, float(seconds))
            try:
                yield
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)
        _OURS.discard(expired)


# --- who runs a record, and whether it is gone ---------------------------------
def this_process() -> dict[str, Any]:
    """Who writes a ``running`` record: host name, pid, boot id and the process's start time
    (clock ticks since boot, from /proc/<pid>/stat: a reused pid has another), where known."""
    pid = os.getpid()
    return {"host": socket.gethostname(), "pid": pid, "boot_id": _boot_id(), "start_ticks": _start_ticks(pid)}


def shown_status(record: Any, *, now: Optional[datetime] = None) -> str:
    """The status to show for ``record``: its own, except ``abandoned`` for a ``running`` record
    whose process is gone. On the record's own host that is known (the pid is gone, or is another
    process: its start time differs, or the machine rebooted); a record from another host (or
    without a process) is abandoned only once older than :data:`ABANDONED_AFTER_SEC`."""
    status = getattr(record, "status", None)
    if status != RUNNING:
        return str(status)
    process = getattr(record, "process", None) or {}
    if _own_pid(process) is not None:
        return ABANDONED if _gone(process) else RUNNING
    from ubunye.lineage.record import parse_moment

    started = parse_moment(getattr(record, "started_at", None))
    if started is None:
        return RUNNING
    age = ((now or datetime.now(timezone.utc)) - started).total_seconds()
    return ABANDONED if age > ABANDONED_AFTER_SEC else RUNNING


def abandoned_reason(record: Any) -> str:
    """Why ``shown_status`` says abandoned, in words."""
    process = getattr(record, "process", None) or {}
    if _own_pid(process) is not None:
        return f"its process (pid {process['pid']} on {process['host']}) is gone"
    return f"it started more than {ABANDONED_AFTER_SEC // 86400} days ago on another host"


def _own_pid(process: Any) -> Optional[int]:
    """The pid of a record written on this host (an int, not a bool), else ``None``: the one test
    that :func:`shown_status` and :func:`abandoned_reason` share."""
    if not isinstance(process, dict) or process.get("host") != socket.gethostname():
        return None
    pid = process.get("pid")
    return pid if type(pid) is int else None


def _gone(process: dict[str, Any]) -> bool:
    boot = process.get("boot_id")
    if boot and _boot_id() and boot != _boot_id():
        return True  # the machine rebooted since
    pid = int(process["pid"])
    if pid <= 0:
        return True  # no process has it (os.kill(0 or -1, 0) would ask a group or every process)
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return True  # no such process; or a pid past the C int, which no process has
    except (PermissionError, OSError):
        pass  # someone else's process: it exists
    state, now_ticks = _stat(pid)
    if state in ("Z", "X"):
        return True  # a zombie (killed, not yet reaped by its parent) runs nothing
    ticks = process.get("start_ticks")
    return ticks is not None and now_ticks is not None and ticks != now_ticks


def _stat(pid: int) -> tuple[Optional[str], Optional[int]]:
    """The state (field 3) and start time (field 22, clock ticks since boot) of /proc/<pid>/stat,
    each ``None`` where not known. The name (field 2) may hold spaces and ``)``: the fields after
    it are counted from its last ``)``."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        fields = text.rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None, None
    try:
        ticks: Optional[int] = int(fields[19])
    except (IndexError, ValueError):
        ticks = None
    return (fields[0] if fields else None), ticks


def _start_ticks(pid: int) -> Optional[int]:
    return _stat(pid)[1]


def _boot_id() -> Optional[str]:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip() or None
    except OSError:
        return None


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
