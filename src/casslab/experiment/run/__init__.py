"""A run of a study: the runner (:mod:`.runner`) and each trial's phases
(:mod:`.trial_phases`, :mod:`.trial_schema`, :mod:`.jvm_warmup`, :mod:`.recording`), its
cluster (:mod:`.trial_cluster`) and load clients (:mod:`.load_clients`), the engine specs
checked first (:mod:`.engine_specs`), failures and resume (:mod:`.failures`,
:mod:`.finished_trials`), the manifest and host facts (:mod:`.manifest`,
:mod:`.host_facts`), options and events (:mod:`.runner_options`, :mod:`.events`)."""
