"""A trial's ``faults:`` around its measured phase (:mod:`.fault_phase`); the fault kinds
themselves are :mod:`casslab.faults`."""
