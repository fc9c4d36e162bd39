//! The workload as pure functions of the cycle number: which operation, which key, which
//! values; plus open-loop due times and the thread-ramp decisions.

use std::time::Duration;

use crate::dist::Dist;
use crate::gen::{Gen, Value};
use crate::hash::{mix, unit};
use crate::spec::{GenKind, OpKind, RampStep, WorkloadSpec};

const STREAM_OP: u64 = 0x0F0F_0001;
const STREAM_KEY: u64 = 0x0F0F_0002;

/// Picks an operation index from a uniform double, by weight.
#[derive(Debug, Clone)]
pub struct Chooser {
    cumulative: Vec<f64>, // normalised, last == 1.0
}

impl Chooser {
    pub fn new(weights: &[f64]) -> Chooser {
        let sum: f64 = weights.iter().sum();
        let mut acc = 0.0;
        let mut cumulative: Vec<f64> = weights
            .iter()
            .map(|w| {
                acc += w / sum;
                acc
            })
            .collect();
        if let Some(last) = cumulative.last_mut() {
            *last = 1.0;
        }
        Chooser { cumulative }
    }

    #[inline]
    pub fn pick(&self, u: f64) -> usize {
        if self.cumulative.len() == 1 {
            return 0;
        }
        self.cumulative
            .iter()
            .position(|&c| u < c)
            .unwrap_or(self.cumulative.len() - 1)
    }
}

/// One operation type, compiled.
#[derive(Debug, Clone)]
pub struct OpPlan {
    pub kind: OpKind,
    pub keys: Option<Dist>,
    pub binds: Vec<Vec<Gen>>, // per statement
    pub validate: Vec<Gen>,
    pub idempotent: bool,
}

/// Everything about the workload that does not talk to the cluster.
#[derive(Debug, Clone)]
pub struct Workload {
    pub seed: u64,
    pub keys: Dist,
    pub ops: Vec<OpPlan>,
    chooser: Chooser,
}

impl Workload {
    pub fn new(spec: &WorkloadSpec) -> Result<Workload, String> {
        let keys = Dist::new(&spec.keys).map_err(|e| format!("keys: {e}"))?;
        let mut ops = Vec::with_capacity(spec.operations.len());
        for op in &spec.operations {
            let ctx = |e: String| format!("operation {:?}: {e}", op.name);
            let keys = match &op.keys {
                Some(d) => Some(Dist::new(d).map_err(ctx)?),
                None => None,
            };
            let binds = op
                .statements
                .iter()
                .map(|s| s.binds.iter().map(Gen::new).collect::<Result<Vec<_>, _>>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(ctx)?;
            let validate = op
                .validate_columns
                .iter()
                .map(Gen::new)
                .collect::<Result<Vec<_>, _>>()
                .map_err(ctx)?;
            if op
                .validate_columns
                .iter()
                .any(|g| g.kind == GenKind::ScanLength)
            {
                return Err(ctx("validate_columns cannot hold scan_length".into()));
            }
            ops.push(OpPlan {
                kind: op.kind,
                keys,
                binds,
                validate,
                idempotent: op.idempotent,
            });
        }
        let weights: Vec<f64> = spec.operations.iter().map(|o| o.weight).collect();
        Ok(Workload {
            seed: spec.seed as u64,
            keys,
            ops,
            chooser: Chooser::new(&weights),
        })
    }

    /// Operation index and key of cycle `i`.
    #[inline]
    pub fn plan(&self, i: u64) -> (usize, i64) {
        let op = self.chooser.pick(unit(mix(self.seed, STREAM_OP, i)));
        let dist = self.ops[op].keys.as_ref().unwrap_or(&self.keys);
        (op, dist.sample(i, mix(self.seed, STREAM_KEY, i)))
    }

    /// Bind values of statement `stmt` of operation `op` for `key` at cycle `i`.
    pub fn values(&self, op: usize, stmt: usize, key: i64, i: u64) -> Vec<Value> {
        self.ops[op].binds[stmt]
            .iter()
            .map(|g| g.value(self.seed, key, i))
            .collect()
    }

    /// The row a validating read of `key` must find, in select order.
    pub fn expected_row(&self, op: usize, key: i64, i: u64) -> Vec<Value> {
        self.ops[op]
            .validate
            .iter()
            .map(|g| g.value(self.seed, key, i))
            .collect()
    }
}

/// Offset from the open loop's start at which operation `i` is due.
#[inline]
pub fn due_offset(i: u64, rate_per_s: f64) -> Duration {
    Duration::from_secs_f64(i as f64 / rate_per_s)
}

/// How many operations an open loop at `rate_per_s` has due in `[0, duration_s)`.
pub fn ops_due_within(duration_s: f64, rate_per_s: f64) -> u64 {
    (duration_s * rate_per_s).ceil().max(0.0) as u64
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

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(ops: &str) -> WorkloadSpec {
        let text = format!(
            r#"{{"connection": {{"contact_points": ["127.0.0.1:9042"]}},
                "operations": {ops},
                "keys": {{"kind": "uniform", "min": 1, "max": 1000}},
                "rate": {{"mode": "closed", "threads": 1}}, "stop": {{"ops": 10}}, "seed": 7}}"#
        );
        WorkloadSpec::from_json(&text).unwrap()
    }

    const MIXED: &str = r#"[
        {"name": "write", "kind": "write", "weight": 9, "statements": [{"cql": "W",
         "binds": [{"kind": "key_blob", "column": "key"}, {"kind": "blob", "column": "C0"}]}]},
        {"name": "read", "kind": "read", "weight": 1, "statements": [{"cql": "R",
         "binds": [{"kind": "key_blob", "column": "key"}]}],
         "validate_columns": [{"kind": "blob", "column": "C0"}],
         "keys": {"kind": "seq", "min": 1, "max": 5}}
    ]"#;

    #[test]
    fn weighted_choice_follows_the_weights() {
        let w = Workload::new(&spec(MIXED)).unwrap();
        let n = 100_000u64;
        let reads = (0..n).filter(|&i| w.plan(i).0 == 1).count();
        let share = reads as f64 / n as f64;
        assert!((0.095..0.105).contains(&share), "read share {share}");
        let c = Chooser::new(&[1.0, 2.0, 1.0]);
        assert_eq!(c.pick(0.0), 0);
        assert_eq!(c.pick(0.26), 1);
        assert_eq!(c.pick(0.74), 1);
        assert_eq!(c.pick(0.76), 2);
        assert_eq!(c.pick(0.999_999), 2);
    }

    #[test]
    fn plan_is_a_pure_function_of_seed_and_cycle() {
        let a = Workload::new(&spec(MIXED)).unwrap();
        let b = Workload::new(&spec(MIXED)).unwrap();
        for i in 0..1000 {
            assert_eq!(a.plan(i), b.plan(i));
            let (op, key) = a.plan(i);
            assert_eq!(a.values(op, 0, key, i), b.values(op, 0, key, i));
            if op == 1 {
                assert!((1..=5).contains(&key), "per-op keys override: {key}");
            } else {
                assert!((1..=1000).contains(&key));
            }
        }
        let mut other = spec(MIXED);
        other.seed = 8;
        let c = Workload::new(&other).unwrap();
        assert!((0..100).any(|i| a.plan(i) != c.plan(i)));
    }

    #[test]
    fn a_read_expects_what_the_write_of_that_key_stored() {
        let w = Workload::new(&spec(MIXED)).unwrap();
        let written = w.values(0, 0, 3, 11);
        let expected = w.expected_row(1, 3, 999);
        assert_eq!(written[1], expected[0]);
    }

    #[test]
    fn due_times_are_i_over_rate() {
        assert_eq!(due_offset(0, 2000.0), Duration::ZERO);
        assert_eq!(due_offset(2000, 2000.0), Duration::from_secs(1));
        assert_eq!(due_offset(1, 4.0), Duration::from_millis(250));
        let late = due_offset(30_000_000_000, 1_000_000.0);
        assert_eq!(late, Duration::from_secs(30_000));
        assert_eq!(ops_due_within(15.0, 2000.0), 30_000);
        assert_eq!(ops_due_within(1.0, 3.0), 3);
        assert_eq!(ops_due_within(0.5, 3.0), 2); // due at 0 and 1/3 s
        for n in [1u64, 7, 30_000] {
            // every counted op is due inside the window, the next one is not
            let (d, r) = (n as f64 / 2000.0, 2000.0);
            let k = ops_due_within(d, r);
            assert!(due_offset(k - 1, r).as_secs_f64() < d);
            assert!(due_offset(k, r).as_secs_f64() >= d - 1e-12);
        }
    }

    fn step(threads: u32, op_rate: f64) -> RampStep {
        RampStep {
            threads,
            op_rate,
            p99_ms: 1.0,
            errors: 0,
        }
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
