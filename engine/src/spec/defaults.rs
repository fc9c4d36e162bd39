//! The value of every optional spec field that is left out: the defaults the Python models
//! declare in `src/casslab/load/spec.py`, named after their fields, for
//! `#[serde(default = "defaults::...")]`. Change one here and there together.

use super::{BatchType, Consistency, SCHEMA_VERSION};

pub(super) fn schema_version() -> u32 {
    SCHEMA_VERSION
}

/// `per_key` and `idempotent`.
pub(super) fn yes() -> bool {
    true
}

// ---------------------------------------------------------------- distributions

pub(super) fn zipf_theta() -> f64 {
    0.99
}
pub(super) fn hot_fraction() -> f64 {
    0.2
}
pub(super) fn hot_ops_fraction() -> f64 {
    0.8
}

// ---------------------------------------------------------------- operations

pub(super) fn consistency() -> Consistency {
    Consistency::LocalOne
}
pub(super) fn select_divisor() -> f64 {
    1.0
}
pub(super) fn batch_type() -> BatchType {
    BatchType::Logged
}

// ---------------------------------------------------------------- load shape

pub(super) fn max_in_flight() -> u32 {
    1024
}
pub(super) fn factor() -> f64 {
    1.5
}
pub(super) fn step_duration_s() -> f64 {
    10.0
}
pub(super) fn min_gain_pct() -> f64 {
    5.0
}
pub(super) fn patience() -> u32 {
    3
}

// ---------------------------------------------------------------- connection and output

pub(super) fn request_timeout_s() -> f64 {
    12.0
}
pub(super) fn retries() -> u32 {
    3
}
pub(super) fn retry_backoff_ms() -> f64 {
    50.0
}
pub(super) fn interval_s() -> f64 {
    1.0
}

pub fn key_offset() -> i64 {
    1
}
