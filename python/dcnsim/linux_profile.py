"""``python -m dcnsim.linux_profile``: the Linux-profile study's own command
line, kept under this name because the README, docs/linux_profile.md and
scripts use it. The study lives in :mod:`dcnsim.experiments.linux_profile`
(also ``dcnsim reproduce linux``); this module only re-exports it."""

from __future__ import annotations

import sys

from .experiments.linux_profile import (  # noqa: F401 - re-exported
    ABLATION_NS,
    ABLATIONS,
    BLOCKS,
    BUFFER,
    DELAY,
    NIC_BUFFER,
    NS,
    QUICK_BLOCKS,
    QUICK_NS,
    RATE,
    SEEDS,
    SRU,
    STACKS,
    main,
    plot,
    points,
    run,
    scenario,
    summarize,
)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
