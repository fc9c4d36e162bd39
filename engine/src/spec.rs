//! The workload spec and output records: a serde mirror of `src/casslab/load/spec.py`.
//!
//! Field names, defaults and enum spellings follow the Python models exactly; unknown
//! fields are rejected on both sides. Bump [`SCHEMA_VERSION`] together with the Python side.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub const SCHEMA_VERSION: u32 = 1;

// ---------------------------------------------------------------- distributions

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DistKind {
    Fixed,
    Seq,
    Uniform,
    Gaussian,
    Exp,
    Zipfian,
    Latest,
    Hotspot,
}

fn default_theta() -> f64 {
    0.99
}
fn default_hot_fraction() -> f64 {
    0.2
}
fn default_hot_ops_fraction() -> f64 {
    0.8
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Distribution {
    pub kind: DistKind,
    pub min: i64,
    pub max: i64,
    #[serde(default)]
    pub mean: Option<f64>,
    #[serde(default)]
    pub stdev: Option<f64>,
    #[serde(default = "default_theta")]
    pub zipf_theta: f64,
    #[serde(default = "default_hot_fraction")]
    pub hot_fraction: f64,
    #[serde(default = "default_hot_ops_fraction")]
    pub hot_ops_fraction: f64,
}

impl Distribution {
    /// `kind` over `min..=max`, every other parameter at its default (as in the JSON).
    pub fn range(kind: DistKind, min: i64, max: i64) -> Distribution {
        Distribution {
            kind,
            min,
            max,
            mean: None,
            stdev: None,
            zipf_theta: default_theta(),
            hot_fraction: default_hot_fraction(),
            hot_ops_fraction: default_hot_ops_fraction(),
        }
    }
}

// ---------------------------------------------------------------- value generators

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GenKind {
    KeyBlob,
    KeyText,
    KeyBigint,
    Blob,
    Text,
    Int,
    Bigint,
    Double,
    Uuid,
    Timestamp,
    CounterDelta,
    ScanLength,
}

fn default_true() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Generator {
    pub kind: GenKind,
    #[serde(default)]
    pub column: String,
    #[serde(default)]
    pub size: Option<Distribution>,
    #[serde(default)]
    pub values: Option<Distribution>,
    #[serde(default)]
    pub prefix: String,
    #[serde(default)]
    pub hashed: bool,
    #[serde(default = "default_true")]
    pub per_key: bool,
    /// 0: a function of the partition key; i >= 1: of the partition key and the row's
    /// positions on clustering levels 1..=i.
    #[serde(default)]
    pub level: usize,
}

// ---------------------------------------------------------------- operations

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Consistency {
    Any,
    One,
    Two,
    Three,
    Quorum,
    All,
    LocalQuorum,
    EachQuorum,
    LocalOne,
    Serial,
    LocalSerial,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    Write,
    Read,
    Scan,
    CounterWrite,
    CounterRead,
    ReadModifyWrite,
    Cql,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Statement {
    pub cql: String,
    #[serde(default)]
    pub binds: Vec<Generator>,
}

fn default_consistency() -> Consistency {
    Consistency::LocalOne
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchType {
    Logged,
    Unlogged,
    Counter,
}

fn default_divisor() -> f64 {
    1.0
}
fn default_batch_type() -> BatchType {
    BatchType::Logged
}

/// cassandra-stress `insert:`: partitions per operation and the share of each partition's
/// rows written in one visit.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InsertBatch {
    pub partitions: Distribution,
    pub select: Distribution,
    #[serde(default = "default_divisor")]
    pub select_divisor: f64,
    #[serde(default = "default_batch_type")]
    pub batch_type: BatchType,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    pub name: String,
    pub kind: OpKind,
    pub weight: f64,
    pub statements: Vec<Statement>,
    #[serde(default = "default_consistency")]
    pub consistency: Consistency,
    #[serde(default)]
    pub serial_consistency: Option<Consistency>,
    #[serde(default)]
    pub keys: Option<Distribution>,
    #[serde(default)]
    pub validate_columns: Vec<Generator>,
    #[serde(default = "default_true")]
    pub idempotent: bool,
    /// Values per partition on each clustering level (rows = their product).
    #[serde(default)]
    pub clustering: Vec<Distribution>,
    #[serde(default)]
    pub batch: Option<InsertBatch>,
}

// ---------------------------------------------------------------- load shape

fn default_max_in_flight() -> u32 {
    1024
}
fn default_factor() -> f64 {
    1.5
}
fn default_step_duration() -> f64 {
    10.0
}
fn default_min_gain() -> f64 {
    5.0
}
fn default_patience() -> u32 {
    3
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "mode", rename_all = "lowercase", deny_unknown_fields)]
pub enum Rate {
    Closed {
        threads: u32,
    },
    Open {
        rate_per_s: f64,
        #[serde(default = "default_max_in_flight")]
        max_in_flight: u32,
    },
    Ramp {
        min: u32,
        max: u32,
        #[serde(default = "default_factor")]
        factor: f64,
        #[serde(default = "default_step_duration")]
        step_duration_s: f64,
        #[serde(default = "default_min_gain")]
        min_gain_pct: f64,
        #[serde(default = "default_patience")]
        patience: u32,
        /// Explicit ascending concurrency steps; when non-empty they replace `factor`.
        #[serde(default)]
        steps: Vec<u32>,
    },
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Stop {
    #[serde(default)]
    pub ops: Option<u64>,
    #[serde(default)]
    pub duration_s: Option<f64>,
}

// ---------------------------------------------------------------- connection

fn default_request_timeout() -> f64 {
    12.0
}
fn default_retries() -> u32 {
    3
}
fn default_backoff() -> f64 {
    50.0
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Connection {
    pub contact_points: Vec<String>,
    #[serde(default)]
    pub local_dc: Option<String>,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub tls: bool,
    #[serde(default)]
    pub tls_ca_file: Option<String>,
    #[serde(default = "default_request_timeout")]
    pub request_timeout_s: f64,
    #[serde(default = "default_retries")]
    pub retries: u32,
    #[serde(default = "default_backoff")]
    pub retry_backoff_ms: f64,
}

fn default_interval() -> f64 {
    1.0
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    #[serde(default)]
    pub jsonl: Option<String>,
    #[serde(default)]
    pub hdr_log: Option<String>,
    #[serde(default = "default_interval")]
    pub interval_s: f64,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            jsonl: None,
            hdr_log: None,
            interval_s: default_interval(),
        }
    }
}

fn default_schema_version() -> u32 {
    SCHEMA_VERSION
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    #[serde(default = "default_schema_version")]
    pub schema_version: u32,
    pub connection: Connection,
    #[serde(default)]
    pub schema_cql: Vec<String>,
    #[serde(default)]
    pub keyspace: Option<String>,
    pub operations: Vec<Operation>,
    pub keys: Distribution,
    pub rate: Rate,
    pub stop: Stop,
    #[serde(default)]
    pub warmup_s: f64,
    #[serde(default)]
    pub seed: i64,
    #[serde(default)]
    pub validate_reads: bool,
    #[serde(default)]
    pub output: Output,
}

impl WorkloadSpec {
    /// Parse and check the constraints the Python models enforce, so a hand-written spec
    /// fails here with a message rather than deep inside a run.
    pub fn from_json(text: &str) -> Result<WorkloadSpec, String> {
        let spec: WorkloadSpec =
            serde_json::from_str(text).map_err(|e| format!("invalid workload spec JSON: {e}"))?;
        spec.check()?;
        Ok(spec)
    }

    pub fn check(&self) -> Result<(), String> {
        if self.schema_version != SCHEMA_VERSION {
            return Err(format!(
                "workload spec schema_version {} is not supported by this engine (expects {}); \
                 rebuild the engine with `make engine`",
                self.schema_version, SCHEMA_VERSION
            ));
        }
        if self.connection.contact_points.is_empty() {
            return Err("connection.contact_points is empty; give at least one host:port".into());
        }
        if self.operations.is_empty() {
            return Err("operations is empty; give at least one operation".into());
        }
        for op in &self.operations {
            if op.weight.is_nan() || op.weight <= 0.0 {
                return Err(format!(
                    "operation {:?}: weight {} must be > 0",
                    op.name, op.weight
                ));
            }
            if op.statements.is_empty() {
                return Err(format!("operation {:?} has no statements", op.name));
            }
            let depth = op.clustering.len();
            if let Some(g) = op
                .statements
                .iter()
                .flat_map(|s| &s.binds)
                .find(|g| g.level > depth)
            {
                return Err(format!(
                    "operation {:?}: column {:?} has level {} but the partition has {depth} \
                     clustering level(s)",
                    op.name, g.column, g.level
                ));
            }
            if op.clustering.iter().any(|d| d.min < 1) {
                return Err(format!(
                    "operation {:?}: clustering counts must be >= 1",
                    op.name
                ));
            }
            if let Some(b) = &op.batch {
                if !matches!(op.kind, OpKind::Write | OpKind::CounterWrite)
                    || op.statements.len() != 1
                {
                    return Err(format!(
                        "operation {:?}: batch needs a write with exactly one statement",
                        op.name
                    ));
                }
                if b.select_divisor.is_nan() || b.select_divisor <= 0.0 || b.partitions.min < 1 {
                    return Err(format!(
                        "operation {:?}: batch needs partitions >= 1 and select_divisor > 0",
                        op.name
                    ));
                }
            }
            if op.kind == OpKind::ReadModifyWrite && op.statements.len() < 2 {
                return Err(format!(
                    "operation {:?}: read_modify_write needs 2 statements (read, write), got {}",
                    op.name,
                    op.statements.len()
                ));
            }
        }
        match &self.rate {
            Rate::Closed { threads } if *threads == 0 => {
                return Err("rate.threads must be >= 1".into())
            }
            Rate::Open {
                rate_per_s,
                max_in_flight,
            } if rate_per_s.is_nan() || *rate_per_s <= 0.0 || *max_in_flight == 0 => {
                return Err(format!(
                    "rate: rate_per_s {rate_per_s} must be > 0 and max_in_flight {max_in_flight} >= 1"
                ))
            }
            Rate::Ramp {
                min, max, factor, ..
            } if *min == 0 || *max < *min || factor.is_nan() || *factor <= 1.0 => {
                return Err(format!(
                    "rate: ramp needs 1 <= min <= max and factor > 1 (got min={min} max={max} factor={factor})"
                ))
            }
            _ => {}
        }
        if self.stop.ops.is_none() && self.stop.duration_s.is_none() {
            if let Rate::Ramp { .. } = self.rate {
            } else {
                return Err("stop: give ops or duration_s (or both)".into());
            }
        }
        if self.output.interval_s.is_nan() || self.output.interval_s <= 0.0 {
            return Err(format!(
                "output.interval_s {} must be > 0",
                self.output.interval_s
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- engine output

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

    const MINIMAL: &str = r#"{
        "schema_version": 1,
        "connection": {"contact_points": ["127.0.0.1:9042"]},
        "operations": [{"name": "write", "kind": "write", "weight": 1.0,
                        "statements": [{"cql": "INSERT INTO t (k) VALUES (?)",
                                        "binds": [{"kind": "key_blob", "column": "key"}]}]}],
        "keys": {"kind": "seq", "min": 1, "max": 100},
        "rate": {"mode": "closed", "threads": 4},
        "stop": {"ops": 100}
    }"#;

    #[test]
    fn minimal_spec_parses_with_python_defaults() {
        let spec = WorkloadSpec::from_json(MINIMAL).unwrap();
        assert_eq!(spec.operations[0].consistency, Consistency::LocalOne);
        assert!(spec.operations[0].idempotent);
        assert!(spec.operations[0].statements[0].binds[0].per_key);
        assert_eq!(spec.keys.zipf_theta, 0.99);
        assert_eq!(spec.connection.retries, 3);
        assert_eq!(spec.output.interval_s, 1.0);
        assert_eq!(spec.rate, Rate::Closed { threads: 4 });
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let bad = MINIMAL.replace("\"seed_typo\"", "x").replace(
            "\"stop\": {\"ops\": 100}",
            "\"stop\": {\"ops\": 100}, \"bogus\": 1",
        );
        assert!(WorkloadSpec::from_json(&bad).is_err());
        let bad_rate = MINIMAL.replace("\"threads\": 4", "\"threads\": 4, \"rate_per_s\": 3");
        assert!(WorkloadSpec::from_json(&bad_rate).is_err());
    }

    #[test]
    fn enum_spellings_match_python() {
        let text = MINIMAL
            .replace("\"weight\": 1.0,", "\"weight\": 1.0, \"consistency\": \"LOCAL_QUORUM\", \"serial_consistency\": \"LOCAL_SERIAL\",")
            .replace("\"kind\": \"write\"", "\"kind\": \"read_modify_write\"");
        let err = WorkloadSpec::from_json(&text).unwrap_err();
        assert!(err.contains("read_modify_write needs 2"), "{err}");
        let ramp = MINIMAL.replace(
            "{\"mode\": \"closed\", \"threads\": 4}",
            "{\"mode\": \"ramp\", \"min\": 2, \"max\": 8}",
        );
        let spec = WorkloadSpec::from_json(&ramp).unwrap();
        assert!(matches!(
            spec.rate,
            Rate::Ramp {
                min: 2,
                max: 8,
                patience: 3,
                ..
            }
        ));
    }

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
