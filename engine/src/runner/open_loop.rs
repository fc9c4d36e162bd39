//! The open loop's schedule: operation *i* is due `i / rate` after the loop starts, so
//! a duration holds an exact number of due operations (pure).

use std::time::Duration;

/// Offset from the open loop's start at which operation `i` is due.
#[inline]
pub fn due_offset(i: u64, rate_per_s: f64) -> Duration {
    Duration::from_secs_f64(i as f64 / rate_per_s)
}

/// How many operations an open loop at `rate_per_s` has due in `[0, duration_s)`.
pub fn ops_due_within(duration_s: f64, rate_per_s: f64) -> u64 {
    (duration_s * rate_per_s).ceil().max(0.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
