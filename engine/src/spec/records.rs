//! The records the engine writes, one JSON line each: an [`IntervalRecord`] per interval,
//! sampled [`ErrorRecord`]s and a final [`SummaryRecord`]. A serde mirror of
//! `src/casslab/load/records.py`; they carry the spec's [`SCHEMA_VERSION`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Consistency, SCHEMA_VERSION};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct LatencyStats {
    pub count: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct OpStats {
    pub count: u64,
    pub errors: u64,
    pub op_rate: f64,
    pub rows: u64,
    pub partitions: u64,
    pub not_found: u64,
    pub mismatches: u64,
    /// Lightweight transactions: `[applied]` true / false (they sum to `count`).
    #[serde(default)]
    pub applied: u64,
    #[serde(default)]
    pub not_applied: u64,
    /// `errors` by kind of the final error (kinds with a count only; they sum to `errors`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub errors_by_kind: BTreeMap<ErrorKind, u64>,
    pub response: LatencyStats,
    pub service: LatencyStats,
    /// ANN searches (`recall_k`): recall@k of the successful queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<RecallStats>,
    /// Search while loading: ANN queries that could not be judged against the rows
    /// inserted so far (the ground truth's depth ran out); not counted in `recall`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub recall_unjudged: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Recall@k of ANN queries: per query, the share of its k true nearest neighbours the
/// search returned. `queries_by_hits[h]` is how many queries found `h` of them (exact,
/// and summable across intervals and clients); mean, p5 and p1 are read from it (p5: the
/// recall that 5 % of the queries were at or below, nearest rank).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RecallStats {
    pub k: u32,
    pub queries: u64,
    pub mean: f64,
    pub p5: f64,
    pub p1: f64,
    pub queries_by_hits: Vec<u64>,
}

/// What made an operation fail, in Cassandra's terms: the final error (after retries) of
/// a failed operation. Mirrored by `ErrorKind` in `src/casslab/load/records.py`.
///
/// | kind | the error |
/// |---|---|
/// | `unavailable` | the coordinator knew too few replicas alive for the consistency level (Unavailable) |
/// | `write_timeout` | too few replicas acknowledged a write within `write_request_timeout` (WriteTimeout) |
/// | `read_timeout` | too few replicas answered a read within `read_request_timeout` (ReadTimeout) |
/// | `write_failure` | replicas answered a write with a failure (WriteFailure) |
/// | `read_failure` | replicas answered a read with a failure, e.g. tombstones (ReadFailure) |
/// | `overloaded` | the coordinator shed the request (Overloaded, rate limit) |
/// | `client_timeout` | no answer within the driver's own `connection.request_timeout_s` |
/// | `connection` | no connection to send on: broken connection, pool error, no stream id, no node in the plan |
/// | `other` | everything else: invalid requests, server errors, result decoding, ... |
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Unavailable,
    WriteTimeout,
    ReadTimeout,
    WriteFailure,
    ReadFailure,
    Overloaded,
    ClientTimeout,
    Connection,
    Other,
}

impl ErrorKind {
    /// Every kind, in the order of their counters (`ErrorKind as usize`).
    pub const ALL: [ErrorKind; 9] = [
        ErrorKind::Unavailable,
        ErrorKind::WriteTimeout,
        ErrorKind::ReadTimeout,
        ErrorKind::WriteFailure,
        ErrorKind::ReadFailure,
        ErrorKind::Overloaded,
        ErrorKind::ClientTimeout,
        ErrorKind::Connection,
        ErrorKind::Other,
    ];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Warmup,
    Measure,
    Ramp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordType {
    Interval,
    Summary,
    Error,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntervalRecord {
    pub schema_version: u32,
    #[serde(rename = "type")]
    pub record_type: RecordType,
    pub phase: Phase,
    pub t_start_s: f64,
    pub t_end_s: f64,
    pub threads: u32,
    pub total: OpStats,
    pub ops: BTreeMap<String, OpStats>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RampStep {
    pub threads: u32,
    pub op_rate: f64,
    pub p99_ms: f64,
    pub errors: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryRecord {
    pub schema_version: u32,
    #[serde(rename = "type")]
    pub record_type: RecordType,
    pub duration_s: f64,
    pub total: OpStats,
    pub ops: BTreeMap<String, OpStats>,
    pub ramp: Vec<RampStep>,
    pub best_threads: Option<u32>,
    pub engine_version: String,
    /// The read-back of acknowledged writes (spec `verify`); absent when not asked, or
    /// when an interruption skipped or cut it short.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyStats>,
}

/// What the read-back of acknowledged writes found. `checked` distinct keys were read at
/// `consistency`: `lost` returned no row, `errors` failed after retries (unverified, not
/// lost), the rest were found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyStats {
    pub consistency: Consistency,
    pub checked: u64,
    pub lost: u64,
    pub errors: u64,
    pub duration_s: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorRecord {
    pub schema_version: u32,
    #[serde(rename = "type")]
    pub record_type: RecordType,
    pub op: Option<String>,
    pub message: String,
    pub fatal: bool,
}

impl ErrorRecord {
    pub fn new(op: Option<String>, message: String, fatal: bool) -> ErrorRecord {
        ErrorRecord {
            schema_version: SCHEMA_VERSION,
            record_type: RecordType::Error,
            op,
            message,
            fatal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_serialize_with_type_tags() {
        let e = ErrorRecord::new(Some("read".into()), "boom".into(), true);
        let v: serde_json::Value = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "error");
        assert_eq!(v["fatal"], true);
        let p = serde_json::to_value(Phase::Ramp).unwrap();
        assert_eq!(p, "ramp");
    }
}
