//! Execution of one operation: cycle `i` becomes its statements (or a batch), each sent
//! under the retry rule (`retry`), the result read (rows, not found, read-back
//! validation), and the outcome timed and recorded into the worker's shard. A failed
//! operation counts in `errors` and by the kind of its final error (`classify`); it never
//! stops the run.

use std::sync::Mutex;
use std::time::Instant;

use scylla::client::session::Session;
use scylla::errors::ExecutionError;
use scylla::response::query_result::QueryResult;
use scylla::statement::batch::Batch;
use scylla::statement::prepared::PreparedStatement;
use scylla::value::{CqlValue, Row};

use super::classify::kind_of;
use super::lwt;
use super::retry::Retry;
use super::session::{self, Prepared};
use super::token_ring::{ring_tokens, Walk};
use crate::error::EngineError;
use crate::gen::Value;
use crate::spec::{ErrorKind, OpKind, WorkloadSpec};
use crate::stats::Shard;
use crate::workload::{RowRef, Workload, MAX_BATCH_ROWS};

/// What one successful operation saw.
#[derive(Default)]
pub(super) struct Outcome {
    pub(super) rows: u64,
    pub(super) partitions: u64,
    not_found: bool,
    mismatch: Option<String>,
    /// A conditional operation's `[applied]`.
    applied: Option<bool>,
    /// An ANN search: how many of its k true nearest neighbours came back.
    recall_hits: Option<u32>,
    /// Search while loading: an ANN search that could not be judged.
    recall_unjudged: bool,
}

pub(super) enum OpError {
    Exec(Box<ExecutionError>),
    Result(String),
}

impl OpError {
    fn message(&self) -> String {
        match self {
            OpError::Exec(e) => e.to_string(),
            OpError::Result(s) => s.clone(),
        }
    }

    fn kind(&self) -> ErrorKind {
        match self {
            OpError::Exec(e) => kind_of(e),
            OpError::Result(_) => ErrorKind::Other,
        }
    }
}

/// The connected, prepared engine, shared by every worker.
pub struct Engine {
    pub(super) session: Session,
    workload: Workload,
    pub(super) prepared: Vec<Vec<PreparedStatement>>,
    /// Per operation: its walk over the token ring (token range operations only).
    pub(super) walks: Vec<Option<Walk>>,
    batches: Vec<Option<Batch>>, // per operation: an empty batch carrying its settings
    retry: Retry,
    validate: bool,
    verify: Option<PreparedStatement>,
}

impl Engine {
    /// Connect, apply the schema and prepare (see `session`).
    pub async fn connect(spec: &WorkloadSpec, workload: Workload) -> Result<Engine, EngineError> {
        let Prepared {
            session,
            statements,
            batches,
            verify,
        } = session::connect(spec).await?;
        // the ring's tokens only for a workload that walks it
        let walks_ring = spec.operations.iter().any(|op| op.token_range.is_some());
        let tokens = if walks_ring {
            ring_tokens(&session)
        } else {
            Vec::new()
        };
        let walks = spec
            .operations
            .iter()
            .map(|op| op.token_range.as_ref().map(|t| Walk::new(&tokens, t)))
            .collect();
        Ok(Engine {
            session,
            walks,
            workload,
            prepared: statements,
            batches,
            retry: Retry::of(&spec.connection),
            validate: spec.validate_reads,
            verify,
        })
    }

    /// Whether the spec asks to read back acknowledged writes (`verify`).
    pub fn verifies(&self) -> bool {
        self.verify.is_some()
    }

    /// Read `key` back with the verify statement (retried: reads are idempotent): whether
    /// a row came back, or the error that stood.
    pub async fn read_back(&self, key: i64) -> Result<bool, String> {
        let stmt = self.verify.as_ref().expect("read_back needs spec verify");
        let values = self.workload.verify_values(key);
        let result = self
            .exec(stmt, &values, true)
            .await
            .map_err(|e| format!("{:?}: {e}", kind_of(&e)))?;
        let rows = result
            .into_rows_result()
            .map_err(|e| format!("reading the result failed: {e}"))?;
        Ok(rows.rows_num() > 0)
    }

    /// Token range walks start again from the start of the ring (a new phase).
    pub fn restart_walks(&self) {
        self.walks.iter().flatten().for_each(Walk::restart);
    }

    /// Run `attempt` until it succeeds, fails for good, or (idempotent requests only)
    /// the retries with exponential backoff are used up.
    pub(super) async fn retrying<T, F, Fut>(
        &self,
        idempotent: bool,
        attempt: F,
    ) -> Result<T, ExecutionError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<T, ExecutionError>>,
    {
        let mut tries = 0u32;
        loop {
            match attempt().await {
                Ok(r) => return Ok(r),
                Err(e) => match self.retry.pause(idempotent, tries, &e) {
                    Some(pause) => {
                        tokio::time::sleep(pause).await;
                        tries += 1;
                    }
                    None => return Err(e),
                },
            }
        }
    }

    async fn exec(
        &self,
        stmt: &PreparedStatement,
        values: &Vec<Value>,
        idempotent: bool,
    ) -> Result<QueryResult, ExecutionError> {
        self.retrying(idempotent, || self.session.execute_unpaged(stmt, values))
            .await
    }

    /// A batch insert: its rows in batches of at most MAX_BATCH_ROWS, one after another
    /// (a single row goes as a plain statement, as cassandra-stress sends it).
    async fn run_batch(&self, op: usize, key: i64, cycle: u64) -> Result<Outcome, OpError> {
        let plan = &self.workload.ops[op];
        let stmt = &self.prepared[op][0];
        let template = self.batches[op]
            .as_ref()
            .expect("batch operations have a batch");
        let (rows, partitions) = self.workload.batch_rows(op, key, cycle);
        let mut applied = None;
        for chunk in rows.chunks(MAX_BATCH_ROWS) {
            let values: Vec<Vec<Value>> = chunk
                .iter()
                .map(|r| self.workload.row_values(op, 0, r, cycle))
                .collect();
            let result = if let [one] = values.as_slice() {
                self.exec(stmt, one, plan.idempotent).await
            } else {
                let mut batch = template.clone();
                for _ in chunk {
                    batch.append_statement(stmt.clone());
                }
                self.retrying(plan.idempotent, || self.session.batch(&batch, &values))
                    .await
            };
            let result = result.map_err(|e| OpError::Exec(Box::new(e)))?;
            if plan.conditional {
                // every chunk must apply for the operation to count as applied
                let this = applied_of(result)?;
                applied = Some(applied.unwrap_or(true) && this);
            }
        }
        Ok(Outcome {
            rows: rows.len() as u64,
            partitions,
            applied,
            ..Outcome::default()
        })
    }

    async fn run_op(&self, op: usize, key: i64, cycle: u64) -> Result<Outcome, OpError> {
        let plan = &self.workload.ops[op];
        if plan.batch.is_some() {
            return self.run_batch(op, key, cycle).await;
        }
        let stmts = &self.prepared[op];
        let target = RowRef {
            key,
            row: self.workload.pick_row(op, key, cycle),
        };
        let read_first = !plan.condition_binds.is_empty();
        let mut last = None;
        let mut read: Option<Row> = None;
        for (s, stmt) in stmts.iter().enumerate() {
            let mut values = self.workload.row_values(op, s, &target, cycle);
            if read_first && s == 1 {
                values = lwt::bind_read(values, &plan.condition_binds, read.as_ref());
            }
            let r = self
                .exec(stmt, &values, plan.idempotent)
                .await
                .map_err(|e| OpError::Exec(Box::new(e)))?;
            if read_first && s == 0 {
                read = first_row(r)?; // the current values, for the IF conditions
                continue;
            }
            if plan.kind == OpKind::ReadModifyWrite && s == 0 {
                continue; // the read half: only its latency counts
            }
            last = Some(r);
        }
        let mut out = Outcome {
            partitions: 1,
            ..Outcome::default()
        };
        let Some(result) = last else {
            return Ok(out);
        };
        if plan.conditional {
            out.rows = 1;
            out.applied = Some(applied_of(result)?);
            return Ok(out);
        }
        if !result.is_rows() {
            out.rows = 1; // a write: one row
            return Ok(out);
        }
        let rows = result
            .into_rows_result()
            .map_err(|e| OpError::Result(format!("reading the result failed: {e}")))?;
        out.rows = rows.rows_num() as u64;
        if let (Some(k), Some(v)) = (plan.recall_k, &self.workload.vectors) {
            let found = found_keys(&rows)?;
            out.recall_hits = v.judge(v.query_row(cycle), &found, k as usize);
            out.recall_unjudged = out.recall_hits.is_none();
            return Ok(out);
        }
        if matches!(plan.kind, OpKind::Read | OpKind::CounterRead) && out.rows == 0 {
            out.not_found = true;
        }
        if self.validate && plan.kind == OpKind::Read && !plan.validate.is_empty() && out.rows > 0 {
            let names: Vec<String> = rows
                .column_specs()
                .iter()
                .map(|c| c.name().to_string())
                .collect();
            let columns = result_columns(&plan.validate_names, &names);
            let expected = self
                .workload
                .expected_row(op, key, target.row.as_ref(), cycle);
            let decoded = rows
                .rows::<Row>()
                .map_err(|e| OpError::Result(format!("decoding the rows failed: {e}")))?;
            for row in decoded {
                let row =
                    row.map_err(|e| OpError::Result(format!("decoding a row failed: {e}")))?;
                let wrong = mismatch(key, self.workload.data_seed, &expected, &columns, &row);
                if wrong.is_some() {
                    out.mismatch = wrong;
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Run cycle `i`, timing from `due` (open loop) or the send (closed loop). False: the
    /// cycle drew a token range operation whose walk is done, and ran nothing (the phase
    /// ends, as a cassandra-stress thread does when an operation is no longer ready).
    pub async fn execute(&self, i: u64, due: Option<Instant>, shard: &Mutex<Shard>) -> bool {
        let (op, key) = self.workload.plan(i);
        let sent = Instant::now();
        let result = if self.workload.ops[op].kind == OpKind::TokenRange {
            match self.run_token_range(op).await {
                Some(result) => result,
                None => return false,
            }
        } else {
            self.run_op(op, key, i).await
        };
        let done = Instant::now();
        let service_ns = done.duration_since(sent).as_nanos() as u64;
        let response_ns = done.duration_since(due.unwrap_or(sent)).as_nanos() as u64;
        let mut s = shard.lock().unwrap_or_else(|p| p.into_inner());
        match result {
            Ok(o) => {
                let slot = self.workload.slots[op];
                let acc = &mut s.ops[slot];
                acc.record(response_ns, service_ns);
                acc.rows += o.rows;
                acc.partitions += o.partitions;
                acc.not_found += o.not_found as u64;
                if let (Some(h), Some(k)) = (o.recall_hits, self.workload.ops[op].recall_k) {
                    acc.record_recall(h, k);
                }
                acc.recall_unjudged += o.recall_unjudged as u64;
                match o.applied {
                    Some(true) => acc.applied += 1,
                    Some(false) => acc.not_applied += 1,
                    None => {}
                }
                if let Some(m) = o.mismatch {
                    acc.mismatches += 1;
                    s.sample_error(slot, || m);
                }
                if self.workload.ops[op].kind == OpKind::Write {
                    s.acknowledged(key);
                }
                if self.workload.ops[op].writes_base_vector {
                    if let Some(v) = &self.workload.vectors {
                        v.inserted_key(key);
                    }
                }
            }
            Err(e) => {
                let slot = self.workload.slots[op];
                s.ops[slot].fail(e.kind());
                s.sample_error(slot, || e.message());
            }
        }
        true
    }
}

/// The keys an ANN search returned: the first column of each row (bigint or int).
fn found_keys(rows: &scylla::response::query_result::QueryRowsResult) -> Result<Vec<i64>, OpError> {
    let decoded = rows
        .rows::<Row>()
        .map_err(|e| OpError::Result(format!("decoding the ANN result failed: {e}")))?;
    let mut keys = Vec::new();
    for row in decoded {
        let row = row.map_err(|e| OpError::Result(format!("decoding a row failed: {e}")))?;
        match row.columns.first() {
            Some(Some(CqlValue::BigInt(k))) => keys.push(*k),
            Some(Some(CqlValue::Int(k))) => keys.push(i64::from(*k)),
            other => {
                return Err(OpError::Result(format!(
                    "an ANN search's first column must be the bigint key its recall is \
                     counted by, got {other:?}; write SELECT key FROM ... ORDER BY v ANN OF ?"
                )))
            }
        }
    }
    Ok(keys)
}

/// The first row of a read's result, if any.
fn first_row(result: QueryResult) -> Result<Option<Row>, OpError> {
    let rows = result
        .into_rows_result()
        .map_err(|e| OpError::Result(format!("reading the result failed: {e}")))?;
    rows.maybe_first_row::<Row>()
        .map_err(|e| OpError::Result(format!("decoding the row failed: {e}")))
}

/// The `[applied]` outcome of a conditional statement's result.
fn applied_of(result: QueryResult) -> Result<bool, OpError> {
    let rows = result
        .into_rows_result()
        .map_err(|e| OpError::Result(format!("reading the LWT result failed: {e}")))?;
    let names: Vec<String> = rows
        .column_specs()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let first = rows
        .maybe_first_row::<Row>()
        .map_err(|e| OpError::Result(format!("decoding the LWT result failed: {e}")))?;
    lwt::applied(&names, first.as_ref()).map_err(OpError::Result)
}

/// Where each validated column sits in the result: found by its name (a `SELECT *`
/// returns columns in Cassandra's order, not the table's), else at its own position.
fn result_columns(validate: &[String], result: &[String]) -> Vec<(String, usize)> {
    validate
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let at = result.iter().position(|r| r == name).unwrap_or(i);
            (name.clone(), at)
        })
        .collect()
}

/// The first column of a read row that differs from what the write of `key` under
/// `data_seed` stored; `columns` names each expected value and its place in the row.
fn mismatch(
    key: i64,
    data_seed: u64,
    expected: &[Value],
    columns: &[(String, usize)],
    row: &Row,
) -> Option<String> {
    for (want, (name, at)) in expected.iter().zip(columns) {
        let got = row.columns.get(*at).and_then(|c| c.as_ref());
        if !want.matches(got) {
            return Some(format!(
                "validation: key {key} column {name}: read {}, the write of that key \
                 stores {}; was the data written with data seed {data_seed} and these \
                 generators?",
                describe_cql(got),
                describe(want)
            ));
        }
    }
    None
}

fn hex_prefix(b: &[u8]) -> String {
    b.iter().take(8).map(|x| format!("{x:02x}")).collect()
}

fn describe(v: &Value) -> String {
    match v {
        Value::Blob(b) => format!("blob[{}] 0x{}..", b.len(), hex_prefix(b)),
        Value::Text(t) => format!("text[{}] {:?}..", t.len(), &t[..t.len().min(16)]),
        Value::Cql(v) => describe_cql(Some(v)),
        other => format!("{other:?}"),
    }
}

fn describe_cql(v: Option<&CqlValue>) -> String {
    match v {
        None => "null".into(),
        Some(CqlValue::Blob(b)) => format!("blob[{}] 0x{}..", b.len(), hex_prefix(b)),
        Some(CqlValue::Text(t) | CqlValue::Ascii(t)) => {
            let end = t.char_indices().nth(16).map_or(t.len(), |(i, _)| i);
            format!("text[{}] {:?}..", t.len(), &t[..end])
        }
        Some(other) => {
            let s = format!("{other:?}");
            s.chars().take(120).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_first_differing_column() {
        let expected = [Value::Blob(vec![1, 2, 3]), Value::Text("abc".into())];
        let same = Row {
            columns: vec![
                Some(CqlValue::Blob(vec![1, 2, 3])),
                Some(CqlValue::Text("abc".into())),
            ],
        };
        let columns = result_columns(&["C0".into(), "C1".into()], &["C1".into(), "C0".into()]);
        assert_eq!(columns, [("C0".to_string(), 1), ("C1".to_string(), 0)]);
        let columns = result_columns(&["C0".into(), "C1".into()], &[]);
        assert_eq!(mismatch(7, 0, &expected, &columns, &same), None);
        let other = Row {
            columns: vec![Some(CqlValue::Blob(vec![1, 2, 3])), None],
        };
        let m = mismatch(7, 42, &expected, &columns, &other).unwrap();
        assert!(
            m.starts_with("validation: key 7 column C1: read null"),
            "{m}"
        );
        assert!(m.contains("text[3] \"abc\".."), "{m}");
        assert!(
            m.ends_with("was the data written with data seed 42 and these generators?"),
            "{m}"
        );
    }

    #[test]
    fn descriptions_are_short() {
        let long = CqlValue::Blob((0..100).collect());
        assert_eq!(describe_cql(Some(&long)), "blob[100] 0x0001020304050607..");
        let text = CqlValue::Text("é".repeat(20));
        assert_eq!(
            describe_cql(Some(&text)),
            format!("text[40] {:?}..", "é".repeat(16))
        );
        assert_eq!(describe(&Value::Blob(vec![0xab; 3])), "blob[3] 0xababab..");
    }
}
