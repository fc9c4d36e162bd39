"""The design of a study: an experiment expanded into cells and trials
(:mod:`.plan_expansion`, :mod:`.factor_levels`), their run order and restarts
(:mod:`.trial_order`, :mod:`.cluster_setup`), the iterations it needs (:mod:`.iterations`),
and the plan's records and ``plan.json`` (:mod:`.plan_records`, :mod:`.stored_plan`)."""
