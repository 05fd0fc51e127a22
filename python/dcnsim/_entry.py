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


def entry() -> int:
    """Run the command line of this process (`dcnsim.cli.main`)."""
    gc.disable()
    try:
        from .cli import main

        return main(_process=True)
    finally:
        gc.freeze()
