//! The read-back of acknowledged writes (spec `verify`), after the measured phase: each
//! distinct key that a `write` operation wrote and the cluster acknowledged is read with
//! the verify statement at its consistency, [`IN_FLIGHT`] reads at a time under the retry
//! rule (reads are idempotent). A read that returns no row is a lost write; a read that
//! fails after its retries leaves the key unverified (`errors`), never lost.
//!
//! An interruption (SIGINT/SIGTERM) before or during the read-back skips it: the summary
//! then has no `verify`, and an error record says why.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use tokio::task::JoinSet;

use super::execute::Engine;
use super::recorder::Recorder;
use crate::spec::{Consistency, VerifyStats};

/// Reads in flight at once.
pub const IN_FLIGHT: usize = 64;

/// What some reads found, and the first lost key and read error for the error records.
#[derive(Debug, Default, PartialEq)]
struct Tally {
    checked: u64,
    lost: u64,
    errors: u64,
    first_lost: Option<i64>,
    first_error: Option<String>,
}

impl Tally {
    fn count(&mut self, key: i64, found: Result<bool, String>) {
        self.checked += 1;
        match found {
            Ok(true) => {}
            Ok(false) => {
                self.lost += 1;
                self.first_lost.get_or_insert(key);
            }
            Err(e) => {
                self.errors += 1;
                self.first_error.get_or_insert(e);
            }
        }
    }

    fn add(&mut self, other: Tally) {
        self.checked += other.checked;
        self.lost += other.lost;
        self.errors += other.errors;
        self.first_lost = self.first_lost.or(other.first_lost);
        self.first_error = self.first_error.take().or(other.first_error);
    }
}

/// Each key once, in order.
fn distinct(mut keys: Vec<i64>) -> Vec<i64> {
    keys.sort_unstable();
    keys.dedup();
    keys
}

async fn reader(
    engine: Arc<Engine>,
    keys: Arc<Vec<i64>>,
    next: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> Tally {
    let mut tally = Tally::default();
    while !stop.load(Ordering::Relaxed) {
        let Some(&key) = keys.get(next.fetch_add(1, Ordering::Relaxed)) else {
            break;
        };
        tally.count(key, engine.read_back(key).await);
    }
    tally
}

/// Read back `acked` (keys of acknowledged writes, with repeats); None when interrupted.
pub async fn verify(
    engine: &Arc<Engine>,
    acked: Vec<i64>,
    consistency: Consistency,
    rec: &mut Recorder,
) -> Option<VerifyStats> {
    let start = Instant::now();
    let keys = Arc::new(distinct(acked));
    let next = Arc::new(AtomicUsize::new(0));
    let stop = rec.interrupted_flag();
    let mut readers = JoinSet::new();
    for _ in 0..IN_FLIGHT.min(keys.len()) {
        readers.spawn(reader(
            Arc::clone(engine),
            Arc::clone(&keys),
            Arc::clone(&next),
            Arc::clone(&stop),
        ));
    }
    let mut tally = Tally::default();
    while let Some(joined) = readers.join_next().await {
        if let Ok(t) = joined {
            tally.add(t);
        }
    }
    if stop.load(Ordering::Relaxed) {
        rec.note(format!(
            "verify: interrupted; the read-back of {} acknowledged write(s) was skipped, \
             the summary has no verify",
            keys.len()
        ));
        return None;
    }
    if let Some(key) = tally.first_lost {
        rec.note(format!(
            "verify: key {key} was acknowledged by a write but its read-back at \
             {consistency:?} found no row ({} such key(s))",
            tally.lost
        ));
    }
    if let Some(e) = tally.first_error.take() {
        rec.note(format!(
            "verify: {} read-back(s) failed after retries (unverified), the first: {e}",
            tally.errors
        ));
    }
    Some(VerifyStats {
        consistency,
        checked: tally.checked,
        lost: tally.lost,
        errors: tally.errors,
        duration_s: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_is_read_once() {
        assert_eq!(distinct(vec![9, 3, 9, 1, 3]), [1, 3, 9]);
        assert!(distinct(Vec::new()).is_empty());
    }

    #[test]
    fn a_missing_row_is_lost_and_a_failed_read_unverified() {
        let mut a = Tally::default();
        a.count(1, Ok(true));
        a.count(2, Ok(false));
        a.count(3, Err("ReadTimeout: timed out".into()));
        let mut b = Tally::default();
        b.count(4, Ok(false));
        b.count(5, Err("Unavailable".into()));
        a.add(b);
        assert_eq!(
            a,
            Tally {
                checked: 5,
                lost: 2,
                errors: 2,
                first_lost: Some(2),
                first_error: Some("ReadTimeout: timed out".into()),
            }
        );
    }
}
