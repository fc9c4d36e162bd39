"""casslab.tune: a joint, noise-aware search over cassandra.yaml settings and table options
toward the user's objective (``casslab tune FILE``; see docs/tune.md).

:mod:`.spec` and :mod:`.space_parse` read the tune file's ``tune:`` section (:mod:`.loader`
the whole file), :mod:`.space` maps the space to Optuna and back, :mod:`.search` runs the
Optuna study, :mod:`.runner_evaluator` measures a configuration as a real trial through the
experiment runner, :mod:`.sweep` is the one-at-a-time sweep it is compared with,
:mod:`.confirm` re-measures the best against the default, :mod:`.tuner` runs it all, and
:mod:`.output` and :mod:`.report` write the results.
"""
