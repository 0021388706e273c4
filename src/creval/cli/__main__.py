"""``python -m creval.cli``: the same command line as ``creval``."""

from creval.cli import main

main()
