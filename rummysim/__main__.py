"""``python -m rummysim``: the same commands as the ``rummysim`` script."""

from rummysim.cli import main

main()
