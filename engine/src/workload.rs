//! The workload as pure functions of the cycle number: which operation, which key, which
//! values. Where a row sits in its partition and which rows a batch writes: [`rows`].
//!
//! Two seeds, two jobs. The operation sequence (which operation and key cycle *i* takes,
//! which row of a partition a single-row operation touches, how many partitions and which
//! rows a batch picks, a scan's length) is drawn from `seed`. The data (every value written
//! or validated, per key or per cycle, and the shape and row ids of each partition) is
//! drawn from `data_seed`, never from `seed`: a measured phase with its own `seed` reads
//! back what a preload with the same `data_seed` wrote.

use std::sync::Arc;

use crate::dist::Dist;
use crate::gen::{Gen, RowPos, Value};
use crate::hash::{mix, unit};
use crate::spec::{GenKind, OpKind, WorkloadSpec};
use crate::vectors::Vectors;

mod rows;

pub use rows::{RowRef, MAX_BATCH_ROWS};

// Hash streams: every random choice draws from its own, so none reuses another's hash.
const STREAM_OP: u64 = 0x0F0F_0001;
const STREAM_KEY: u64 = 0x0F0F_0002;
const STREAM_LEVELS: u64 = 0x0F0F_0003;
const STREAM_ROW: u64 = 0x0F0F_0004;
const STREAM_PICK: u64 = 0x0F0F_0005;
const STREAM_PARTITIONS: u64 = 0x0F0F_0006;
const STREAM_SELECT: u64 = 0x0F0F_0007;

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
    /// The column each validated value is read from (by name in the result).
    pub validate_names: Vec<String>,
    pub idempotent: bool,
    pub clustering: Vec<Dist>,
    pub batch: Option<BatchPlan>,
    /// An LWT: the last statement's `[applied]` is counted.
    pub conditional: bool,
    /// Read-first LWT: where statement 1 takes the values statement 0 read.
    pub condition_binds: Vec<usize>,
    /// An ANN search whose recall@k is counted.
    pub recall_k: Option<u32>,
    /// A write of a `base_vector`: its acknowledgement inserts the key's base row (search
    /// while loading).
    pub writes_base_vector: bool,
}

/// Everything about the workload that does not talk to the cluster.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Draws the operation sequence.
    pub seed: u64,
    /// Draws the data: values, partition shapes, row ids.
    pub data_seed: u64,
    pub keys: Dist,
    pub ops: Vec<OpPlan>,
    /// Per operation: its place in `report_names` (operations sharing a name report as one).
    pub slots: Vec<usize>,
    /// The read-back statement's binds (spec `verify`), functions of the key alone.
    pub verify: Option<Vec<Gen>>,
    /// The vector dataset (spec `vectors`), opened by [`Workload::load`].
    pub vectors: Option<Arc<Vectors>>,
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
    /// Compile a checked spec (`WorkloadSpec::from_json` runs every rule): each
    /// distribution and generator ready to sample.
    pub fn new(spec: &WorkloadSpec) -> Workload {
        assert!(spec.check().is_ok(), "compile a checked spec");
        let ops = spec
            .operations
            .iter()
            .map(|op| OpPlan {
                kind: op.kind,
                keys: op.keys.as_ref().map(Dist::new),
                binds: op
                    .statements
                    .iter()
                    .map(|s| s.binds.iter().map(Gen::new).collect())
                    .collect(),
                validate: op.validate_columns.iter().map(Gen::new).collect(),
                validate_names: op
                    .validate_columns
                    .iter()
                    .map(|g| g.column.clone())
                    .collect(),
                idempotent: op.idempotent,
                clustering: op.clustering.iter().map(Dist::new).collect(),
                batch: op.batch.as_ref().map(|b| BatchPlan {
                    partitions: Dist::new(&b.partitions),
                    partitions_max: b.partitions.max.max(1) as u64,
                    select: Dist::new(&b.select),
                    select_divisor: b.select_divisor,
                }),
                conditional: op.conditional,
                condition_binds: op.condition_binds.clone(),
                recall_k: op.recall_k,
                writes_base_vector: op.kind == OpKind::Write
                    && op
                        .statements
                        .iter()
                        .any(|s| s.binds.iter().any(|g| g.kind == GenKind::BaseVector)),
            })
            .collect();
        let weights: Vec<f64> = spec.operations.iter().map(|o| o.weight).collect();
        let names: Vec<&str> = spec.operations.iter().map(|o| o.name.as_str()).collect();
        Workload {
            seed: spec.seed as u64,
            data_seed: spec.data_seed as u64,
            keys: Dist::new(&spec.keys),
            ops,
            slots: report_names(&names).1,
            verify: spec
                .verify
                .as_ref()
                .map(|v| v.statement.binds.iter().map(Gen::new).collect()),
            vectors: None,
            chooser: Chooser::new(&weights),
        }
    }

    /// [`Workload::new`], with the vector dataset's files opened (memory-mapped) and
    /// checked against the spec: the I/O a run needs before it starts.
    pub fn load(spec: &WorkloadSpec) -> Result<Workload, String> {
        let mut w = Workload::new(spec);
        if let Some(files) = &spec.vectors {
            let v = Vectors::open(files)?;
            if let Some((op, k)) = spec
                .operations
                .iter()
                .filter_map(|o| o.recall_k.map(|k| (o, k)))
                .find(|(_, k)| *k as usize > v.truth.dim)
            {
                return Err(format!(
                    "operation {:?}: recall_k {k} is deeper than the ground truth's {} \
                     neighbours per query ({:?}); lower k",
                    op.name, v.truth.dim, files.ground_truth
                ));
            }
            w.vectors = Some(Arc::new(v));
        }
        Ok(w)
    }

    /// Operation index and key of cycle `i`.
    #[inline]
    pub fn plan(&self, i: u64) -> (usize, i64) {
        let op = self.chooser.pick(unit(mix(self.seed, STREAM_OP, i)));
        let dist = self.ops[op].keys.as_ref().unwrap_or(&self.keys);
        (op, dist.sample(i, mix(self.seed, STREAM_KEY, i)))
    }

    /// The seed generator `g` draws from: `data_seed` for data, `seed` for a part of the
    /// operation (a scan's length).
    #[inline]
    fn seed_of(&self, g: &Gen) -> u64 {
        if g.is_data() {
            self.data_seed
        } else {
            self.seed
        }
    }

    /// Bind values of statement `stmt` of operation `op` for one row at cycle `i`.
    pub fn row_values(&self, op: usize, stmt: usize, r: &RowRef, i: u64) -> Vec<Value> {
        self.ops[op].binds[stmt]
            .iter()
            .map(|g| match (g.kind(), &self.vectors) {
                (GenKind::BaseVector, Some(v)) => v.base_value(r.key),
                (GenKind::QueryVector, Some(v)) => v.query_value(i),
                _ => g.value_in_row(self.seed_of(g), r.key, r.row.as_ref(), i),
            })
            .collect()
    }

    /// Bind values of the read-back of `key` (spec `verify`): each generator evaluated for
    /// `key` as a write of that key evaluates it, so the partition key matches.
    pub fn verify_values(&self, key: i64) -> Vec<Value> {
        self.verify.as_ref().map_or_else(Vec::new, |binds| {
            binds
                .iter()
                .map(|g| g.value(self.seed_of(g), key, 0))
                .collect()
        })
    }

    /// The row a validating read of `key` (at `row` of its partition) must find, in
    /// select order.
    pub fn expected_row(&self, op: usize, key: i64, row: Option<&RowPos>, i: u64) -> Vec<Value> {
        self.ops[op]
            .validate
            .iter()
            .map(|g| g.value_in_row(self.seed_of(g), key, row, i))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn spec(ops: &str) -> WorkloadSpec {
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
        let w = Workload::new(&spec(MIXED));
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
        let a = Workload::new(&spec(MIXED));
        let b = Workload::new(&spec(MIXED));
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
        let c = Workload::new(&other);
        assert!((0..100).any(|i| a.plan(i) != c.plan(i)));
    }

    #[test]
    fn a_read_expects_what_the_write_of_that_key_stored() {
        let w = Workload::new(&spec(MIXED));
        let written = w.row_values(0, 0, &RowRef { key: 3, row: None }, 11);
        let expected = w.expected_row(1, 3, None, 999);
        assert_eq!(written[1], expected[0]);
    }

    #[test]
    fn the_read_back_binds_the_key_the_write_bound() {
        let mut s = spec(MIXED);
        s.data_seed = 12;
        let plain = Workload::new(&s);
        assert!(plain.verify.is_none() && plain.verify_values(3).is_empty());
        s.verify = Some(
            serde_json::from_str(
                r#"{"consistency": "QUORUM", "statement": {"cql": "V",
                    "binds": [{"kind": "key_blob", "column": "key"}]}}"#,
            )
            .unwrap(),
        );
        let w = Workload::new(&s);
        for key in [1, 3, 999] {
            let written = w.row_values(0, 0, &RowRef { key, row: None }, 77);
            assert_eq!(w.verify_values(key), [written[0].clone()], "key {key}");
        }
        assert_ne!(w.verify_values(1), w.verify_values(2));
    }

    /// The workload of `spec(ops)` with its operation and data seeds set.
    pub(super) fn seeded(ops: &str, seed: i64, data_seed: i64) -> Workload {
        let mut s = spec(ops);
        s.seed = seed;
        s.data_seed = data_seed;
        Workload::new(&s)
    }

    #[test]
    fn values_depend_on_the_data_seed_not_the_seed() {
        let base = seeded(MIXED, 7, 3);
        let other_ops = seeded(MIXED, 8, 3);
        let other_data = seeded(MIXED, 7, 4);
        for key in 1..50 {
            let r = RowRef { key, row: None };
            let written = base.row_values(0, 0, &r, 11);
            assert_eq!(written, other_ops.row_values(0, 0, &r, 99), "key {key}");
            assert_ne!(written[1], other_data.row_values(0, 0, &r, 11)[1]);
            // A read under another operation seed validates what this write stored.
            assert_eq!(other_ops.expected_row(1, key, None, 5)[0], written[1]);
            assert_ne!(other_data.expected_row(1, key, None, 5)[0], written[1]);
        }
        let mut per_cycle = spec(MIXED);
        per_cycle.operations[0].statements[0].binds[1].per_key = false;
        let value = |seed: i64, data_seed: i64| {
            let mut s = per_cycle.clone();
            (s.seed, s.data_seed) = (seed, data_seed);
            Workload::new(&s).row_values(0, 0, &RowRef { key: 1, row: None }, 17)[1].clone()
        };
        assert_eq!(value(1, 2), value(9, 2), "per-cycle values ignore the seed");
        assert_ne!(
            value(1, 2),
            value(1, 3),
            "per-cycle values follow the data seed"
        );
    }

    #[test]
    fn the_operation_sequence_depends_on_the_seed_not_the_data_seed() {
        let base = seeded(MIXED, 7, 3);
        let other_data = seeded(MIXED, 7, 4);
        let other_ops = seeded(MIXED, 8, 3);
        assert!((0..1000).all(|i| base.plan(i) == other_data.plan(i)));
        assert!((0..100).any(|i| base.plan(i) != other_ops.plan(i)));
    }

    #[test]
    fn a_scan_length_is_part_of_the_operation() {
        const SCAN: &str = r#"[{"name": "scan", "kind": "scan", "weight": 1, "statements": [
            {"cql": "S", "binds": [{"kind": "key_text", "column": "y_id"},
             {"kind": "scan_length", "column": "limit", "per_key": false,
              "values": {"kind": "uniform", "min": 1, "max": 1000000}}]}]}]"#;
        let lengths = |w: &Workload| -> Vec<Value> {
            (0..50)
                .map(|i| w.row_values(0, 0, &RowRef { key: 1, row: None }, i)[1].clone())
                .collect()
        };
        let base = lengths(&seeded(SCAN, 7, 3));
        assert_eq!(base, lengths(&seeded(SCAN, 7, 4)));
        assert_ne!(base, lengths(&seeded(SCAN, 8, 3)));
    }

    #[test]
    fn operations_sharing_a_name_report_as_one() {
        let (names, slots) = report_names(&["READ", "UPDATE", "READ", "SCAN", "UPDATE"]);
        assert_eq!(names, vec!["READ", "UPDATE", "SCAN"]);
        assert_eq!(slots, vec![0, 1, 0, 2, 1]);
    }
}
