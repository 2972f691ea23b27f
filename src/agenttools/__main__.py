"""``python -m agenttools``: the same as the ``agenttools`` command."""

import sys

from agenttools.cli import main

sys.exit(main())
