"""A study's claims in the experiment file: the record is
:class:`casslab.analysis.claim_records.Claim` (the report reads it back from the manifest),
:mod:`.claims_checks` checks each claim's KPI, factors, levels and cells against the design;
the verdicts are :mod:`casslab.analysis.claim_verdicts`'."""
