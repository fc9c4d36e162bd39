"""The ``discover:`` step: the capacity a group of cells' rate shares are of and its best
thread count (:mod:`.discover_section` the file's part, :mod:`.discover_checks` its
checks, :mod:`.discover_phase` the step run before the group's first trial)."""
