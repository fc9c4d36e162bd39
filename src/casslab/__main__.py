"""python -m casslab."""

from casslab.cli.main import main

main()
