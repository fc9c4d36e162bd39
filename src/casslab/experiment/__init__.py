"""casslab.experiment: a study from one file, by job.

* :mod:`.file`: the experiment file (its model, loader and checks, the load commands it
  composes).
* :mod:`.design`: the design (cells, trials, their order and restarts, iterations, the
  plan and ``plan.json``).
* :mod:`.run`: the run (the runner and its one trial-preparation sequence, the trial's
  phases and cluster, load clients, failures, resume, the manifest).
* :mod:`.steps`: steps that plug into a trial, one folder each with its model, checks and
  phase: ``discover`` (capacity and best threads), ``skew`` (clock skew and the
  last-write-wins probe), ``faults``, ``verify`` (the read-back of acknowledged writes).
"""
