//! The thread ramp (cassandra-stress `threads>=A threads<=B`, and its auto mode): closed-loop
//! steps of `step_duration_s`, each at a higher concurrency: the next of the explicit
//! `steps` (the stress front end fills in stress's own sequence 4, 8, 16, 24, 36, 54, 81,
//! ...), else `ceil(threads * factor)`, up to `max`.
//!
//! Stopping rule, checked after every step, first match wins:
//! 1. the run's `stop` is reached: past `stop.duration_s` (which also cuts the last step
//!    short) or all `stop.ops` operations handed out (the count runs across steps);
//! 2. an interrupt (SIGINT/SIGTERM) or the end of the measured phase (SIGUSR1);
//! 3. `patience` steps in a row did not beat the best op rate so far by `min_gain_pct`;
//! 4. no step is left below `max`.
//!
//! The summary gets every step (`ramp`) and the step with the highest op rate
//! (`best_threads`, the earliest on ties).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::execute::Engine;
use super::phase::{run_phase, Bounds, Load};
use super::recorder::Recorder;
use crate::spec::{Phase, RampStep, Rate};
use crate::stats::{total, OpAcc};

/// A ramp's settings, from the spec's `rate`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RampPlan<'a> {
    pub min: u32,
    pub max: u32,
    pub factor: f64,
    pub steps: &'a [u32],
    pub step_duration_s: f64,
    pub min_gain_pct: f64,
    pub patience: u32,
}

impl RampPlan<'_> {
    /// The plan of a ramp rate; None for a closed or open loop.
    pub fn of(rate: &Rate) -> Option<RampPlan<'_>> {
        match rate {
            Rate::Ramp {
                min,
                max,
                factor,
                step_duration_s,
                min_gain_pct,
                patience,
                steps,
            } => Some(RampPlan {
                min: *min,
                max: *max,
                factor: *factor,
                steps,
                step_duration_s: *step_duration_s,
                min_gain_pct: *min_gain_pct,
                patience: *patience,
            }),
            Rate::Closed { .. } | Rate::Open { .. } => None,
        }
    }

    /// After the steps `done` so far (the run's budget aside): the next concurrency, or
    /// None when the ramp is over (no gain for `patience` steps, or `max` reached).
    pub fn next(&self, done: &[RampStep]) -> Option<u32> {
        let current = done.last()?.threads;
        if ramp_exhausted(done, self.min_gain_pct, self.patience) {
            return None;
        }
        next_ramp_step(current, self.steps, self.factor, self.max)
    }
}

/// Concurrency of the next ramp step, or None after the maximum.
pub fn next_ramp_threads(current: u32, factor: f64, max: u32) -> Option<u32> {
    if current >= max {
        return None;
    }
    let grown = (current as f64 * factor).ceil() as u32;
    Some(grown.max(current + 1).min(max))
}

/// The next concurrency of a ramp: the next explicit step above `current` (when `steps`
/// is given), else `current * factor` rounded up; None once `max` is reached.
pub fn next_ramp_step(current: u32, steps: &[u32], factor: f64, max: u32) -> Option<u32> {
    if steps.is_empty() {
        return next_ramp_threads(current, factor, max);
    }
    steps.iter().copied().find(|&s| s > current && s <= max)
}

/// Whether the ramp has gone `patience` steps without beating the best op rate so far
/// by at least `min_gain_pct` percent.
pub fn ramp_exhausted(steps: &[RampStep], min_gain_pct: f64, patience: u32) -> bool {
    let Some(first) = steps.first() else {
        return false;
    };
    let mut best = first.op_rate;
    let mut stale = 0u32;
    for s in &steps[1..] {
        if s.op_rate >= best * (1.0 + min_gain_pct / 100.0) {
            stale = 0;
        } else {
            stale += 1;
        }
        best = best.max(s.op_rate);
    }
    stale >= patience
}

/// Thread count of the step with the highest op rate (earliest on ties).
pub fn best_threads(steps: &[RampStep]) -> Option<u32> {
    let mut best: Option<&RampStep> = None;
    for s in steps {
        if best.is_none_or(|b| s.op_rate > b.op_rate) {
            best = Some(s);
        }
    }
    best.map(|s| s.threads)
}

/// Deadline of a step that starts at `now`: its own length, cut at the run's deadline.
pub fn step_deadline(now: Instant, step_duration_s: f64, run_deadline: Option<Instant>) -> Instant {
    let step_end = now + Duration::from_secs_f64(step_duration_s);
    run_deadline.map_or(step_end, |d| d.min(step_end))
}

/// Whether the run's `stop` is reached at `now`: past its deadline, or `ops_started`
/// (cycles handed out so far, across steps) at its operation limit.
pub fn out_of_budget(
    now: Instant,
    deadline: Option<Instant>,
    ops_started: u64,
    ops_limit: Option<u64>,
) -> bool {
    deadline.is_some_and(|d| now >= d) || ops_limit.is_some_and(|lim| ops_started >= lim)
}

/// What a ramp measured: all steps together, each step, and the best one.
pub struct RampResult {
    pub totals: Vec<OpAcc>,
    pub steps: Vec<RampStep>,
    pub best: Option<u32>,
    /// Keys of acknowledged writes over all steps (specs with `verify`).
    pub acked: Vec<i64>,
}

/// Run the ramp's steps until the stopping rule says so.
pub async fn run(
    rec: &mut Recorder,
    engine: &Arc<Engine>,
    plan: &RampPlan<'_>,
    counter: Arc<AtomicU64>,
    ops_limit: Option<u64>,
    deadline: Option<Instant>,
) -> RampResult {
    let mut totals: Vec<OpAcc> = (0..rec.n_ops()).map(|_| OpAcc::new()).collect();
    let mut steps = Vec::new();
    let mut acked = Vec::new();
    let mut threads = plan.min;
    loop {
        let bounds = Bounds {
            ops_limit,
            deadline: Some(step_deadline(
                Instant::now(),
                plan.step_duration_s,
                deadline,
            )),
        };
        let load = Load::Closed { threads };
        let mut r = run_phase(rec, engine, Phase::Ramp, load, Arc::clone(&counter), bounds).await;
        acked.append(&mut r.acked);
        let s = total(&r.ops).stats(r.duration_s);
        steps.push(RampStep {
            threads,
            op_rate: s.op_rate,
            p99_ms: s.response.p99_ms,
            errors: s.errors,
        });
        for (acc, src) in totals.iter_mut().zip(r.ops.iter()) {
            acc.add(src);
        }
        let started = counter.load(Ordering::Relaxed);
        if out_of_budget(Instant::now(), deadline, started, ops_limit) || rec.is_stopping() {
            break;
        }
        match plan.next(&steps) {
            Some(t) => threads = t,
            None => break,
        }
    }
    let best = best_threads(&steps);
    RampResult {
        totals,
        steps,
        best,
        acked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cassandra-stress's auto sequence from 4 to 1000 threads, as the stress front end
    /// (`stress_thread_steps`) sends it.
    const STRESS_STEPS: [u32; 13] = [4, 8, 16, 24, 36, 54, 81, 121, 181, 271, 406, 609, 913];

    fn step(threads: u32, op_rate: f64) -> RampStep {
        RampStep {
            threads,
            op_rate,
            p99_ms: 1.0,
            errors: 0,
        }
    }

    fn stress_plan() -> RampPlan<'static> {
        RampPlan {
            min: 4,
            max: 1000,
            factor: 1.5,
            steps: &STRESS_STEPS,
            step_duration_s: 10.0,
            min_gain_pct: 5.0,
            patience: 3,
        }
    }

    /// The concurrencies a ramp visits when a step at `t` threads measures `rate(t)`.
    fn visited(plan: &RampPlan, rate: impl Fn(u32) -> f64) -> Vec<u32> {
        let mut done = vec![step(plan.min, rate(plan.min))];
        while let Some(t) = plan.next(&done) {
            done.push(step(t, rate(t)));
        }
        done.iter().map(|s| s.threads).collect()
    }

    #[test]
    fn the_stress_sequence_stops_three_steps_after_the_plateau() {
        let saturating = |t: u32| 20.0 * t.min(54) as f64;
        assert_eq!(
            visited(&stress_plan(), saturating),
            [4, 8, 16, 24, 36, 54, 81, 121, 181]
        );
        let mut done: Vec<RampStep> = [4, 8, 16, 24, 36, 54, 81, 121, 181]
            .iter()
            .map(|&t| step(t, saturating(t)))
            .collect();
        assert_eq!(best_threads(&done), Some(54), "the earliest of equal rates");
        done.truncate(8);
        assert_eq!(
            stress_plan().next(&done),
            Some(181),
            "two stale steps go on"
        );
    }

    #[test]
    fn a_ramp_that_keeps_gaining_runs_to_the_maximum() {
        let linear = |t: u32| t as f64;
        assert_eq!(visited(&stress_plan(), linear), STRESS_STEPS);
        let capped = RampPlan {
            max: 100,
            ..stress_plan()
        };
        assert_eq!(
            visited(&capped, linear),
            [4, 8, 16, 24, 36, 54, 81],
            "explicit steps above max are skipped"
        );
        let by_factor = RampPlan {
            min: 1,
            max: 10,
            steps: &[],
            ..stress_plan()
        };
        assert_eq!(visited(&by_factor, linear), [1, 2, 3, 5, 8, 10]);
    }

    #[test]
    fn a_gain_of_min_gain_pct_resets_the_patience() {
        let plan = stress_plan();
        // 24 and 36 gain under 5% (stale twice), 54 beats the best by 5%: go on.
        let rates = [
            100.0, 200.0, 300.0, 310.0, 312.0, 328.0, 330.0, 331.0, 332.0,
        ];
        let rate = |t: u32| rates[STRESS_STEPS.iter().position(|&s| s == t).unwrap()];
        assert_eq!(visited(&plan, rate), [4, 8, 16, 24, 36, 54, 81, 121, 181]);
        let patient = RampPlan {
            patience: 1,
            ..plan
        };
        assert_eq!(visited(&patient, rate), [4, 8, 16, 24]);
        assert_eq!(plan.next(&[]), None, "nothing measured, nothing to follow");
    }

    #[test]
    fn a_step_ends_at_its_length_or_the_run_deadline() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        assert_eq!(step_deadline(t0, 10.0, None), t0 + s(10));
        assert_eq!(step_deadline(t0, 10.0, Some(t0 + s(25))), t0 + s(10));
        assert_eq!(
            step_deadline(t0 + s(20), 10.0, Some(t0 + s(25))),
            t0 + s(25)
        );
    }

    #[test]
    fn the_run_budget_is_its_deadline_or_its_operation_count() {
        let t0 = Instant::now();
        let end = Some(t0 + Duration::from_secs(30));
        assert!(!out_of_budget(t0, None, 1_000_000, None));
        assert!(!out_of_budget(t0, end, 99, Some(100)));
        assert!(out_of_budget(t0 + Duration::from_secs(30), end, 0, None));
        assert!(out_of_budget(t0, end, 100, Some(100)));
        // workers take one cycle past the limit before they see it
        assert!(out_of_budget(t0, None, 104, Some(100)));
    }

    #[test]
    fn only_a_ramp_rate_has_a_plan() {
        let ramp = Rate::Ramp {
            min: 2,
            max: 9,
            factor: 2.0,
            step_duration_s: 1.5,
            min_gain_pct: 1.0,
            patience: 2,
            steps: vec![2, 4],
        };
        let plan = RampPlan::of(&ramp).unwrap();
        assert_eq!((plan.min, plan.max, plan.steps), (2, 9, &[2, 4][..]));
        assert_eq!((plan.step_duration_s, plan.patience), (1.5, 2));
        assert!(RampPlan::of(&Rate::Closed { threads: 4 }).is_none());
    }

    #[test]
    fn ramp_steps_grow_by_factor_and_stop_at_max() {
        assert_eq!(next_ramp_threads(4, 1.5, 100), Some(6));
        assert_eq!(next_ramp_threads(1, 1.2, 100), Some(2));
        assert_eq!(next_ramp_threads(90, 1.5, 100), Some(100));
        assert_eq!(next_ramp_threads(100, 1.5, 100), None);
    }

    #[test]
    fn explicit_ramp_steps_replace_the_factor() {
        let steps = [4, 8, 16, 24, 36, 54, 81];
        assert_eq!(next_ramp_step(4, &steps, 1.5, 100), Some(8));
        assert_eq!(next_ramp_step(16, &steps, 1.5, 100), Some(24));
        assert_eq!(next_ramp_step(54, &steps, 1.5, 60), None);
        assert_eq!(next_ramp_step(81, &steps, 1.5, 100), None);
        assert_eq!(next_ramp_step(4, &[], 1.5, 100), Some(6));
    }

    #[test]
    fn ramp_stops_after_patience_steps_without_gain() {
        let rising = [step(1, 100.0), step(2, 200.0), step(3, 300.0)];
        assert!(!ramp_exhausted(&rising, 5.0, 2));
        let flat = [
            step(1, 100.0),
            step(2, 200.0),
            step(3, 203.0),
            step(5, 190.0),
        ];
        assert!(ramp_exhausted(&flat, 5.0, 2));
        assert!(!ramp_exhausted(&flat, 5.0, 3));
        assert_eq!(best_threads(&flat), Some(3));
        assert_eq!(best_threads(&[]), None);
    }
}
