"""Clock skew and the last-write-wins probe: :mod:`.skew_section` (``cluster.clock``,
``lww``), :mod:`.skew_checks` (their checks), :mod:`.skew_phase` (set around the measured
phase, probed after it)."""
