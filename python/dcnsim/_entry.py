"""The `dcnsim` command as a process: its console script and `python -m
dcnsim` start here, before the command line's modules are imported.

Starting a command makes tens of thousands of objects that live as long as
the process (modules, classes, the parser), and the cyclic collector walked
them again and again while they were made, then all of them once more at
exit: about a tenth of `dcnsim --version`'s instructions, 15-18 M of a
`dcnsim run`'s (docs/performance.md, "Start-up and wrap-up"). So nothing is
collected while the command starts; what it made is then frozen
(`gc.freeze`: no later collection walks it) and the command itself runs
with the collector on as usual, so a long sweep collects its garbage; at
the end everything is frozen, and the collection at exit walks nothing.
Only the process's own entry does this: `dcnsim.cli.main` called from
Python (a test, a notebook) leaves the collector alone.
"""

import gc
import os
import sys


def entry() -> int:
    """Run the command line of this process (`dcnsim.cli.main`)."""
    gc.disable()
    try:
        from .cli import main

        status = main(_process=True)
    finally:
        gc.freeze()
    if status in (130, 143):
        _leave_if_held(status)
    return status


def _leave_if_held(status: int) -> None:
    """An interrupted command has said what it kept and how to resume; its
    files are whole (written to a temporary name, then renamed). A Ctrl-C
    that landed while a sweep's pool held its futures' locks leaves the
    pool's manager thread waiting on a lock no one will release, and
    Python's exit joins that thread for ever (audit 35: a sweep hung after
    "interrupted ... resume with"). With such a thread still alive the
    process leaves at once, with its status."""
    threading = sys.modules.get("threading")  # not imported: no thread to wait for
    if threading is None:
        return
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    for t in others:
        t.join(timeout=1)
    # a pool's worker the interrupt forked before the pool could be stopped
    # is joined at exit as well: stopped already, or its parent's death
    # stops it (the workers' PR_SET_PDEATHSIG)
    mp = sys.modules.get("multiprocessing")
    children = mp.active_children() if mp is not None else []
    for c in children:
        c.join(timeout=1)
    if any(t.is_alive() for t in others) or any(c.is_alive() for c in children):
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)
