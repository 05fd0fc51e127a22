"""Standard output and error for a command line: a reader that goes away
(`| head -1`) stops nothing, any other failed write is an error that names
the stream. Every command loads this, so it imports nothing but `os`."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see dcnsim/__init__.py)
if TYPE_CHECKING:
    from typing import IO, Any, Callable


class StreamError(Exception):
    """Standard output or error refused a write for a reason other than a
    reader that went away (a full disk, ``> /dev/full``): what the command
    printed is lost, so it must not exit 0. Not an ``OSError``: a command's
    own ``except OSError`` around its files must not take it for theirs."""


class GuardedStream:
    """Standard output (or error) for a command line. A reader that goes
    away (``| head -1``) stops nothing: later text is discarded and the
    command finishes its files and its exit status, so what it was asked to
    write is never lost to a closed pipe. Any other failed write raises
    :class:`StreamError` naming the stream. Either way the descriptor then
    points at ``os.devnull``, so the interpreter's last flush at exit cannot
    fail again (or print ``Exception ignored``)."""

    def __init__(self, stream: IO[str], name: str) -> None:
        self._stream = stream
        self._name = name

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _discard(self) -> None:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, self._stream.fileno())
        finally:
            os.close(null)

    def _guard(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except BrokenPipeError:
            self._discard()
            return call()  # the buffered text, now into os.devnull
        except OSError as e:
            self._discard()
            try:
                self._stream.flush()
            except (OSError, ValueError):
                pass
            raise StreamError(f"cannot write to {self._name}: {e.strerror or e}") from None

    def write(self, text: str) -> int:
        return self._guard(lambda: self._stream.write(text))

    def flush(self) -> None:
        self._guard(self._stream.flush)
