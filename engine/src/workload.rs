//! The workload as pure functions of the cycle number: which operation, which key, which
//! values; plus open-loop due times and the thread-ramp decisions.

use std::time::Duration;

use std::collections::HashSet;

use crate::dist::Dist;
use crate::gen::{Gen, RowPos, Value};
use crate::hash::{below, mix, unit};
use crate::spec::{GenKind, OpKind, RampStep, WorkloadSpec};

const STREAM_OP: u64 = 0x0F0F_0001;
const STREAM_KEY: u64 = 0x0F0F_0002;
const STREAM_LEVELS: u64 = 0x0F0F_0003;
const STREAM_ROW: u64 = 0x0F0F_0004;
const STREAM_PICK: u64 = 0x0F0F_0005;
const STREAM_PARTITIONS: u64 = 0x0F0F_0006;
const STREAM_SELECT: u64 = 0x0F0F_0007;

/// Rows in one batch statement at most (the native protocol counts them in 16 bits).
pub const MAX_BATCH_ROWS: usize = 65_535;

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

/// A batch insert, compiled.
#[derive(Debug, Clone)]
pub struct BatchPlan {
    pub partitions: Dist,
    pub partitions_max: u64,
    pub select: Dist,
    pub select_divisor: f64,
}

/// One operation type, compiled.
#[derive(Debug, Clone)]
pub struct OpPlan {
    pub kind: OpKind,
    pub keys: Option<Dist>,
    pub binds: Vec<Vec<Gen>>, // per statement
    pub validate: Vec<Gen>,
    pub idempotent: bool,
    pub clustering: Vec<Dist>,
    pub batch: Option<BatchPlan>,
}

/// One row an operation writes or reads: its partition key and, in a partition with
/// clustering levels, its place there.
#[derive(Debug, Clone, PartialEq)]
pub struct RowRef {
    pub key: i64,
    pub row: Option<RowPos>,
}

/// Everything about the workload that does not talk to the cluster.
#[derive(Debug, Clone)]
pub struct Workload {
    pub seed: u64,
    pub keys: Dist,
    pub ops: Vec<OpPlan>,
    /// Per operation: its place in `report_names` (operations sharing a name report as one).
    pub slots: Vec<usize>,
    chooser: Chooser,
}

/// The distinct operation names in order of first appearance, and each operation's index
/// among them: operations that share a name (e.g. one READ per YCSB field) report as one.
pub fn report_names(names: &[&str]) -> (Vec<String>, Vec<usize>) {
    let mut distinct: Vec<String> = Vec::new();
    let slots = names
        .iter()
        .map(|&n| match distinct.iter().position(|d| d == n) {
            Some(i) => i,
            None => {
                distinct.push(n.to_string());
                distinct.len() - 1
            }
        })
        .collect();
    (distinct, slots)
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
            let clustering = op
                .clustering
                .iter()
                .map(Dist::new)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ctx(format!("clustering: {e}")))?;
            let batch = match &op.batch {
                Some(b) => Some(BatchPlan {
                    partitions: Dist::new(&b.partitions)
                        .map_err(|e| ctx(format!("batch partitions: {e}")))?,
                    partitions_max: b.partitions.max.max(1) as u64,
                    select: Dist::new(&b.select).map_err(|e| ctx(format!("batch select: {e}")))?,
                    select_divisor: b.select_divisor,
                }),
                None => None,
            };
            ops.push(OpPlan {
                kind: op.kind,
                keys,
                binds,
                validate,
                idempotent: op.idempotent,
                clustering,
                batch,
            });
        }
        let weights: Vec<f64> = spec.operations.iter().map(|o| o.weight).collect();
        let names: Vec<&str> = spec.operations.iter().map(|o| o.name.as_str()).collect();
        Ok(Workload {
            seed: spec.seed as u64,
            keys,
            ops,
            slots: report_names(&names).1,
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

    /// Bind values of statement `stmt` of operation `op` for one row at cycle `i`.
    pub fn row_values(&self, op: usize, stmt: usize, r: &RowRef, i: u64) -> Vec<Value> {
        self.ops[op].binds[stmt]
            .iter()
            .map(|g| g.value_in_row(self.seed, r.key, r.row.as_ref(), i))
            .collect()
    }

    /// Values on each clustering level of partition `key` (drawn once per partition).
    pub fn level_counts(&self, op: usize, key: i64) -> Vec<u64> {
        self.ops[op]
            .clustering
            .iter()
            .enumerate()
            .map(|(level, d)| {
                let h = mix(self.seed, STREAM_LEVELS ^ level as u64, key as u64);
                d.sample(key as u64, h).max(1) as u64
            })
            .collect()
    }

    /// The row at `index` (0-based, last level varying fastest) of partition `key`.
    pub fn row_at(&self, key: i64, counts: &[u64], index: u64) -> RowPos {
        let mut positions = vec![0u64; counts.len()];
        let mut rest = index;
        for (p, &n) in positions.iter_mut().zip(counts).rev() {
            *p = rest % n;
            rest /= n;
        }
        let mut id = mix(self.seed, STREAM_ROW, key as u64);
        let ids = positions
            .iter()
            .map(|&p| {
                id = mix(self.seed, id, p);
                id
            })
            .collect();
        RowPos { positions, ids }
    }

    /// The one row a single-row operation touches at cycle `i`: any row of the partition,
    /// uniformly; None for partitions without clustering levels.
    pub fn pick_row(&self, op: usize, key: i64, i: u64) -> Option<RowPos> {
        if self.ops[op].clustering.is_empty() {
            return None;
        }
        let counts = self.level_counts(op, key);
        let n = rows_in(&counts);
        let index = below(mix(self.seed, STREAM_PICK, i), n);
        Some(self.row_at(key, &counts, index))
    }

    /// The rows a batch operation writes at cycle `i` (partitions in order, rows of each
    /// in partition order) and the number of partitions. `key` is the cycle's key, the
    /// first partition when the batch has one partition at most.
    pub fn batch_rows(&self, op: usize, key: i64, i: u64) -> (Vec<RowRef>, u64) {
        let plan = &self.ops[op];
        let Some(batch) = &plan.batch else {
            let row = self.pick_row(op, key, i);
            return (vec![RowRef { key, row }], 1);
        };
        let parts = batch
            .partitions
            .sample(i, mix(self.seed, STREAM_PARTITIONS, i))
            .clamp(1, batch.partitions_max as i64) as u64;
        let dist = plan.keys.as_ref().unwrap_or(&self.keys);
        let mut rows = Vec::new();
        for p in 0..parts {
            let slot = i.wrapping_mul(batch.partitions_max).wrapping_add(p);
            let k = if batch.partitions_max == 1 {
                key
            } else {
                dist.sample(slot, mix(self.seed, STREAM_KEY, slot))
            };
            if plan.clustering.is_empty() {
                rows.push(RowRef { key: k, row: None });
                continue;
            }
            let counts = self.level_counts(op, k);
            let n = rows_in(&counts);
            let h = mix(self.seed, STREAM_SELECT, slot);
            let ratio = batch.select.sample(slot, h) as f64 / batch.select_divisor;
            let take = ((ratio * n as f64).round() as u64).clamp(1, n);
            for index in choose_distinct(n, take, h) {
                rows.push(RowRef {
                    key: k,
                    row: Some(self.row_at(k, &counts, index)),
                });
            }
        }
        (rows, parts)
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

/// Rows in a partition with `counts` values per clustering level (saturating).
pub fn rows_in(counts: &[u64]) -> u64 {
    counts
        .iter()
        .fold(1u64, |acc, &n| acc.saturating_mul(n.max(1)))
}

/// `take` distinct indices of `0..n`, ascending, as a pure function of `h`
/// (Floyd's sampling: `take` draws, whatever `n`).
pub fn choose_distinct(n: u64, take: u64, h: u64) -> Vec<u64> {
    if take >= n {
        return (0..n).collect();
    }
    let mut chosen = HashSet::with_capacity(take as usize);
    for j in (n - take)..n {
        let t = below(mix(h, STREAM_PICK, j), j + 1);
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    let mut out: Vec<u64> = chosen.into_iter().collect();
    out.sort_unstable();
    out
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
            let r = RowRef { key, row: None };
            assert_eq!(a.row_values(op, 0, &r, i), b.row_values(op, 0, &r, i));
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
        let written = w.row_values(0, 0, &RowRef { key: 3, row: None }, 11);
        let expected = w.expected_row(1, 3, 999);
        assert_eq!(written[1], expected[0]);
    }

    const BATCH: &str = r#"[
        {"name": "insert", "kind": "write", "weight": 1,
         "clustering": [{"kind": "uniform", "min": 20, "max": 40},
                        {"kind": "uniform", "min": 1, "max": 4}],
         "batch": {"partitions": {"kind": "fixed", "min": 1, "max": 1},
                   "select": {"kind": "uniform", "min": 1, "max": 10}, "select_divisor": 10,
                   "batch_type": "unlogged"},
         "statements": [{"cql": "I", "binds": [
            {"kind": "text", "column": "name"},
            {"kind": "text", "column": "date", "level": 1},
            {"kind": "bigint", "column": "lval", "level": 2,
             "values": {"kind": "uniform", "min": 1, "max": 1000000000}},
            {"kind": "blob", "column": "value", "level": 2}]}]},
        {"name": "many", "kind": "write", "weight": 1,
         "batch": {"partitions": {"kind": "fixed", "min": 3, "max": 3},
                   "select": {"kind": "fixed", "min": 1, "max": 1}},
         "keys": {"kind": "seq", "min": 1, "max": 1000},
         "statements": [{"cql": "J", "binds": [{"kind": "key_bigint", "column": "k"}]}]}
    ]"#;

    #[test]
    fn a_batch_writes_a_share_of_distinct_rows_of_one_partition() {
        let w = Workload::new(&spec(BATCH)).unwrap();
        let mut sizes = Vec::new();
        for i in 0..300u64 {
            let (_, key) = w.plan(i);
            let counts = w.level_counts(0, key);
            assert!((20..=40).contains(&counts[0]) && (1..=4).contains(&counts[1]));
            assert_eq!(
                counts,
                w.level_counts(0, key),
                "a partition's shape is fixed"
            );
            let n = rows_in(&counts);
            let (rows, parts) = w.batch_rows(0, key, i);
            assert_eq!(parts, 1);
            assert!(!rows.is_empty() && rows.len() as u64 <= n);
            assert!(rows.iter().all(|r| r.key == key));
            let values: Vec<_> = rows.iter().map(|r| w.row_values(0, 0, r, i)).collect();
            let mut distinct = values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>();
            distinct.dedup();
            assert_eq!(distinct.len(), rows.len(), "rows of a batch differ");
            assert!(
                values.iter().all(|v| v[0] == values[0][0]),
                "one partition key"
            );
            sizes.push(rows.len() as f64 / n as f64);
            assert_eq!(w.batch_rows(0, key, i), (rows, parts), "pure in the cycle");
        }
        let mean = sizes.iter().sum::<f64>() / sizes.len() as f64;
        assert!(
            (0.5..0.6).contains(&mean),
            "select uniform(1..10)/10: mean {mean}"
        );
    }

    #[test]
    fn a_read_picks_an_existing_row_of_the_partition() {
        let w = Workload::new(&spec(BATCH)).unwrap();
        let key = 17;
        let counts = w.level_counts(0, key);
        let all: Vec<_> = (0..rows_in(&counts))
            .map(|r| w.row_at(key, &counts, r))
            .collect();
        for i in 0..200 {
            let row = w.pick_row(0, key, i).unwrap();
            assert!(all.contains(&row));
        }
        assert_eq!(w.pick_row(1, key, 0), None);
    }

    #[test]
    fn multi_partition_batches_take_consecutive_seq_keys() {
        let w = Workload::new(&spec(BATCH)).unwrap();
        let (rows, parts) = w.batch_rows(1, 0, 2);
        assert_eq!(parts, 3);
        let keys: Vec<i64> = rows.iter().map(|r| r.key).collect();
        assert_eq!(keys, vec![7, 8, 9]);
    }

    #[test]
    fn floyd_sampling_gives_distinct_sorted_indices() {
        for (n, take) in [(10u64, 3u64), (75, 41), (5, 5), (5, 9), (1_000_000, 7)] {
            let got = choose_distinct(n, take, 99);
            assert_eq!(got.len() as u64, take.min(n));
            assert!(got.windows(2).all(|w| w[0] < w[1]));
            assert!(got.iter().all(|&x| x < n));
        }
        assert_eq!(rows_in(&[30, 3]), 90);
        assert_eq!(rows_in(&[]), 1);
        assert_eq!(rows_in(&[u64::MAX, 2]), u64::MAX);
    }

    #[test]
    fn operations_sharing_a_name_report_as_one() {
        let (names, slots) = report_names(&["READ", "UPDATE", "READ", "SCAN", "UPDATE"]);
        assert_eq!(names, vec!["READ", "UPDATE", "SCAN"]);
        assert_eq!(slots, vec![0, 1, 0, 2, 1]);
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
