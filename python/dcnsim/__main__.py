"""``python -m dcnsim ...`` is the ``dcnsim`` command."""

import sys

from .cli import main

sys.exit(main())
