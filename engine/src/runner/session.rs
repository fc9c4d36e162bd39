//! Connection and statement preparation: the session (request timeout, the engine's own
//! retries instead of the driver's, DC-aware routing, TLS, credentials), the spec's schema
//! statements and `USE`, then one prepared statement per statement of each operation and,
//! for batch operations, an empty batch carrying the operation's settings, and the
//! read-back statement of `verify`.

use std::sync::Arc;
use std::time::Duration;

use scylla::client::execution_profile::ExecutionProfile;
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::frame::types::{Consistency as CqlConsistency, SerialConsistency};
use scylla::policies::load_balancing::DefaultPolicy;
use scylla::policies::retry::FallthroughRetryPolicy;
use scylla::statement::batch::{Batch, BatchType as CqlBatchType};
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::unprepared::Statement;

use crate::error::EngineError;
use crate::spec::{BatchType, Connection, Consistency, Operation, WorkloadSpec};

/// A session ready for load: schema applied, every statement prepared.
pub struct Prepared {
    pub session: Session,
    /// Per operation, its prepared statements in spec order.
    pub statements: Vec<Vec<PreparedStatement>>,
    /// Per operation: an empty batch carrying its settings (batch operations only).
    pub batches: Vec<Option<Batch>>,
    /// The read-back of acknowledged writes (spec `verify`), idempotent, at its consistency.
    pub verify: Option<PreparedStatement>,
}

/// Connect, run the schema statements and `USE`, prepare every statement.
pub async fn connect(spec: &WorkloadSpec) -> Result<Prepared, EngineError> {
    let session = open_session(&spec.connection).await?;
    for cql in &spec.schema_cql {
        session
            .query_unpaged(schema_statement(cql, &spec.connection), ())
            .await
            .map_err(|e| EngineError::Run(format!("schema statement failed: {cql:?}: {e}")))?;
    }
    if let Some(ks) = &spec.keyspace {
        session
            .use_keyspace(ks.as_str(), false)
            .await
            .map_err(|e| {
                EngineError::Run(format!("USE {ks} failed: {e}; is the keyspace created?"))
            })?;
    }
    let mut statements = Vec::with_capacity(spec.operations.len());
    let mut batches = Vec::with_capacity(spec.operations.len());
    for op in &spec.operations {
        batches.push(batch_template(op));
        let mut stmts = Vec::with_capacity(op.statements.len());
        for st in &op.statements {
            let mut p = session.prepare(st.cql.as_str()).await.map_err(|e| {
                EngineError::Run(format!(
                    "operation {:?}: cannot prepare {:?}: {e}",
                    op.name, st.cql
                ))
            })?;
            p.set_consistency(consistency(op.consistency));
            if let Some(sc) = op.serial_consistency {
                let sc = serial_consistency(&op.name, sc)?;
                p.set_serial_consistency(Some(sc));
                if let Some(Some(b)) = batches.last_mut() {
                    b.set_serial_consistency(Some(sc));
                }
            }
            p.set_is_idempotent(op.idempotent);
            // a token range query binds its piece's two bounds, in pages
            let binds = match &op.token_range {
                Some(t) => {
                    p.set_page_size(t.page_size.min(i64::from(i32::MAX)) as i32);
                    2
                }
                None => st.binds.len(),
            };
            check_binds(&op.name, &st.cql, p.get_variable_col_specs().len(), binds)?;
            stmts.push(p);
        }
        statements.push(stmts);
    }
    let verify = match &spec.verify {
        None => None,
        Some(v) => {
            let cql = v.statement.cql.as_str();
            let mut p = session
                .prepare(cql)
                .await
                .map_err(|e| EngineError::Run(format!("verify: cannot prepare {cql:?}: {e}")))?;
            p.set_consistency(consistency(v.consistency));
            p.set_is_idempotent(true);
            check_binds(
                "verify",
                cql,
                p.get_variable_col_specs().len(),
                v.statement.binds.len(),
            )?;
            Some(p)
        }
    };
    Ok(Prepared {
        session,
        statements,
        batches,
        verify,
    })
}

async fn open_session(c: &Connection) -> Result<Session, EngineError> {
    let mut builder = SessionBuilder::new()
        .known_nodes(&c.contact_points)
        .default_execution_profile_handle(profile(c).into_handle());
    if c.tls {
        builder = with_tls(builder, c)?;
    }
    if let Some((user, password)) = credentials(c)? {
        builder = builder.user(user, password);
    }
    builder.build().await.map_err(|e| {
        EngineError::Connect(format!(
            "cannot connect to {:?}: {e}; {}",
            c.contact_points,
            connect_hint(c.tls)
        ))
    })
}

/// The least time a schema statement is given: a CREATE waits for the cluster's schema
/// agreement, which takes far longer than the operations' request timeout (a test's 300 ms
/// read timeout once failed its CREATE TABLE on a busy machine).
const SCHEMA_TIMEOUT: Duration = Duration::from_secs(60);

/// A schema statement with the longer of the request timeout and [`SCHEMA_TIMEOUT`].
fn schema_statement(cql: &str, c: &Connection) -> Statement {
    let mut statement = Statement::new(cql);
    statement.set_request_timeout(Some(request_timeout(c).max(SCHEMA_TIMEOUT)));
    statement
}

/// The operations' request timeout, at least a millisecond.
fn request_timeout(c: &Connection) -> Duration {
    Duration::from_secs_f64(c.request_timeout_s.max(0.001))
}

/// Request timeout, no driver retries (every retry is the engine's), and DC-aware
/// token-aware routing when `local_dc` is given.
fn profile(c: &Connection) -> ExecutionProfile {
    let mut profile = ExecutionProfile::builder()
        .request_timeout(Some(request_timeout(c)))
        .retry_policy(Arc::new(FallthroughRetryPolicy::new()));
    if let Some(dc) = &c.local_dc {
        profile = profile.load_balancing_policy(
            DefaultPolicy::builder()
                .prefer_datacenter(dc.clone())
                .token_aware(true)
                .build(),
        );
    }
    profile.build()
}

/// What to check when the session cannot be built.
fn connect_hint(tls: bool) -> &'static str {
    if tls {
        "check the node is up, the address/port, and that tls_ca_file signs its certificate"
    } else {
        "check the node is up and the address/port; a node that requires client \
         encryption needs TLS (connection.tls, tls_ca_file)"
    }
}

/// Username and password (read from `password_env` when named), or none. The spec check
/// (`Connection::check`) lets a username come only with a password or password_env.
fn credentials(c: &Connection) -> Result<Option<(String, String)>, EngineError> {
    let password = c.password().map_err(EngineError::Connect)?;
    debug_assert_eq!(
        c.username.is_some(),
        password.is_some(),
        "a checked connection has both username and password, or neither"
    );
    Ok(c.username.clone().zip(password))
}

/// TLS through OpenSSL: verify the node against `tls_ca_file`, else the system CA store.
#[cfg(feature = "tls")]
fn with_tls(builder: SessionBuilder, c: &Connection) -> Result<SessionBuilder, EngineError> {
    use openssl::ssl::{SslConnector, SslMethod};
    use scylla::client::session::OpenSsl010Config;
    let mut ssl = SslConnector::builder(SslMethod::tls())
        .map_err(|e| EngineError::Connect(format!("cannot set up TLS: {e}")))?;
    if let Some(ca) = &c.tls_ca_file {
        ssl.set_ca_file(ca).map_err(|e| {
            EngineError::Connect(format!(
                "connection.tls_ca_file {ca:?} is not a readable PEM CA file: {e}"
            ))
        })?;
    }
    Ok(builder.tls_context(Some(OpenSsl010Config::new(ssl))))
}

#[cfg(not(feature = "tls"))]
fn with_tls(_builder: SessionBuilder, c: &Connection) -> Result<SessionBuilder, EngineError> {
    Err(EngineError::Connect(format!(
        "connection.tls is set but this engine was built without TLS; rebuild it with \
         `cargo build --release -p casslab-engine --features tls` (needs libssl-dev), or \
         connect to {:?} without TLS",
        c.contact_points
    )))
}

pub fn consistency(c: Consistency) -> CqlConsistency {
    match c {
        Consistency::Any => CqlConsistency::Any,
        Consistency::One => CqlConsistency::One,
        Consistency::Two => CqlConsistency::Two,
        Consistency::Three => CqlConsistency::Three,
        Consistency::Quorum => CqlConsistency::Quorum,
        Consistency::All => CqlConsistency::All,
        Consistency::LocalQuorum => CqlConsistency::LocalQuorum,
        Consistency::EachQuorum => CqlConsistency::EachQuorum,
        Consistency::LocalOne => CqlConsistency::LocalOne,
        Consistency::Serial => CqlConsistency::Serial,
        Consistency::LocalSerial => CqlConsistency::LocalSerial,
    }
}

/// An operation's serial consistency: SERIAL or LOCAL_SERIAL only.
fn serial_consistency(op: &str, c: Consistency) -> Result<SerialConsistency, EngineError> {
    match c {
        Consistency::Serial => Ok(SerialConsistency::Serial),
        Consistency::LocalSerial => Ok(SerialConsistency::LocalSerial),
        other => Err(EngineError::Spec(format!(
            "operation {op:?}: serial_consistency {other:?} must be SERIAL or LOCAL_SERIAL"
        ))),
    }
}

/// A batch operation's empty batch: its type, consistency and idempotence; statements are
/// appended per execution.
fn batch_template(op: &Operation) -> Option<Batch> {
    op.batch.as_ref().map(|b| {
        let mut batch = Batch::new(match b.batch_type {
            BatchType::Logged => CqlBatchType::Logged,
            BatchType::Unlogged => CqlBatchType::Unlogged,
            BatchType::Counter => CqlBatchType::Counter,
        });
        batch.set_consistency(consistency(op.consistency));
        batch.set_is_idempotent(op.idempotent);
        batch
    })
}

/// A prepared statement takes exactly one value per bind marker.
fn check_binds(op: &str, cql: &str, markers: usize, binds: usize) -> Result<(), EngineError> {
    if markers == binds {
        return Ok(());
    }
    Err(EngineError::Spec(format!(
        "operation {op:?}: statement {cql:?} has {markers} bind markers but {binds} binds given"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(extra_connection: &str, extra_op: &str) -> WorkloadSpec {
        WorkloadSpec::from_json(&format!(
            r#"{{"connection": {{"contact_points": ["127.0.0.1:9042"]{extra_connection}}},
                "operations": [{{"name": "w", "kind": "write", "weight": 1{extra_op},
                    "statements": [{{"cql": "INSERT INTO t (k) VALUES (?)",
                                    "binds": [{{"kind": "key_blob", "column": "k"}}]}}]}}],
                "keys": {{"kind": "seq", "min": 1, "max": 10}},
                "rate": {{"mode": "closed", "threads": 1}}, "stop": {{"ops": 1}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn consistencies_map_one_to_one() {
        let table = [
            (Consistency::Any, CqlConsistency::Any),
            (Consistency::One, CqlConsistency::One),
            (Consistency::Two, CqlConsistency::Two),
            (Consistency::Three, CqlConsistency::Three),
            (Consistency::Quorum, CqlConsistency::Quorum),
            (Consistency::All, CqlConsistency::All),
            (Consistency::LocalQuorum, CqlConsistency::LocalQuorum),
            (Consistency::EachQuorum, CqlConsistency::EachQuorum),
            (Consistency::LocalOne, CqlConsistency::LocalOne),
            (Consistency::Serial, CqlConsistency::Serial),
            (Consistency::LocalSerial, CqlConsistency::LocalSerial),
        ];
        for (ours, driver) in table {
            assert_eq!(consistency(ours), driver, "{ours:?}");
        }
    }

    #[test]
    fn serial_consistency_is_serial_or_local_serial() {
        assert_eq!(
            serial_consistency("w", Consistency::Serial),
            Ok(SerialConsistency::Serial)
        );
        assert_eq!(
            serial_consistency("w", Consistency::LocalSerial),
            Ok(SerialConsistency::LocalSerial)
        );
        let Err(EngineError::Spec(m)) = serial_consistency("w", Consistency::Quorum) else {
            panic!("QUORUM is no serial consistency");
        };
        assert!(m.contains("\"w\"") && m.contains("Quorum") && m.contains("LOCAL_SERIAL"));
    }

    #[test]
    fn a_batch_template_carries_the_operation_settings() {
        assert!(batch_template(&spec("", "").operations[0]).is_none());
        let op = &spec(
            "",
            r#", "consistency": "QUORUM", "idempotent": false,
                "batch": {"partitions": {"kind": "fixed", "min": 1, "max": 1},
                          "select": {"kind": "fixed", "min": 1, "max": 1},
                          "batch_type": "unlogged"}"#,
        )
        .operations[0];
        let b = batch_template(op).unwrap();
        assert_eq!(b.get_type(), CqlBatchType::Unlogged);
        assert_eq!(b.get_consistency(), Some(CqlConsistency::Quorum));
        assert!(!b.get_is_idempotent());
        assert!(b.statements.is_empty());
    }

    #[test]
    fn bind_counts_must_match_the_markers() {
        assert_eq!(check_binds("w", "INSERT ?", 1, 1), Ok(()));
        let Err(EngineError::Spec(m)) = check_binds("w", "INSERT ?, ?", 2, 1) else {
            panic!("a missing bind is a spec error");
        };
        assert!(m.contains("2 bind markers but 1 binds given"), "{m}");
    }

    #[test]
    fn credentials_come_in_pairs() {
        assert_eq!(credentials(&spec("", "").connection), Ok(None));
        let both = spec(r#", "username": "u", "password": "p""#, "");
        assert_eq!(
            credentials(&both.connection),
            Ok(Some(("u".into(), "p".into())))
        );
        let mut unset = both.connection.clone();
        unset.password = None;
        unset.password_env = Some("CASSLAB_ENGINE_TEST_UNSET_PASSWORD_9C1D".into());
        let Err(EngineError::Connect(m)) = credentials(&unset) else {
            panic!("an unset password variable cannot authenticate");
        };
        assert!(m.contains("CASSLAB_ENGINE_TEST_UNSET_PASSWORD_9C1D"), "{m}");
    }

    #[test]
    fn a_schema_statement_waits_at_least_the_schema_timeout() {
        let mut c = spec("", "").connection;
        c.request_timeout_s = 0.3;
        let short = schema_statement("CREATE TABLE t (k int PRIMARY KEY)", &c);
        assert_eq!(short.get_request_timeout(), Some(SCHEMA_TIMEOUT));
        c.request_timeout_s = 120.0;
        let long = schema_statement("CREATE TABLE t (k int PRIMARY KEY)", &c);
        assert_eq!(long.get_request_timeout(), Some(Duration::from_secs(120)));
    }

    #[test]
    fn the_request_timeout_has_a_floor() {
        let mut c = spec("", "").connection;
        c.request_timeout_s = 0.0;
        assert_eq!(
            profile(&c).get_request_timeout(),
            Some(Duration::from_millis(1))
        );
        c.request_timeout_s = 12.0;
        assert_eq!(
            profile(&c).get_request_timeout(),
            Some(Duration::from_secs(12))
        );
        assert!(connect_hint(true).contains("tls_ca_file"));
        assert!(connect_hint(false).contains("connection.tls"));
    }
}
