"""Server-side profiles of a trial's measured phase (``profile:``): JDK Flight Recorder on
every node, collapsed stacks and a flame graph per node and kind."""
