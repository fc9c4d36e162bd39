//! Token range queries (spec `token_range`, cassandra-stress `token_range_queries`): the
//! ring's ranges cut into pieces (pure), the walk that hands the pieces out in ring order,
//! and one operation's read of its piece, page by page.
//!
//! The ranges are as cassandra-stress reads them: from each token of the ring (start
//! excluded) to the next (end included); the range that wraps around is cut at the ends
//! of the Murmur3 ring, `(-2^63, first]` and `(last, 2^63-1]`. Each range is cut into
//! `split_factor` pieces of equal width (the last ones may be empty when a range is
//! narrower than the factor). Without `wrap` the walk ends after the last piece; with it,
//! it starts over.

use std::sync::atomic::{AtomicU64, Ordering};

use scylla::client::session::Session;
use scylla::response::{PagingState, PagingStateResponse};
use scylla::value::{CqlValue, Row};

use super::execute::{Engine, OpError, Outcome};
use crate::spec::TokenRangeScan;

/// The lowest and highest Murmur3 token (no key has the lowest: `> MIN` is the whole ring).
pub const MIN_TOKEN: i64 = i64::MIN;
pub const MAX_TOKEN: i64 = i64::MAX;

/// The ring's ranges, `(start, end]` in ring order, from its nodes' tokens (any order,
/// repeats ignored); no tokens known: the whole ring as one range.
pub fn ring_ranges(tokens: &[i64]) -> Vec<(i64, i64)> {
    let mut t = tokens.to_vec();
    t.sort_unstable();
    t.dedup();
    let (Some(&first), Some(&last)) = (t.first(), t.last()) else {
        return vec![(MIN_TOKEN, MAX_TOKEN)];
    };
    let mut ranges = Vec::with_capacity(t.len() + 1);
    if first > MIN_TOKEN {
        ranges.push((MIN_TOKEN, first));
    }
    ranges.extend(t.windows(2).map(|w| (w[0], w[1])));
    if last < MAX_TOKEN {
        ranges.push((last, MAX_TOKEN));
    }
    ranges
}

/// Piece `j` (from 0) of `(start, end]` cut into `split` pieces of equal width.
pub fn piece((start, end): (i64, i64), split: u64, j: u64) -> (i64, i64) {
    let width = i128::from(end) - i128::from(start);
    let at = |k: u64| (i128::from(start) + width * i128::from(k) / i128::from(split)) as i64;
    (at(j), at(j + 1))
}

/// One token range operation's walk over the ring, shared by every worker.
pub struct Walk {
    ranges: Vec<(i64, i64)>,
    split: u64,
    wrap: bool,
    next: AtomicU64,
}

impl Walk {
    pub fn new(tokens: &[i64], scan: &TokenRangeScan) -> Walk {
        Walk {
            ranges: ring_ranges(tokens),
            split: scan.split_factor.max(1) as u64,
            wrap: scan.wrap,
            next: AtomicU64::new(0),
        }
    }

    /// How many pieces one walk over the ring reads.
    pub fn pieces(&self) -> u64 {
        self.ranges.len() as u64 * self.split
    }

    /// The next piece in ring order; None once every piece was handed out (without wrap).
    pub fn next(&self) -> Option<(i64, i64)> {
        let mut i = self.next.fetch_add(1, Ordering::Relaxed);
        if i >= self.pieces() {
            if !self.wrap {
                return None;
            }
            i %= self.pieces();
        }
        let range = self.ranges[(i / self.split) as usize];
        Some(piece(range, self.split, i % self.split))
    }

    /// Start again from the start of the ring (the measured phase after a warm-up).
    pub fn restart(&self) {
        self.next.store(0, Ordering::Relaxed);
    }
}

/// The tokens of the ring: every node's, as the driver read them after connecting (its
/// control connection reads `system.local` and `system.peers` of one node).
pub fn ring_tokens(session: &Session) -> Vec<i64> {
    let state = session.get_cluster_state();
    let ring = state.replica_locator().ring();
    ring.iter().map(|(t, _)| t.value()).collect()
}

impl Engine {
    /// Read the next piece of operation `op`'s walk, every page: the rows, and the
    /// partitions (runs of one token in the first column). None: the walk is done.
    pub(super) async fn run_token_range(&self, op: usize) -> Option<Result<Outcome, OpError>> {
        let (start, end) = self.walks[op].as_ref()?.next()?;
        Some(self.read_piece(op, start, end).await)
    }

    async fn read_piece(&self, op: usize, start: i64, end: i64) -> Result<Outcome, OpError> {
        let stmt = &self.prepared[op][0];
        let values = (start, end);
        let mut paging = PagingState::start();
        let mut out = Outcome::default();
        let mut last: Option<i64> = None;
        loop {
            let (result, next) = self
                .retrying(true, || {
                    self.session
                        .execute_single_page(stmt, values, paging.clone())
                })
                .await
                .map_err(|e| OpError::Exec(Box::new(e)))?;
            let rows = result
                .into_rows_result()
                .map_err(|e| OpError::Result(format!("reading the result failed: {e}")))?;
            out.rows += rows.rows_num() as u64;
            let decoded = rows
                .rows::<Row>()
                .map_err(|e| OpError::Result(format!("decoding the rows failed: {e}")))?;
            for row in decoded {
                let row =
                    row.map_err(|e| OpError::Result(format!("decoding a row failed: {e}")))?;
                let token = match row.columns.first() {
                    Some(Some(CqlValue::BigInt(t))) => Some(*t),
                    _ => None,
                };
                if token != last || token.is_none() {
                    out.partitions += 1;
                    last = token;
                }
            }
            match next {
                PagingStateResponse::HasMorePages { state } => paging = state,
                PagingStateResponse::NoMorePages => return Ok(out),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Range = (i64, i64);

    fn scan(split_factor: i64, wrap: bool) -> TokenRangeScan {
        TokenRangeScan {
            page_size: 100,
            split_factor,
            wrap,
        }
    }

    fn walk_all(walk: &Walk) -> Vec<Range> {
        std::iter::from_fn(|| walk.next()).collect()
    }

    /// Each piece starts where the one before ended, from the ring's lowest token to its
    /// highest: the ring is read once, with no token twice.
    fn tiles_the_ring(pieces: &[Range]) -> bool {
        pieces.first().map(|p| p.0) == Some(MIN_TOKEN)
            && pieces.last().map(|p| p.1) == Some(MAX_TOKEN)
            && pieces.windows(2).all(|w| w[0].1 == w[1].0)
            && pieces.iter().all(|p| p.0 <= p.1)
    }

    #[test]
    fn the_ring_ranges_are_cut_at_its_ends() {
        let table: [(&[i64], Vec<Range>); 5] = [
            (&[], vec![(MIN_TOKEN, MAX_TOKEN)]),
            (&[0], vec![(MIN_TOKEN, 0), (0, MAX_TOKEN)]),
            (
                &[10, -5, 10],
                vec![(MIN_TOKEN, -5), (-5, 10), (10, MAX_TOKEN)],
            ),
            (&[MIN_TOKEN, 7], vec![(MIN_TOKEN, 7), (7, MAX_TOKEN)]),
            (&[-1, MAX_TOKEN], vec![(MIN_TOKEN, -1), (-1, MAX_TOKEN)]),
        ];
        for (tokens, ranges) in table {
            assert_eq!(ring_ranges(tokens), ranges, "tokens {tokens:?}");
        }
    }

    #[test]
    fn a_range_is_cut_into_equal_pieces() {
        let table: [(Range, u64, Vec<Range>); 4] = [
            ((0, 100), 1, vec![(0, 100)]),
            ((0, 100), 4, vec![(0, 25), (25, 50), (50, 75), (75, 100)]),
            ((-10, 20), 3, vec![(-10, 0), (0, 10), (10, 20)]),
            ((0, 2), 4, vec![(0, 0), (0, 1), (1, 1), (1, 2)]),
        ];
        for (range, split, pieces) in table {
            let got: Vec<_> = (0..split).map(|j| piece(range, split, j)).collect();
            assert_eq!(got, pieces, "{range:?} in {split}");
        }
        let whole = (MIN_TOKEN, MAX_TOKEN);
        assert_eq!(piece(whole, 2, 0), (MIN_TOKEN, -1));
        assert_eq!(piece(whole, 2, 1), (-1, MAX_TOKEN));
    }

    #[test]
    fn a_walk_reads_the_ring_once_in_order_without_wrap() {
        let tokens = [-3_000_000_000_000_000_000, 42, 5_000_000_000_000_000_000];
        for split in [1, 2, 7, 1000] {
            let walk = Walk::new(&tokens, &scan(split, false));
            let pieces = walk_all(&walk);
            assert_eq!(pieces.len() as u64, 4 * split as u64, "split {split}");
            assert_eq!(walk.pieces(), 4 * split as u64);
            assert!(tiles_the_ring(&pieces), "split {split}: {pieces:?}");
            assert_eq!(walk.next(), None, "stays done");
        }
    }

    #[test]
    fn a_walk_with_wrap_starts_over_and_restart_rewinds() {
        let walk = Walk::new(&[0], &scan(3, true));
        let first: Vec<_> = (0..6).map(|_| walk.next().unwrap()).collect();
        let second: Vec<_> = (0..6).map(|_| walk.next().unwrap()).collect();
        assert_eq!(first, second);
        assert!(tiles_the_ring(&first));
        let once = Walk::new(&[0], &scan(3, false));
        let read = walk_all(&once);
        once.restart();
        assert_eq!(walk_all(&once), read);
    }
}
