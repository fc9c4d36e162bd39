//! Phases and workers: the warm-up (recorded as `warmup`, left out of the summary and the
//! HDR log), then the measured phase or the thread ramp (`ramp`), then the read-back of
//! acknowledged writes when the spec asks (`verify`), then the summary.
//!
//! A phase spawns its workers, which take cycle numbers from one shared counter, execute
//! them and record into one of a few shards, while the recorder closes an interval every
//! `output.interval_s`.
//!
//! How a phase's limits come about (see [`bounds`]):
//! * closed loop: `stop.ops` caps the cycles handed out, `stop.duration_s` is a deadline
//!   at which the workers stop taking cycles; in-flight operations still finish;
//! * open loop: no deadline; the duration becomes the exact number of operations due in
//!   it (`ceil(d * rate)`), and the smaller of that and `stop.ops` caps the cycles, so
//!   every operation due in the window runs, even if the server stalls at the end;
//! * warm-up: its own `warmup_s` and no operation limit, with a counter of its own;
//! * ramp steps: the step's length cut at the run's deadline, `stop.ops` counted across
//!   steps (see `ramp`).
//!
//! Past a deadline only in-flight operations remain: the tick that falls after it is
//! folded into the phase's last interval instead of writing a sliver of one.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use super::execute::Engine;
use super::open_loop::{due_offset, ops_due_within};
use super::ramp::{self, RampPlan};
use super::recorder::Recorder;
use super::verify;
use crate::spec::{Phase, Rate, WorkloadSpec};
use crate::stats::{take_acked, OpAcc, Shard};

/// How one phase generates load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Load {
    Closed { threads: u32 },
    Open { rate_per_s: f64, max_in_flight: u32 },
}

impl Load {
    /// The load of a rate's warm-up and measured phase (a ramp warms up at its minimum).
    pub fn of(rate: &Rate) -> Load {
        match *rate {
            Rate::Closed { threads } => Load::Closed { threads },
            Rate::Open {
                rate_per_s,
                max_in_flight,
            } => Load::Open {
                rate_per_s,
                max_in_flight,
            },
            Rate::Ramp { min, .. } => Load::Closed { threads: min },
        }
    }

    fn concurrency(&self) -> u32 {
        match self {
            Load::Closed { threads } => *threads,
            Load::Open { max_in_flight, .. } => *max_in_flight,
        }
    }

    /// When the recorder tells the workers to stop: closed loops at the deadline; open
    /// loops stop issuing by due time and still finish (and time) every operation due
    /// before it.
    fn stop_at(&self, deadline: Option<Instant>) -> Option<Instant> {
        match self {
            Load::Closed { .. } => deadline,
            Load::Open { .. } => None,
        }
    }
}

/// A phase's limits: cycles handed out, and when the workers stop taking more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub ops_limit: Option<u64>,
    pub deadline: Option<Instant>,
}

/// The limits of a phase that starts at `now`, from an operation count and a duration.
/// An open loop turns its duration into the exact number of operations due in it, so it
/// neither drops nor adds any.
pub fn bounds(load: Load, ops: Option<u64>, duration_s: Option<f64>, now: Instant) -> Bounds {
    match load {
        Load::Open { rate_per_s, .. } => {
            let due = duration_s.map(|d| ops_due_within(d, rate_per_s));
            let ops_limit = match (ops, due) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            Bounds {
                ops_limit,
                deadline: None,
            }
        }
        Load::Closed { .. } => Bounds {
            ops_limit: ops,
            deadline: duration_s.map(|d| now + Duration::from_secs_f64(d)),
        },
    }
}

/// The recorder's interval clock: when the next interval closes and what span it covers.
#[derive(Debug)]
struct Ticks {
    interval: Duration,
    deadline: Option<Instant>,
    start: Instant,
    next: Instant,
    folded: bool,
}

impl Ticks {
    fn new(t0: Instant, interval: Duration, deadline: Option<Instant>) -> Ticks {
        Ticks {
            interval,
            deadline,
            start: t0,
            next: t0 + interval,
            folded: false,
        }
    }

    /// The tick due at `self.next` fired at `now`: the span of the interval to write, or
    /// None for the first tick at or past the deadline, which is folded into the next.
    /// Ticks missed while the recorder was late are skipped, not written as empty ones.
    fn tick(&mut self, now: Instant) -> Option<(Instant, Instant)> {
        if !self.folded && self.deadline.is_some_and(|d| now >= d) {
            self.folded = true;
            self.next = now + self.interval;
            return None;
        }
        let span = (self.start, now);
        self.start = now;
        self.next += self.interval;
        while self.next <= now {
            self.next += self.interval;
        }
        Some(span)
    }
}

/// Hands out cycle numbers to a phase's workers until the limit or a stop.
struct Cycles {
    counter: Arc<AtomicU64>,
    ops_limit: Option<u64>,
    stop: AtomicBool,
}

impl Cycles {
    #[inline]
    fn next(&self) -> Option<u64> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        let i = self.counter.fetch_add(1, Ordering::Relaxed);
        match self.ops_limit {
            Some(lim) if i >= lim => None,
            _ => Some(i),
        }
    }

    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

struct PhaseCtx {
    engine: Arc<Engine>,
    shards: Vec<Mutex<Shard>>,
    cycles: Cycles,
    deadline: Option<Instant>,
}

async fn closed_worker(ctx: Arc<PhaseCtx>, shard: usize) {
    while let Some(i) = ctx.cycles.next() {
        if !ctx.engine.execute(i, None, &ctx.shards[shard]).await {
            ctx.cycles.stop(); // a token range walk is done: so is the phase
        }
    }
}

async fn open_worker(ctx: Arc<PhaseCtx>, shard: usize, t0: Instant, rate_per_s: f64) {
    while let Some(i) = ctx.cycles.next() {
        let due = t0 + due_offset(i, rate_per_s);
        if ctx.deadline.is_some_and(|end| due >= end) {
            break;
        }
        if due > Instant::now() {
            tokio::time::sleep_until(due.into()).await;
            if ctx.cycles.stopped() {
                break; // interrupted while waiting for the due time
            }
        }
        if !ctx.engine.execute(i, Some(due), &ctx.shards[shard]).await {
            ctx.cycles.stop(); // a token range walk is done: so is the phase
        }
    }
}

/// What one phase measured.
pub struct PhaseResult {
    pub ops: Vec<OpAcc>,
    pub duration_s: f64,
    /// Keys of acknowledged writes (measured and ramp phases of a spec with `verify`).
    pub acked: Vec<i64>,
}

fn holds_data(shards: &[Mutex<Shard>]) -> bool {
    shards.iter().any(|s| {
        s.lock()
            .map(|s| s.ops.iter().any(|o| o.count() > 0 || o.errors > 0))
            .unwrap_or(false)
    })
}

/// Run one phase until its workers finish (ops limit, deadline or interrupt).
pub async fn run_phase(
    rec: &mut Recorder,
    engine: &Arc<Engine>,
    phase: Phase,
    load: Load,
    counter: Arc<AtomicU64>,
    bounds: Bounds,
) -> PhaseResult {
    let n = rec.n_ops();
    let concurrency = load.concurrency().max(1);
    let n_shards = rec.shards_for(concurrency);
    let remember = engine.verifies() && phase != Phase::Warmup;
    let shard = |_| {
        Mutex::new(if remember {
            Shard::remembering(n)
        } else {
            Shard::new(n)
        })
    };
    let ctx = Arc::new(PhaseCtx {
        engine: Arc::clone(engine),
        shards: (0..n_shards).map(shard).collect(),
        cycles: Cycles {
            counter,
            ops_limit: bounds.ops_limit,
            stop: AtomicBool::new(rec.is_stopping()),
        },
        deadline: bounds.deadline,
    });
    let t0 = Instant::now();
    let mut workers = JoinSet::new();
    for w in 0..concurrency as usize {
        let c = Arc::clone(&ctx);
        match load {
            Load::Closed { .. } => workers.spawn(closed_worker(c, w % n_shards)),
            Load::Open { rate_per_s, .. } => {
                workers.spawn(open_worker(c, w % n_shards, t0, rate_per_s))
            }
        };
    }
    let mut scratch: Vec<OpAcc> = (0..n).map(|_| OpAcc::new()).collect();
    let mut phase_acc: Vec<OpAcc> = (0..n).map(|_| OpAcc::new()).collect();
    let mut ticks = Ticks::new(t0, rec.interval(), bounds.deadline);
    let stop_at = load.stop_at(bounds.deadline);
    let far = t0 + Duration::from_secs(86_400 * 365);
    loop {
        tokio::select! {
            joined = workers.join_next() => {
                if joined.is_none() {
                    break;
                }
            }
            _ = tokio::time::sleep_until(ticks.next.into()) => {
                if let Some(span) = ticks.tick(Instant::now()) {
                    rec.emit_interval(
                        phase, concurrency, &ctx.shards, &mut scratch, &mut phase_acc, span,
                    );
                }
            }
            _ = tokio::time::sleep_until(stop_at.unwrap_or(far).into()),
                if stop_at.is_some() && !ctx.cycles.stopped() => {
                ctx.cycles.stop();
            }
            _ = rec.interrupt().notified() => {
                ctx.cycles.stop();
            }
        }
    }
    let end = Instant::now();
    if end.duration_since(ticks.start) > Duration::from_millis(1) || holds_data(&ctx.shards) {
        let span = (ticks.start, end);
        rec.emit_interval(
            phase,
            concurrency,
            &ctx.shards,
            &mut scratch,
            &mut phase_acc,
            span,
        );
    }
    PhaseResult {
        ops: phase_acc,
        duration_s: end.duration_since(t0).as_secs_f64(),
        acked: take_acked(&ctx.shards),
    }
}

/// Warm-up (discarded), then the measured phase or the thread ramp, then the summary.
pub async fn run(spec: &WorkloadSpec, engine: Arc<Engine>, rec: &mut Recorder) {
    if spec.warmup_s > 0.0 && !rec.is_stopping() {
        let load = Load::of(&spec.rate);
        let limits = bounds(load, None, Some(spec.warmup_s), Instant::now());
        let counter = Arc::new(AtomicU64::new(0));
        run_phase(rec, &engine, Phase::Warmup, load, counter, limits).await;
        engine.restart_walks();
    }

    let counter = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let (totals, steps, best, acked) = match RampPlan::of(&spec.rate) {
        None => {
            let load = Load::of(&spec.rate);
            let limits = bounds(load, spec.stop.ops, spec.stop.duration_s, start);
            let r = run_phase(rec, &engine, Phase::Measure, load, counter, limits).await;
            (r.ops, Vec::new(), None, r.acked)
        }
        Some(plan) => {
            let deadline = spec
                .stop
                .duration_s
                .map(|d| start + Duration::from_secs_f64(d));
            let r = ramp::run(rec, &engine, &plan, counter, spec.stop.ops, deadline).await;
            (r.totals, r.steps, r.best, r.acked)
        }
    };
    let duration_s = start.elapsed().as_secs_f64();
    let verified = match &spec.verify {
        Some(v) => verify::verify(&engine, acked, v.consistency, rec).await,
        None => None,
    };
    rec.summary(&totals, duration_s, steps, best, verified);
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLOSED: Load = Load::Closed { threads: 8 };
    const OPEN: Load = Load::Open {
        rate_per_s: 1000.0,
        max_in_flight: 64,
    };

    fn s(secs: f64) -> Duration {
        Duration::from_secs_f64(secs)
    }

    #[test]
    fn a_closed_loop_stops_at_its_ops_or_its_deadline() {
        let now = Instant::now();
        let both = bounds(CLOSED, Some(500), Some(30.0), now);
        assert_eq!(
            both,
            Bounds {
                ops_limit: Some(500),
                deadline: Some(now + s(30.0))
            }
        );
        assert_eq!(bounds(CLOSED, None, Some(2.5), now).ops_limit, None);
        assert_eq!(bounds(CLOSED, Some(7), None, now).deadline, None);
        assert_eq!(
            bounds(CLOSED, None, None, now),
            Bounds {
                ops_limit: None,
                deadline: None
            }
        );
    }

    #[test]
    fn an_open_loop_turns_its_duration_into_the_operations_due() {
        let now = Instant::now();
        let only = |ops, d| bounds(OPEN, ops, d, now);
        assert_eq!(only(None, Some(2.0)).ops_limit, Some(2000));
        assert_eq!(
            only(None, Some(0.0015)).ops_limit,
            Some(2),
            "due at 0 and 1 ms"
        );
        assert_eq!(only(Some(500), Some(2.0)).ops_limit, Some(500));
        assert_eq!(only(Some(5000), Some(2.0)).ops_limit, Some(2000));
        assert_eq!(only(Some(5000), None).ops_limit, Some(5000));
        assert_eq!(only(None, None).ops_limit, None);
        assert!([None, Some(2.0)]
            .iter()
            .all(|d| only(Some(1), *d).deadline.is_none()));
    }

    #[test]
    fn only_closed_loops_are_stopped_at_the_deadline() {
        let end = Some(Instant::now() + s(1.0));
        assert_eq!(CLOSED.stop_at(end), end);
        assert_eq!(OPEN.stop_at(end), None);
        assert_eq!((CLOSED.concurrency(), OPEN.concurrency()), (8, 64));
    }

    #[test]
    fn warm_up_runs_the_rate_and_a_ramp_warms_up_at_its_minimum() {
        assert_eq!(Load::of(&Rate::Closed { threads: 8 }), CLOSED);
        let open = Rate::Open {
            rate_per_s: 1000.0,
            max_in_flight: 64,
        };
        assert_eq!(Load::of(&open), OPEN);
        let ramp = Rate::Ramp {
            min: 4,
            max: 100,
            factor: 1.5,
            step_duration_s: 10.0,
            min_gain_pct: 5.0,
            patience: 3,
            steps: vec![],
        };
        assert_eq!(Load::of(&ramp), Load::Closed { threads: 4 });
    }

    #[test]
    fn intervals_tile_the_phase() {
        let t0 = Instant::now();
        let mut ticks = Ticks::new(t0, s(1.0), None);
        assert_eq!(ticks.next, t0 + s(1.0));
        assert_eq!(ticks.tick(t0 + s(1.0)), Some((t0, t0 + s(1.0))));
        // a late recorder writes the longer interval and skips the missed ticks
        assert_eq!(ticks.tick(t0 + s(3.7)), Some((t0 + s(1.0), t0 + s(3.7))));
        assert_eq!(ticks.next, t0 + s(4.0));
        assert_eq!(ticks.start, t0 + s(3.7));
    }

    #[test]
    fn the_tick_past_the_deadline_folds_into_the_last_interval() {
        let t0 = Instant::now();
        let mut ticks = Ticks::new(t0, s(1.0), Some(t0 + s(2.5)));
        assert_eq!(ticks.tick(t0 + s(1.0)), Some((t0, t0 + s(1.0))));
        assert_eq!(ticks.tick(t0 + s(2.0)), Some((t0 + s(1.0), t0 + s(2.0))));
        assert_eq!(ticks.tick(t0 + s(3.0)), None, "only in-flight ops remain");
        assert_eq!(ticks.next, t0 + s(4.0));
        assert_eq!(ticks.start, t0 + s(2.0), "the open interval goes on");
        assert_eq!(ticks.tick(t0 + s(4.0)), Some((t0 + s(2.0), t0 + s(4.0))));
        let mut at = Ticks::new(t0, s(1.0), Some(t0 + s(1.0)));
        assert_eq!(at.tick(t0 + s(1.0)), None, "a tick at the deadline folds");
    }

    #[test]
    fn cycles_stop_at_the_limit_or_on_stop() {
        let counter = Arc::new(AtomicU64::new(0));
        let cycles = Cycles {
            counter: Arc::clone(&counter),
            ops_limit: Some(3),
            stop: AtomicBool::new(false),
        };
        let taken: Vec<_> = std::iter::from_fn(|| cycles.next()).collect();
        assert_eq!(taken, [0, 1, 2]);
        assert_eq!(counter.load(Ordering::Relaxed), 4, "one past the limit");
        // the next ramp step shares the counter, and so the run's limit
        let next_step = Cycles {
            counter,
            ops_limit: Some(3),
            stop: AtomicBool::new(false),
        };
        assert_eq!(next_step.next(), None);
        let open = Cycles {
            counter: Arc::new(AtomicU64::new(0)),
            ops_limit: None,
            stop: AtomicBool::new(false),
        };
        assert_eq!((open.next(), open.next()), (Some(0), Some(1)));
        open.stop();
        assert!(open.stopped());
        assert_eq!(open.next(), None);
    }

    #[test]
    fn leftover_records_make_a_last_interval() {
        let shards = vec![Mutex::new(Shard::new(2)), Mutex::new(Shard::new(2))];
        assert!(!holds_data(&shards));
        shards[1].lock().unwrap().ops[1].fail(crate::spec::ErrorKind::Other);
        assert!(holds_data(&shards));
    }
}
