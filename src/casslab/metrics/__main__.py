"""``python -m casslab.metrics > docs/metrics.md`` writes the generated metrics page."""

from casslab.metrics.catalogue import main

main()
