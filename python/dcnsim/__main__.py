"""``python -m dcnsim ...`` is the ``dcnsim`` command."""

import sys

from ._entry import entry

sys.exit(entry())
