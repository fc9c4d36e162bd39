//! The records the engine writes, one JSON line each: an [`IntervalRecord`] per interval,
//! sampled [`ErrorRecord`]s and a final [`SummaryRecord`]. A serde mirror of
//! `src/casslab/load/records.py`; they carry the spec's [`SCHEMA_VERSION`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::SCHEMA_VERSION;

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
    pub response: LatencyStats,
    pub service: LatencyStats,
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
