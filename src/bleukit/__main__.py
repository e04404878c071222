"""``python -m bleukit``: the command line."""

from .cli import run

run()
