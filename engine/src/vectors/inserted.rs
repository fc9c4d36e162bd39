//! Search while loading: which base rows the table holds (those there before the run and
//! those whose insert this run saw acknowledged), and recall@k counted against the
//! ground truth restricted to them, as the field counts a search during ingest.
//!
//! Per query: walk its stored neighbours (nearest first), keep the inserted ones until
//! `min(k, inserted rows)` are kept; recall = |found[..k] ∩ kept| / that number. When the
//! stored depth runs out first (fewer than all rows inserted, the inserted true neighbours
//! lie deeper than the file holds), the query cannot be judged: it counts as unjudged, not
//! as recall 0 or 1. An insert of a row already held (a rewrite) changes nothing.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};

/// An atomic bitset over the base rows and the count of rows set.
#[derive(Debug)]
pub struct Inserted {
    bits: Vec<AtomicU64>,
    count: AtomicU64,
    rows: usize,
}

impl Inserted {
    /// `rows` base rows, of which rows `[0, before)` are held from the start.
    pub fn new(rows: usize, before: usize) -> Inserted {
        let before = before.min(rows);
        let bits = (0..rows.div_ceil(64))
            .map(|w| {
                let full = before.saturating_sub(w * 64).min(64);
                AtomicU64::new(if full == 64 {
                    u64::MAX
                } else {
                    (1u64 << full) - 1
                })
            })
            .collect();
        Inserted {
            bits,
            count: AtomicU64::new(before as u64),
            rows,
        }
    }

    /// Mark base `row` inserted (acknowledged); a row out of range or already held is a
    /// no-op.
    #[inline]
    pub fn mark(&self, row: usize) {
        if row >= self.rows {
            return;
        }
        let bit = 1u64 << (row % 64);
        let was = self.bits[row / 64].fetch_or(bit, Ordering::AcqRel);
        if was & bit == 0 {
            self.count.fetch_add(1, Ordering::AcqRel);
        }
    }

    #[inline]
    pub fn contains(&self, row: usize) -> bool {
        row < self.rows && self.bits[row / 64].load(Ordering::Acquire) & (1u64 << (row % 64)) != 0
    }

    pub fn count(&self) -> usize {
        self.count.load(Ordering::Acquire) as usize
    }

    pub fn all(&self) -> bool {
        self.count() >= self.rows
    }
}

/// A query's recall@k against the inserted rows, as hits out of `k` (`None`: unjudged).
/// `truth`: its stored neighbours (base rows, nearest first); `found`: the keys returned
/// (base row + `key_offset`). With fewer than `k` rows inserted the recall over
/// `min(k, inserted)` is scaled to `k` (rounded down; all found is `k`).
pub fn restricted_hits(
    truth: &[i32],
    found: &[i64],
    k: usize,
    key_offset: i64,
    inserted: &Inserted,
) -> Option<u32> {
    // read the count first: a row inserted after it only adds to the truth walked below
    let held = inserted.count();
    let want = k.min(held);
    if want == 0 {
        return None; // nothing inserted: nothing to find
    }
    let kept: HashSet<i64> = truth
        .iter()
        .filter(|&&r| r >= 0 && inserted.contains(r as usize))
        .take(want)
        .map(|&r| r as i64 + key_offset)
        .collect();
    if kept.len() < want && !inserted.all() {
        return None; // the stored depth ran out before min(k, inserted) neighbours
    }
    let got: HashSet<i64> = found.iter().take(k).copied().collect();
    let hits = kept.intersection(&got).count();
    Some((hits * k / kept.len().max(1)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(rows: usize, before: usize, marked: &[usize]) -> Inserted {
        let s = Inserted::new(rows, before);
        marked.iter().for_each(|&r| s.mark(r));
        s
    }

    #[test]
    fn the_bitset_holds_the_rows_before_and_the_marked_ones() {
        let s = held(130, 65, &[]);
        assert_eq!(s.count(), 65);
        assert!(s.contains(0) && s.contains(63) && s.contains(64));
        assert!(!s.contains(65) && !s.contains(129) && !s.contains(500));
        s.mark(100);
        s.mark(100); // a rewrite
        s.mark(3); // already held
        s.mark(130); // out of range
        assert_eq!(s.count(), 66);
        assert!(s.contains(100));
        assert!(held(5, 9, &[]).all(), "before is clamped to the rows");
        assert_eq!(held(64, 64, &[]).count(), 64);
    }

    #[test]
    fn recall_counts_against_the_inserted_true_neighbours() {
        // 10 base rows; truth (depth 5) of one query: rows 4, 2, 9, 7, 1; keys = row + 1
        let truth = [4, 2, 9, 7, 1];
        // rows 2, 7, 1, 0 inserted: the first 2 inserted true neighbours are 2 and 7
        let s = held(10, 0, &[2, 7, 1, 0]);
        assert_eq!(restricted_hits(&truth, &[3, 8], 2, 1, &s), Some(2));
        assert_eq!(restricted_hits(&truth, &[3, 2], 2, 1, &s), Some(1));
        assert_eq!(
            restricted_hits(&truth, &[5, 1], 2, 1, &s),
            Some(0),
            "row 4 is not inserted: finding it counts nothing"
        );
        // k = 3: 2, 7, 1
        assert_eq!(restricted_hits(&truth, &[2, 8, 3], 3, 1, &s), Some(3));
        // k = 4: only 3 inserted among the 5 stored while 4 of 10 rows are held: unjudged
        assert_eq!(restricted_hits(&truth, &[2, 8, 3, 1], 4, 1, &s), None);
    }

    #[test]
    fn fewer_rows_than_k_count_over_the_rows_held() {
        let truth = [4, 2, 9, 7, 1];
        // one row held (9): recall over min(3, 1) = 1, scaled to k = 3
        let s = held(10, 0, &[9]);
        assert_eq!(restricted_hits(&truth, &[10], 3, 1, &s), Some(3));
        assert_eq!(restricted_hits(&truth, &[1], 3, 1, &s), Some(0));
        // two rows held (9, 7): one of two found is 1 of 3 when rounded down
        s.mark(7);
        assert_eq!(restricted_hits(&truth, &[10, 1], 3, 1, &s), Some(1));
        assert_eq!(restricted_hits(&truth, &[10, 8], 3, 1, &s), Some(3));
        // nothing held: unjudged
        assert_eq!(restricted_hits(&truth, &[1], 3, 1, &held(10, 0, &[])), None);
    }

    #[test]
    fn a_full_table_is_the_full_truth_and_rewrites_change_nothing() {
        let truth = [4, 2, 9, 7, 1];
        let full = held(10, 10, &[4, 4, 2]);
        for found in [&[5, 3, 10][..], &[5, 5, 5], &[1, 2, 3], &[]] {
            assert_eq!(
                restricted_hits(&truth, found, 3, 1, &full),
                Some(super::super::hits(&truth, found, 3, 1)),
                "{found:?}"
            );
        }
        // all rows held by inserts alone: the same, and a short truth is judged (depth k)
        let marked = held(3, 0, &[0, 1, 2, 1, 0]);
        assert_eq!(marked.count(), 3);
        assert_eq!(restricted_hits(&[2, 0], &[3, 1], 2, 1, &marked), Some(2));
    }
}
