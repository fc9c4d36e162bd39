//! Rows within a partition: how many values each clustering level of a partition has and
//! the ids of its rows (data: pure functions of `(data_seed, key)`), the one row a
//! single-row operation touches and the rows a batch writes (the operation sequence: pure
//! functions of `(seed, cycle)` choosing among the partition's rows).

use std::collections::HashSet;

use super::{
    Workload, STREAM_KEY, STREAM_LEVELS, STREAM_PARTITIONS, STREAM_PICK, STREAM_ROW, STREAM_SELECT,
};
use crate::gen::RowPos;
use crate::hash::{below, mix};

/// Rows in one batch statement at most (the native protocol counts them in 16 bits).
pub const MAX_BATCH_ROWS: usize = 65_535;

/// One row an operation writes or reads: its partition key and, in a partition with
/// clustering levels, its place there.
#[derive(Debug, Clone, PartialEq)]
pub struct RowRef {
    pub key: i64,
    pub row: Option<RowPos>,
}

impl Workload {
    /// Values on each clustering level of partition `key` (drawn once per partition, from
    /// the data seed).
    pub fn level_counts(&self, op: usize, key: i64) -> Vec<u64> {
        self.ops[op]
            .clustering
            .iter()
            .enumerate()
            .map(|(level, d)| {
                let h = mix(self.data_seed, STREAM_LEVELS ^ level as u64, key as u64);
                d.sample(key as u64, h).max(1) as u64
            })
            .collect()
    }

    /// The row at `index` (0-based, last level varying fastest) of partition `key`; its ids
    /// (which seed the row's values) come from the data seed.
    pub fn row_at(&self, key: i64, counts: &[u64], index: u64) -> RowPos {
        let mut positions = vec![0u64; counts.len()];
        let mut rest = index;
        for (p, &n) in positions.iter_mut().zip(counts).rev() {
            *p = rest % n;
            rest /= n;
        }
        let mut id = mix(self.data_seed, STREAM_ROW, key as u64);
        let ids = positions
            .iter()
            .map(|&p| {
                id = mix(self.data_seed, id, p);
                id
            })
            .collect();
        RowPos { positions, ids }
    }

    /// The one row a single-row operation touches at cycle `i`: any row of the partition,
    /// uniformly (drawn from the operation seed); None for partitions without clustering
    /// levels.
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
    /// first partition when the batch has one partition at most. How many partitions, which
    /// keys and which of their rows are drawn from the operation seed; the rows themselves
    /// (shape, ids, values) from the data seed.
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

#[cfg(test)]
mod tests {
    use super::super::tests::{seeded, spec};
    use super::*;

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
        let w = Workload::new(&spec(BATCH));
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
        let w = Workload::new(&spec(BATCH));
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
    fn a_partition_is_data_drawn_from_the_data_seed() {
        let base = seeded(BATCH, 7, 3);
        let other_ops = seeded(BATCH, 8, 3);
        let other_data = seeded(BATCH, 7, 4);
        for key in 1..200i64 {
            let counts = base.level_counts(0, key);
            assert_eq!(counts, other_ops.level_counts(0, key));
            assert_eq!(
                base.row_at(key, &counts, 3),
                other_ops.row_at(key, &counts, 3)
            );
            assert_ne!(
                base.row_at(key, &counts, 3).ids,
                other_data.row_at(key, &counts, 3).ids
            );
        }
        assert!((1..200).any(|k| base.level_counts(0, k) != other_data.level_counts(0, k)));
        // The rows a batch under another seed writes hold the values this one would write.
        for i in 0..20 {
            for r in &other_ops.batch_rows(0, 17, i).0 {
                assert_eq!(
                    base.row_values(0, 0, r, i),
                    other_ops.row_values(0, 0, r, 99)
                );
            }
        }
    }

    #[test]
    fn the_rows_an_operation_picks_are_drawn_from_the_seed() {
        // Fixed shapes, so that only the choice among a partition's rows can differ.
        let fixed = BATCH
            .replace(r#""min": 20, "max": 40"#, r#""min": 30, "max": 30"#)
            .replace(r#""min": 1, "max": 4"#, r#""min": 3, "max": 3"#);
        let picks = |seed: i64, data_seed: i64| -> Vec<(Vec<u64>, Vec<Vec<u64>>)> {
            let w = seeded(&fixed, seed, data_seed);
            (0..100)
                .map(|i| {
                    let one = w.pick_row(0, 17, i).unwrap().positions;
                    let batch = w.batch_rows(0, 17, i).0;
                    let rows = batch.into_iter().map(|r| r.row.unwrap().positions);
                    (one, rows.collect())
                })
                .collect()
        };
        assert_eq!(picks(7, 3), picks(7, 4), "the data seed changes no choice");
        let (base, other) = (picks(7, 3), picks(8, 3));
        assert!(
            (0..100).any(|i| base[i].0 != other[i].0),
            "single-row picks"
        );
        assert!(
            (0..100).any(|i| base[i].1.len() != other[i].1.len()),
            "select sampling"
        );
    }

    #[test]
    fn multi_partition_batches_take_consecutive_seq_keys() {
        let w = Workload::new(&spec(BATCH));
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
}
