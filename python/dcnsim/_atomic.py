"""Atomic file writes: a result file is either absent, the old one, or complete."""

from __future__ import annotations

import _thread
import contextlib
import os

# defined in errors: the CLI catches it without loading this module
from .errors import OutputDirError, output_dir_error

__all__ = ["OutputDirError", "StagedFiles", "atomic_open", "atomic_write", "check_out_dir", "dir_lock", "missing_dirs",
           "remove_empty_dirs"]

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see dcnsim/__init__.py)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import (
        IO,
        Any,
        Callable,
        Dict,
        Iterable,
        Iterator,
        List,
        Set,
        Tuple,
        Union,
    )


def _file_mode() -> int:
    # mkstemp creates 0600 files; give results the mode open() would (0666 & ~umask)
    old = os.umask(0)
    os.umask(old)
    return 0o666 & ~old


_MODE = _file_mode()


@contextlib.contextmanager
def _temp_file(target: Path, mode: str) -> Iterator[Tuple[IO[Any], str]]:
    """A new temporary file beside ``target`` and its path; on a clean exit
    flushed, fsynced and given open()'s mode, on an exception removed."""
    if mode not in ("w", "wb"):
        raise ValueError("mode must be 'w' or 'wb'")
    # The name is chosen before the file exists, so that an interrupt (a
    # signal handler's exception) that lands just after the file is made,
    # before anything else runs, still finds its name to remove: mkstemp
    # makes the file and names it in one call. Its pattern is mkstemp's.
    for _ in range(100):
        tmp = os.path.join(target.parent, f".{target.name}.{os.urandom(4).hex()}.tmp")
        try:
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            continue
        except BaseException as e:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if isinstance(e, OSError) and e.filename == tmp:
                # no room for a new file (inodes, a read-only remount): the
                # user knows the file they asked for, not its temporary
                e.filename = str(target)
            raise
    else:
        raise FileExistsError(f"no free temporary name beside {target}")
    try:
        fh_: IO[Any] = os.fdopen(fd, "w", encoding="utf-8", newline="") if mode == "w" else os.fdopen(fd, "wb")
        with fh_ as fh:
            yield fh, tmp
            fh.flush()
            os.fsync(fh.fileno())
            try:
                os.chmod(tmp, _MODE)
            except OSError:
                pass
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.filename is None and e.errno is not None:
            # a failed write() names no file (a full disk): name the one meant
            raise OSError(e.errno, e.strerror, str(target)) from e
        raise


@contextlib.contextmanager
def atomic_open(path: Union[str, os.PathLike], mode: str = "w") -> Iterator[IO]:
    """Open a temporary file beside ``path``; on a clean exit flush, fsync and
    ``os.replace`` it onto ``path`` (then fsync the directory). On an
    exception the temporary file is removed and ``path`` is untouched."""
    # pathlib here: it brings urllib.parse and ipaddress, ≈ 3 ms of every start
    from pathlib import Path

    target = Path(path)
    with _temp_file(target, mode) as (fh, tmp):
        yield fh
    try:
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


class StagedFiles:
    """Files written whole to temporaries beside their targets first
    (:meth:`write`), and put in place together, in the order written, only
    by :meth:`commit`: a failure while any is being written (a value that
    cannot be written, a full disk) leaves every target as it was. Used as
    a context manager, the temporaries not committed are removed on exit."""

    def __init__(self) -> None:
        self._pending: List[Tuple[str, Path]] = []

    def write(self, path: Union[str, os.PathLike], write: Callable[[IO], object], mode: str = "w") -> None:
        from pathlib import Path

        target = Path(path)
        with _temp_file(target, mode) as (fh, tmp):
            write(fh)
        self._pending.append((tmp, target))

    def commit(self) -> None:
        """Rename every temporary onto its target, in the order written."""
        dirs = []
        while self._pending:
            tmp, target = self._pending[0]
            os.replace(tmp, target)
            self._pending.pop(0)
            if target.parent not in dirs:
                dirs.append(target.parent)
        for d in dirs:
            _fsync_dir(d)

    def discard(self) -> None:
        for tmp, _ in self._pending:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        self._pending.clear()

    def __enter__(self) -> "StagedFiles":
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()


def atomic_write(path: Union[str, os.PathLike], write: Callable[[IO], object], mode: str = "w") -> None:
    """``write(fh)`` into a temporary file, then atomically put it at ``path``."""
    with atomic_open(path, mode) as fh:
        write(fh)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. Windows: directories cannot be opened
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def check_out_dir(path: Union[str, os.PathLike]) -> Path:
    """Fail early, with one line naming the path and the reason, if
    ``path`` cannot become a directory of results: it (or a parent) is a
    file, or the nearest existing directory refuses a new file. Creates
    nothing that stays: the writability probe is a temporary file, removed
    at once (``os.access`` is not enough: it says yes to root on read-only
    file systems and no to ACL grants). Returns the path, a leading ``~``
    made the home directory (as a shell makes it of ``--out ~/x``, and
    pandas' ``to_csv`` of its path)."""
    from pathlib import Path

    if not os.fspath(path):
        # Path("") is "." : an unset $OUT would write into wherever the command ran
        raise OutputDirError("'' is an empty path; name a directory ('.' for the current one)")
    target = Path(path).expanduser()
    probe = target
    while not probe.exists():
        if probe.is_symlink():
            raise OutputDirError(f"{target}: {probe} is a dangling symbolic link")
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        if probe == target:
            raise OutputDirError(f"{target}: exists and is not a directory")
        raise OutputDirError(f"{target}: {probe} is a file, not a directory")
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(prefix=".dcnsim-probe.", dir=probe)
    except OSError as e:
        # a read-only file system is the machine's, as a full disk (its errno kept)
        raise output_dir_error(f"{target}: cannot write in {probe}: {e.strerror or e}", e.errno) from None
    try:
        # Bytes too, not just a name: a full disk still creates an empty
        # file, and a run that found out only when its tables were written
        # had spent its time for nothing (audit, 2026-12-07).
        view = memoryview(PROBE_BYTES)
        while view:
            view = view[os.write(fd, view):]
    except OSError as e:
        # the cause's errno kept: a full disk is the machine's failure
        # (sweep.environment_failure), which stops a sweep at once
        raise output_dir_error(f"{target}: cannot write in {probe}: {e.strerror or e} "
                               f"(a {len(PROBE_BYTES) // 1024} KiB test file failed)", e.errno) from None
    finally:
        os.close(fd)
        os.unlink(tmp)
    return target


#: What :func:`check_out_dir` writes (and removes) to see that a
#: directory takes data: a disk with less free is refused before a run.
PROBE_BYTES = bytes(64 * 1024)


def missing_dirs(path: Union[str, os.PathLike]) -> List[str]:
    """``path`` and those of its parents that do not exist, deepest first:
    what ``os.makedirs(path)`` would make."""
    out = []
    p = os.fspath(path)
    while p and not os.path.lexists(p):
        out.append(p)
        parent = os.path.dirname(p.rstrip(os.sep) or p)
        if parent == p:
            break
        p = parent
    return out


def remove_empty_dirs(made: Iterable[str]) -> None:
    """Remove the directories ``made`` (deepest first, as
    :func:`missing_dirs` lists them) that are still empty: a command
    refused leaves the file system as it found it. ``rmdir`` removes
    nothing but an empty directory, so one that has since received a
    file, ours or another process's, stays, and so do its parents."""
    for d in made:
        try:
            os.rmdir(d)
        except OSError:
            pass


def _make_dirs(path: Union[str, os.PathLike]) -> List[str]:
    """``os.makedirs(path, exist_ok=True)``, returning the directories this
    call made (deepest first): only those are its to remove again, not one
    another process made at the same moment."""
    made: List[str] = []
    for d in reversed(missing_dirs(path)):
        try:
            os.mkdir(d)
        except FileExistsError:
            continue
        except BaseException:
            remove_empty_dirs(made[::-1])
            raise
        made.append(d)
    return made[::-1]


def _lock_holder(fd: int) -> str:
    """Who holds the ``flock`` on the directory open as ``fd``, as
    `` (pid N: COMMAND)``, read from Linux's ``/proc/locks``; ``""`` where
    that cannot be told (another system, another pid namespace)."""
    try:
        st = os.fstat(fd)
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return ""
    me = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in lines:
        f = line.split()
        # "1: FLOCK  ADVISORY  WRITE 22233 fe:00:10199623 0 EOF"; a waiter's line has "->" after the number
        if "->" in f or len(f) < 6 or f[1] != "FLOCK" or f[5] != me or not f[4].isdigit() or f[4] == "0":
            continue
        pid = int(f[4])
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                words = [w.decode(errors="replace") for w in fh.read().split(b"\0") if w]
        except OSError:
            return f" (pid {pid})"
        if len(words) > 2 and os.path.basename(words[0]).startswith("python") and words[1] == "-m":
            words = words[2:]  # python -m dcnsim run ...: dcnsim run ...
        elif len(words) > 1 and os.path.basename(words[0]).startswith("python") and not words[1].startswith("-"):
            words = words[1:]  # python /usr/bin/dcnsim run ...
        if words:
            words[0] = os.path.basename(words[0])
        import shlex

        cmd = shlex.join(words)
        return f" (pid {pid}: {cmd if len(cmd) <= 160 else cmd[:159] + '…'})"
    return ""


#: by thread (its ident), the directories (device, inode) it holds the lock
#: of: a writer holding one (``dcnsim run --out`` for its whole run) takes
#: it again for its write without refusing itself. `_thread`, not
#: `threading`: a run without --out loads no thread module (test_startup)
_held: "Dict[int, Set[Tuple[int, int]]]" = {}


@contextlib.contextmanager
def dir_lock(path: Union[str, os.PathLike]) -> Iterator[None]:
    """Hold an exclusive advisory lock on the directory ``path`` (made if
    missing) while results are written into it, so two dcnsim processes
    never write one directory at once (their files would mix, and a
    ``summary.json`` would vouch for another run's tables). A second
    writer is refused at once with :class:`OutputDirError`, naming the
    process that holds it where the system tells (Linux). The lock is the
    kernel's (``flock`` on the directory itself: no lock file among the
    results, none left stale): it goes with the process however it ends,
    a ``kill -9`` too; forked sweep workers share it. Taken again by the
    thread that holds it, it is held already (a run holds its ``--out``
    for the whole run, and its write takes it again). Where ``flock`` is
    missing (Windows) there is none.

    On leaving, the directories it made that are still empty (nothing was
    written: a refusal, Ctrl-C, a failed write), ``path`` and its new
    parents, are removed again, the lock still held: a directory is only
    ever removed by its lock's holder, and a lock taken on one removed
    meanwhile is let go and taken again on the directory there now."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux or macOS
        yield
        return
    held = _held.setdefault(_thread.get_ident(), set())
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None and (st.st_dev, st.st_ino) in held:
        yield
        return
    made: List[str] = []
    attempt = 0
    while True:
        attempt += 1
        try:
            made = _make_dirs(path) + made
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            if attempt < 4:  # a new parent removed as it was made (another refused writer's): again
                continue
            remove_empty_dirs(made)
            raise
        except BaseException:
            remove_empty_dirs(made)
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            # the other writer's directory (even one made here a moment ago): left as it is
            holder = _lock_holder(fd)
            os.close(fd)
            raise OutputDirError(f"{os.fspath(path)}: another dcnsim process is writing results there{holder}; "
                                 "wait for it to end, or choose another directory") from None
        except OSError:  # a file system without flock: as before, unlocked
            pass
        except BaseException:
            os.close(fd)
            raise
        try:
            # removed (by a writer refused in it) between the open and the lock?
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except OSError:
            same = False
        if same or attempt >= 4:
            break
        os.close(fd)
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    held.add(key)
    try:
        yield
    finally:
        held.discard(key)
        if not held:
            _held.pop(_thread.get_ident(), None)
        remove_empty_dirs(made)
        os.close(fd)
