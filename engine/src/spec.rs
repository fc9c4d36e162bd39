//! The workload spec: a serde mirror of `src/casslab/load/spec.py`.
//!
//! Field names, defaults and enum spellings follow the Python models exactly; unknown
//! fields are rejected on both sides. Bump [`SCHEMA_VERSION`] together with the Python side.
//!
//! | module | job |
//! |---|---|
//! | this file | the spec's records and [`WorkloadSpec::from_json`] |
//! | `connection` | how the engine reaches the cluster: [`Connection`] and its password |
//! | `defaults` | the value of each optional field that is left out |
//! | `check` | the rules a spec must satisfy, with the messages of the Python validators |
//! | `contract` | (tests) the fixtures in `engine/contract/` that both sides test the rules with |
//! | `records` | the records the engine writes: intervals, summary, error samples |

use serde::{Deserialize, Deserializer, Serialize};

mod check;
mod connection;
#[cfg(test)]
mod contract;
mod defaults;
mod records;
mod token_range;

pub use connection::Connection;
pub use records::{
    ErrorKind, ErrorRecord, IntervalRecord, LatencyStats, OpStats, Phase, RampStep, RecallStats,
    RecordType, SummaryRecord, VerifyStats,
};
pub use token_range::TokenRangeScan;

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
    #[serde(default = "defaults::zipf_theta")]
    pub zipf_theta: f64,
    #[serde(default = "defaults::hot_fraction")]
    pub hot_fraction: f64,
    #[serde(default = "defaults::hot_ops_fraction")]
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
            zipf_theta: defaults::zipf_theta(),
            hot_fraction: defaults::hot_fraction(),
            hot_ops_fraction: defaults::hot_ops_fraction(),
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
    Boolean,
    Tinyint,
    Smallint,
    Varint,
    Float,
    Decimal,
    Date,
    Time,
    Duration,
    Timeuuid,
    Inet,
    List,
    Set,
    Map,
    Tuple,
    Udt,
    Vector,
    /// A `vector<float, n>` column's value from the spec's `vectors` base file: base row
    /// `key - key_offset`.
    BaseVector,
    /// The query vector of an ANN search: query row `cycle mod queries` of `vectors`.
    QueryVector,
}

impl GenKind {
    /// How many item generators a kind takes: (at least, at most).
    pub fn item_counts(self) -> (usize, usize) {
        match self {
            GenKind::List | GenKind::Set | GenKind::Vector => (1, 1),
            GenKind::Map => (2, 2),
            GenKind::Tuple | GenKind::Udt => (1, usize::MAX),
            _ => (0, 0),
        }
    }
}

/// The keyspace and name of a user-defined type, as Cassandra stores them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UdtName {
    pub keyspace: String,
    pub name: String,
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
    #[serde(default = "defaults::yes")]
    pub per_key: bool,
    /// 0: a function of the partition key; i >= 1: of the partition key and the row's
    /// positions on clustering levels 1..=i.
    #[serde(default)]
    pub level: usize,
    /// The element generators of a collection (list, set, vector: one; map: key and
    /// value), of a tuple (one per component) or of a UDT (one per field, `column` = the
    /// field name). `size` gives a collection's length, a vector's dimension.
    #[serde(default)]
    pub items: Vec<Generator>,
    #[serde(default)]
    pub udt: Option<UdtName>,
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
    /// cassandra-stress `token_range_queries`: one piece of the token ring per operation
    TokenRange,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Statement {
    pub cql: String,
    #[serde(default)]
    pub binds: Vec<Generator>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchType {
    Logged,
    Unlogged,
    Counter,
}

/// cassandra-stress `insert:`: partitions per operation and the share of each partition's
/// rows written in one visit.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InsertBatch {
    pub partitions: Distribution,
    pub select: Distribution,
    #[serde(default = "defaults::select_divisor")]
    pub select_divisor: f64,
    #[serde(default = "defaults::batch_type")]
    pub batch_type: BatchType,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    pub name: String,
    pub kind: OpKind,
    pub weight: f64,
    pub statements: Vec<Statement>,
    #[serde(default = "defaults::consistency")]
    pub consistency: Consistency,
    #[serde(default)]
    pub serial_consistency: Option<Consistency>,
    #[serde(default)]
    pub keys: Option<Distribution>,
    #[serde(default)]
    pub validate_columns: Vec<Generator>,
    #[serde(default = "defaults::yes")]
    pub idempotent: bool,
    /// Values per partition on each clustering level (rows = their product).
    #[serde(default)]
    pub clustering: Vec<Distribution>,
    #[serde(default)]
    pub batch: Option<InsertBatch>,
    /// A lightweight transaction: the last statement has an IF clause; its `[applied]`
    /// column is counted (`applied` / `not_applied`).
    #[serde(default)]
    pub conditional: bool,
    /// cassandra-stress's read-first LWT: statement 0 reads the row's current values, one
    /// column per entry, bound in order at these positions of statement 1 in place of the
    /// generated values (a row not found binds nulls).
    #[serde(default)]
    pub condition_binds: Vec<usize>,
    /// An ANN search (`ORDER BY v ANN OF ? LIMIT k`, a `query_vector` bind): recall@k of
    /// the keys in the result's first column is counted against the ground truth of
    /// `vectors` (per query: how many of its k true nearest neighbours came back).
    #[serde(default)]
    pub recall_k: Option<u32>,
    /// `kind: token_range`: how it walks the token ring.
    #[serde(default)]
    pub token_range: Option<TokenRangeScan>,
}

/// The vector dataset of an ANN workload: TEXMEX files (`.fvecs` base and query vectors,
/// `.ivecs` ground truth: each query's nearest base rows, nearest first), memory-mapped.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VectorFiles {
    pub base: String,
    pub queries: String,
    pub ground_truth: String,
    /// The dimension of every vector (the column's `vector<float, dimension>`).
    pub dimension: u32,
    /// Base row `i` is written as key `i + key_offset`.
    #[serde(default = "defaults::key_offset")]
    pub key_offset: i64,
    /// Search while loading: the table holds base rows `[0, n)` before the run (0: none);
    /// the run's acknowledged base-vector writes add to them and recall@k is counted
    /// against the ground truth restricted to the rows held. Absent: the full truth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preloaded_rows: Option<u64>,
}

// ---------------------------------------------------------------- load shape

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "mode", rename_all = "lowercase", deny_unknown_fields)]
pub enum Rate {
    Closed {
        threads: u32,
    },
    Open {
        rate_per_s: f64,
        #[serde(default = "defaults::max_in_flight")]
        max_in_flight: u32,
    },
    Ramp {
        min: u32,
        max: u32,
        #[serde(default = "defaults::factor")]
        factor: f64,
        #[serde(default = "defaults::step_duration_s")]
        step_duration_s: f64,
        #[serde(default = "defaults::min_gain_pct")]
        min_gain_pct: f64,
        #[serde(default = "defaults::patience")]
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

// ---------------------------------------------------------------- output

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    #[serde(default)]
    pub jsonl: Option<String>,
    #[serde(default)]
    pub hdr_log: Option<String>,
    #[serde(default = "defaults::interval_s")]
    pub interval_s: f64,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            jsonl: None,
            hdr_log: None,
            interval_s: defaults::interval_s(),
        }
    }
}

// ---------------------------------------------------------------- verification

/// After the measured phase, read back every key an acknowledged `write` operation wrote:
/// `statement` (a SELECT whose binds are functions of the key only) at `consistency`; a
/// key whose read returns no row is a lost acknowledged write.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Verify {
    pub consistency: Consistency,
    pub statement: Statement,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    #[serde(default = "defaults::schema_version")]
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
    /// The operation sequence: which operation and key each cycle takes, which row of a
    /// partition it reads, how many partitions and rows a batch picks. 0 <= seed < 2**63
    /// (Python's rule); a larger number fails here with that message.
    #[serde(default, deserialize_with = "seed_in_range")]
    pub seed: i64,
    /// The data: every value written and validated, and the rows of each partition. A read
    /// validates what a write stored when both ran with the same `data_seed`, whatever
    /// their `seed`. Same range as `seed`.
    #[serde(default, deserialize_with = "data_seed_in_range")]
    pub data_seed: i64,
    #[serde(default)]
    pub validate_reads: bool,
    #[serde(default)]
    pub output: Output,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<Verify>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vectors: Option<VectorFiles>,
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
}

/// `seed` as the engine's i64, or the spec rule's message when it does not fit.
fn seed_in_range<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    in_range(d, "seed")
}

/// `data_seed` as the engine's i64, or the spec rule's message when it does not fit.
fn data_seed_in_range<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    in_range(d, "data_seed")
}

fn in_range<'de, D: Deserializer<'de>>(d: D, field: &str) -> Result<i64, D::Error> {
    let seed = i128::deserialize(d)?;
    i64::try_from(seed).map_err(|_| serde::de::Error::custom(check::seed_message(field, seed)))
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
        assert_eq!((spec.seed, spec.data_seed), (0, 0));
    }

    #[test]
    fn both_seeds_fit_an_i64_and_are_not_negative() {
        let with = |field: &str, value: &str| {
            let text = MINIMAL.replace(
                "\"stop\": {\"ops\": 100}",
                &format!("\"stop\": {{\"ops\": 100}}, \"{field}\": {value}"),
            );
            WorkloadSpec::from_json(&text)
        };
        let spec = with("data_seed", "9223372036854775807").unwrap();
        assert_eq!((spec.seed, spec.data_seed), (0, i64::MAX));
        for field in ["seed", "data_seed"] {
            for bad in ["-1", "9223372036854775808"] {
                let err = with(field, bad).unwrap_err();
                let want = format!("{field} must be >= 0 and < 2**63 (got {bad})");
                assert!(err.contains(&want), "{err}");
            }
        }
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
        assert!(err.contains("read_modify_write needs exactly 2"), "{err}");
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
    fn verify_reads_back_row_writes_by_the_key_alone() {
        let verify = r#", "verify": {"consistency": "QUORUM", "statement": {
            "cql": "SELECT k FROM t WHERE k = ?", "binds": [BIND]}}"#;
        let with = |ops: &str, bind: &str| {
            let text = MINIMAL.replace(
                "\"stop\": {\"ops\": 100}",
                &format!("\"stop\": {{\"ops\": 100}}{}", verify.replace("BIND", bind)),
            );
            WorkloadSpec::from_json(&text.replace("\"kind\": \"write\"", ops))
        };
        let key = r#"{"kind": "key_blob", "column": "k"}"#;
        let spec = with("\"kind\": \"write\"", key).unwrap();
        let v = spec.verify.unwrap();
        assert_eq!(v.consistency, Consistency::Quorum);
        assert_eq!(v.statement.binds[0].kind, GenKind::KeyBlob);
        assert!(WorkloadSpec::from_json(MINIMAL).unwrap().verify.is_none());
        let per_cycle = r#"{"kind": "blob", "column": "v", "per_key": false}"#;
        let err = with("\"kind\": \"write\"", per_cycle).unwrap_err();
        assert!(
            err.contains("bind \"v\" is not a function of the key alone"),
            "{err}"
        );
        let err = with("\"kind\": \"read\"", key).unwrap_err();
        assert!(err.contains("verify: no operation of kind write"), "{err}");
        let batch = r#""kind": "write", "batch": {"partitions": {"kind": "fixed", "min": 1,
            "max": 1}, "select": {"kind": "fixed", "min": 1, "max": 1}}"#;
        let err = with(batch, key).unwrap_err();
        assert!(err.contains("operation \"write\" writes batches"), "{err}");
    }

    pub(super) fn with_connection(extra: &str) -> Result<WorkloadSpec, String> {
        let text = MINIMAL.replace(
            "\"contact_points\": [\"127.0.0.1:9042\"]",
            &format!("\"contact_points\": [\"127.0.0.1:9042\"], {extra}"),
        );
        WorkloadSpec::from_json(&text)
    }

    #[test]
    fn credentials_follow_the_python_rules() {
        let both = with_connection(r#""username": "u", "password": "p", "password_env": "P""#);
        assert!(both.unwrap_err().contains("not both"));
        let bad_name = with_connection(r#""username": "u", "password_env": "1-X""#);
        assert!(bad_name
            .unwrap_err()
            .contains("not an environment variable name"));
        let alone = with_connection(r#""username": "u""#);
        assert!(alone
            .unwrap_err()
            .contains("give both username and password"));
        let no_user = with_connection(r#""password_env": "P""#);
        assert!(no_user
            .unwrap_err()
            .contains("give both username and password"));
        let inline = with_connection(r#""username": "u", "password": "p""#).unwrap();
        assert_eq!(inline.connection.password().unwrap().as_deref(), Some("p"));
        assert_eq!(
            WorkloadSpec::from_json(MINIMAL)
                .unwrap()
                .connection
                .password()
                .unwrap(),
            None
        );
    }
}
