"""``python -m casslab.metrics > docs/metrics.md`` writes the generated metrics page."""

from casslab.metrics.catalogue_doc import main

main()
