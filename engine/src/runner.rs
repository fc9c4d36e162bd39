//! Talking to the cluster: connect, run the schema, prepare, and drive load phases.
//!
//! Workers only execute and record into their shard; one recorder (the phase driver)
//! drains the shards once per interval and writes the records.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use scylla::client::execution_profile::ExecutionProfile;
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::errors::{DbError, ExecutionError, RequestAttemptError};
use scylla::frame::types::{Consistency as CqlConsistency, SerialConsistency};
use scylla::policies::load_balancing::DefaultPolicy;
use scylla::policies::retry::FallthroughRetryPolicy;
use scylla::response::query_result::QueryResult;
use scylla::statement::batch::{Batch, BatchType as CqlBatchType};
use scylla::statement::prepared::PreparedStatement;
use scylla::value::Row;
use tokio::sync::Notify;
use tokio::task::JoinSet;

use crate::output::Sink;
use crate::spec::{
    BatchType, Connection, Consistency, ErrorRecord, IntervalRecord, OpKind, OpStats, Phase,
    RampStep, Rate, RecordType, SummaryRecord, WorkloadSpec, SCHEMA_VERSION,
};
use crate::stats::{drain, total, HdrLog, OpAcc, Shard};
use crate::workload::{
    best_threads, due_offset, next_ramp_step, ops_due_within, ramp_exhausted, report_names, RowRef,
    Workload, MAX_BATCH_ROWS,
};

/// A fatal error: reported as a fatal ErrorRecord, then the engine exits non-zero.
#[derive(Debug)]
pub struct Fatal(pub String);

fn consistency(c: Consistency) -> CqlConsistency {
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

/// TLS through OpenSSL: verify the node against `tls_ca_file`, else the system CA store.
#[cfg(feature = "tls")]
fn with_tls(builder: SessionBuilder, c: &Connection) -> Result<SessionBuilder, Fatal> {
    use openssl::ssl::{SslConnector, SslMethod};
    use scylla::client::session::OpenSsl010Config;
    let mut ssl = SslConnector::builder(SslMethod::tls())
        .map_err(|e| Fatal(format!("cannot set up TLS: {e}")))?;
    if let Some(ca) = &c.tls_ca_file {
        ssl.set_ca_file(ca).map_err(|e| {
            Fatal(format!(
                "connection.tls_ca_file {ca:?} is not a readable PEM CA file: {e}"
            ))
        })?;
    }
    Ok(builder.tls_context(Some(OpenSsl010Config::new(ssl))))
}

#[cfg(not(feature = "tls"))]
fn with_tls(_builder: SessionBuilder, c: &Connection) -> Result<SessionBuilder, Fatal> {
    Err(Fatal(format!(
        "connection.tls is set but this engine was built without TLS; rebuild it with \
         `cargo build --release -p casslab-engine --features tls` (needs libssl-dev), or \
         connect to {:?} without TLS",
        c.contact_points
    )))
}

/// Whether retrying the same idempotent request may succeed.
fn retryable(e: &ExecutionError) -> bool {
    match e {
        ExecutionError::RequestTimeout(_) | ExecutionError::ConnectionPoolError(_) => true,
        ExecutionError::LastAttemptError(a) => match a {
            RequestAttemptError::DbError(db, _) => matches!(
                db,
                DbError::Unavailable { .. }
                    | DbError::Overloaded
                    | DbError::IsBootstrapping
                    | DbError::ReadTimeout { .. }
                    | DbError::WriteTimeout { .. }
                    | DbError::ReadFailure { .. }
                    | DbError::WriteFailure { .. }
                    | DbError::ServerError
                    | DbError::TruncateError
                    | DbError::RateLimitReached { .. }
            ),
            RequestAttemptError::BrokenConnectionError(_)
            | RequestAttemptError::UnableToAllocStreamId => true,
            _ => false,
        },
        _ => false,
    }
}

fn hex_prefix(b: &[u8]) -> String {
    b.iter().take(8).map(|x| format!("{x:02x}")).collect()
}

fn describe(v: &crate::gen::Value) -> String {
    match v {
        crate::gen::Value::Blob(b) => format!("blob[{}] 0x{}..", b.len(), hex_prefix(b)),
        crate::gen::Value::Text(t) => format!("text[{}] {:?}..", t.len(), &t[..t.len().min(16)]),
        other => format!("{other:?}"),
    }
}

fn describe_cql(v: Option<&scylla::value::CqlValue>) -> String {
    use scylla::value::CqlValue;
    match v {
        None => "null".into(),
        Some(CqlValue::Blob(b)) => format!("blob[{}] 0x{}..", b.len(), hex_prefix(b)),
        Some(CqlValue::Text(t) | CqlValue::Ascii(t)) => {
            let end = t.char_indices().nth(16).map_or(t.len(), |(i, _)| i);
            format!("text[{}] {:?}..", t.len(), &t[..end])
        }
        Some(other) => {
            let s = format!("{other:?}");
            s.chars().take(60).collect()
        }
    }
}

/// What one successful operation saw.
#[derive(Default)]
struct Outcome {
    rows: u64,
    partitions: u64,
    not_found: bool,
    mismatch: Option<String>,
}

enum OpError {
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
}

/// The connected, prepared engine, shared by every worker.
pub struct Engine {
    session: Session,
    workload: Workload,
    prepared: Vec<Vec<PreparedStatement>>,
    batches: Vec<Option<Batch>>, // per operation: an empty batch carrying its settings
    retries: u32,
    backoff: Duration,
    validate: bool,
}

impl Engine {
    pub async fn connect(spec: &WorkloadSpec, workload: Workload) -> Result<Engine, Fatal> {
        let c = &spec.connection;
        let mut profile = ExecutionProfile::builder()
            .request_timeout(Some(Duration::from_secs_f64(
                c.request_timeout_s.max(0.001),
            )))
            .retry_policy(Arc::new(FallthroughRetryPolicy::new()));
        if let Some(dc) = &c.local_dc {
            profile = profile.load_balancing_policy(
                DefaultPolicy::builder()
                    .prefer_datacenter(dc.clone())
                    .token_aware(true)
                    .build(),
            );
        }
        let mut builder = SessionBuilder::new()
            .known_nodes(&c.contact_points)
            .default_execution_profile_handle(profile.build().into_handle());
        if c.tls {
            builder = with_tls(builder, c)?;
        }
        match (&c.username, &c.password) {
            (Some(u), Some(p)) => builder = builder.user(u, p),
            (None, None) => {}
            _ => {
                return Err(Fatal(
                    "connection: give both username and password, or neither".into(),
                ))
            }
        }
        let session = builder.build().await.map_err(|e| {
            let hint = if c.tls {
                "check the node is up, the address/port, and that tls_ca_file signs its certificate"
            } else {
                "check the node is up and the address/port; a node that requires client \
                 encryption needs TLS (connection.tls, tls_ca_file)"
            };
            Fatal(format!(
                "cannot connect to {:?}: {e}; {hint}",
                c.contact_points
            ))
        })?;

        for cql in &spec.schema_cql {
            session
                .query_unpaged(cql.as_str(), ())
                .await
                .map_err(|e| Fatal(format!("schema statement failed: {cql:?}: {e}")))?;
        }
        if let Some(ks) = &spec.keyspace {
            session
                .use_keyspace(ks.as_str(), false)
                .await
                .map_err(|e| Fatal(format!("USE {ks} failed: {e}; is the keyspace created?")))?;
        }
        let mut prepared = Vec::with_capacity(spec.operations.len());
        let mut batches = Vec::with_capacity(spec.operations.len());
        for op in &spec.operations {
            batches.push(op.batch.as_ref().map(|b| {
                let mut batch = Batch::new(match b.batch_type {
                    BatchType::Logged => CqlBatchType::Logged,
                    BatchType::Unlogged => CqlBatchType::Unlogged,
                    BatchType::Counter => CqlBatchType::Counter,
                });
                batch.set_consistency(consistency(op.consistency));
                batch.set_is_idempotent(op.idempotent);
                batch
            }));
            let mut stmts = Vec::with_capacity(op.statements.len());
            for st in &op.statements {
                let mut p = session.prepare(st.cql.as_str()).await.map_err(|e| {
                    Fatal(format!(
                        "operation {:?}: cannot prepare {:?}: {e}",
                        op.name, st.cql
                    ))
                })?;
                p.set_consistency(consistency(op.consistency));
                if let Some(sc) = op.serial_consistency {
                    let sc = match sc {
                        Consistency::Serial => SerialConsistency::Serial,
                        Consistency::LocalSerial => SerialConsistency::LocalSerial,
                        other => {
                            return Err(Fatal(format!(
                                "operation {:?}: serial_consistency {other:?} must be SERIAL \
                                 or LOCAL_SERIAL",
                                op.name
                            )))
                        }
                    };
                    p.set_serial_consistency(Some(sc));
                    if let Some(Some(b)) = batches.last_mut() {
                        b.set_serial_consistency(Some(sc));
                    }
                }
                p.set_is_idempotent(op.idempotent);
                if st.binds.len() != p.get_variable_col_specs().len() {
                    return Err(Fatal(format!(
                        "operation {:?}: statement {:?} has {} bind markers but {} binds given",
                        op.name,
                        st.cql,
                        p.get_variable_col_specs().len(),
                        st.binds.len()
                    )));
                }
                stmts.push(p);
            }
            prepared.push(stmts);
        }
        Ok(Engine {
            session,
            workload,
            prepared,
            batches,
            retries: c.retries,
            backoff: Duration::from_secs_f64(c.retry_backoff_ms.max(0.0) / 1000.0),
            validate: spec.validate_reads,
        })
    }

    /// Run `attempt` until it succeeds, fails for good, or (idempotent requests only)
    /// the retries with exponential backoff are used up.
    async fn retrying<F, Fut>(
        &self,
        idempotent: bool,
        attempt: F,
    ) -> Result<QueryResult, ExecutionError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<QueryResult, ExecutionError>>,
    {
        let mut tries = 0u32;
        loop {
            match attempt().await {
                Ok(r) => return Ok(r),
                Err(e) if idempotent && tries < self.retries && retryable(&e) => {
                    let pause = self.backoff.saturating_mul(1u32 << tries.min(10));
                    tokio::time::sleep(pause.min(Duration::from_secs(5))).await;
                    tries += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    async fn exec(
        &self,
        stmt: &PreparedStatement,
        values: &Vec<crate::gen::Value>,
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
        for chunk in rows.chunks(MAX_BATCH_ROWS) {
            let values: Vec<Vec<crate::gen::Value>> = chunk
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
            result.map_err(|e| OpError::Exec(Box::new(e)))?;
        }
        Ok(Outcome {
            rows: rows.len() as u64,
            partitions,
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
        let mut last = None;
        for (s, stmt) in stmts.iter().enumerate() {
            let values = self.workload.row_values(op, s, &target, cycle);
            let r = self
                .exec(stmt, &values, plan.idempotent)
                .await
                .map_err(|e| OpError::Exec(Box::new(e)))?;
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
        if !result.is_rows() {
            out.rows = 1; // a write: one row
            return Ok(out);
        }
        let rows = result
            .into_rows_result()
            .map_err(|e| OpError::Result(format!("reading the result failed: {e}")))?;
        out.rows = rows.rows_num() as u64;
        if matches!(plan.kind, OpKind::Read | OpKind::CounterRead) && out.rows == 0 {
            out.not_found = true;
        }
        if self.validate && plan.kind == OpKind::Read && !plan.validate.is_empty() && out.rows > 0 {
            let row: Row = rows
                .first_row()
                .map_err(|e| OpError::Result(format!("decoding the row failed: {e}")))?;
            let expected = self.workload.expected_row(op, key, cycle);
            for (i, want) in expected.iter().enumerate() {
                let got = row.columns.get(i).and_then(|c| c.as_ref());
                if !want.matches(got) {
                    out.mismatch = Some(format!(
                        "validation: key {key} column {i}: read {}, the write of that key \
                         stores {}; was the data written with this seed and generators?",
                        describe_cql(got),
                        describe(want)
                    ));
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Run cycle `i`, timing from `due` (open loop) or the send (closed loop).
    async fn execute(&self, i: u64, due: Option<Instant>, shard: &Mutex<Shard>) {
        let (op, key) = self.workload.plan(i);
        let sent = Instant::now();
        let result = self.run_op(op, key, i).await;
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
                if let Some(m) = o.mismatch {
                    acc.mismatches += 1;
                    s.sample_error(slot, || m);
                }
            }
            Err(e) => {
                let slot = self.workload.slots[op];
                s.ops[slot].errors += 1;
                s.sample_error(slot, || e.message());
            }
        }
    }
}

/// How one phase generates load.
#[derive(Debug, Clone, Copy)]
pub enum Load {
    Closed { threads: u32 },
    Open { rate_per_s: f64, max_in_flight: u32 },
}

impl Load {
    fn concurrency(&self) -> u32 {
        match self {
            Load::Closed { threads } => *threads,
            Load::Open { max_in_flight, .. } => *max_in_flight,
        }
    }
}

struct PhaseCtx {
    engine: Arc<Engine>,
    shards: Vec<Mutex<Shard>>,
    counter: Arc<AtomicU64>,
    ops_limit: Option<u64>,
    stop: AtomicBool,
    deadline: Option<Instant>,
}

impl PhaseCtx {
    fn next_cycle(&self) -> Option<u64> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        let i = self.counter.fetch_add(1, Ordering::Relaxed);
        match self.ops_limit {
            Some(lim) if i >= lim => None,
            _ => Some(i),
        }
    }
}

async fn closed_worker(ctx: Arc<PhaseCtx>, shard: usize) {
    while let Some(i) = ctx.next_cycle() {
        ctx.engine.execute(i, None, &ctx.shards[shard]).await;
    }
}

async fn open_worker(ctx: Arc<PhaseCtx>, shard: usize, t0: Instant, rate_per_s: f64) {
    while let Some(i) = ctx.next_cycle() {
        let due = t0 + due_offset(i, rate_per_s);
        if ctx.deadline.is_some_and(|end| due >= end) {
            break;
        }
        if due > Instant::now() {
            tokio::time::sleep_until(due.into()).await;
            if ctx.stop.load(Ordering::Relaxed) {
                break; // interrupted while waiting for the due time
            }
        }
        ctx.engine.execute(i, Some(due), &ctx.shards[shard]).await;
    }
}

/// The recorder's state across phases: output, HDR log, run totals.
pub struct Recorder {
    pub sink: Sink,
    hdr: Option<HdrLog<BufWriter<File>>>,
    engine_start: Instant,
    interval: Duration,
    names: Vec<String>,
    n_shards: usize,
    interrupt: Arc<Notify>,
    interrupted: Arc<AtomicBool>,
}

/// What one phase measured.
pub struct PhaseResult {
    pub ops: Vec<OpAcc>,
    pub duration_s: f64,
}

impl Recorder {
    pub fn new(
        spec: &WorkloadSpec,
        sink: Sink,
        engine_start: Instant,
        n_shards: usize,
        interrupt: Arc<Notify>,
        interrupted: Arc<AtomicBool>,
    ) -> Result<Recorder, Fatal> {
        let hdr = match &spec.output.hdr_log {
            None => None,
            Some(path) => {
                let f = File::create(path).map_err(|e| {
                    Fatal(format!(
                        "cannot create HDR log {path:?}: {e}; check the directory"
                    ))
                })?;
                let base = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs_f64())
                    .unwrap_or(0.0)
                    - engine_start.elapsed().as_secs_f64();
                Some(
                    HdrLog::new(BufWriter::new(f), base)
                        .map_err(|e| Fatal(format!("cannot write HDR log {path:?}: {e}")))?,
                )
            }
        };
        Ok(Recorder {
            sink,
            hdr,
            engine_start,
            interval: Duration::from_secs_f64(spec.output.interval_s),
            names: {
                let names: Vec<&str> = spec.operations.iter().map(|o| o.name.as_str()).collect();
                report_names(&names).0
            },
            n_shards: n_shards.max(1),
            interrupt,
            interrupted,
        })
    }

    pub fn is_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::Relaxed)
    }

    fn since_start(&self, t: Instant) -> f64 {
        t.duration_since(self.engine_start).as_secs_f64()
    }

    /// Each operation name's figures over `duration_s`.
    fn stats_by_name(&self, accs: &[OpAcc], duration_s: f64) -> BTreeMap<String, OpStats> {
        self.names
            .iter()
            .zip(accs)
            .map(|(name, acc)| (name.clone(), acc.stats(duration_s)))
            .collect()
    }

    /// Drain the shards and write one interval (plus error samples and HDR lines).
    fn emit_interval(
        &mut self,
        phase: Phase,
        threads: u32,
        shards: &[Mutex<Shard>],
        scratch: &mut [OpAcc],
        into: &mut [OpAcc],
        (start, end): (Instant, Instant),
    ) {
        let samples = drain(shards, scratch);
        let dur = end.duration_since(start).as_secs_f64();
        let ops = self.stats_by_name(scratch, dur);
        let rec = IntervalRecord {
            schema_version: SCHEMA_VERSION,
            record_type: RecordType::Interval,
            phase,
            t_start_s: self.since_start(start),
            t_end_s: self.since_start(end),
            threads,
            total: total(scratch).stats(dur),
            ops,
        };
        self.sink.emit(&rec);
        for (op, message) in samples {
            self.sink.emit(&ErrorRecord::new(
                Some(self.names[op].clone()),
                message,
                false,
            ));
        }
        // The HDR log holds what the summary holds: measured (and ramp) intervals only,
        // never the discarded warm-up.
        let hdr = if matches!(phase, Phase::Warmup) {
            None
        } else {
            self.hdr.as_mut()
        };
        if let Some(log) = hdr {
            let t0 = rec.t_start_s;
            let mut failed = None;
            for (name, acc) in self.names.iter().zip(scratch.iter()) {
                if acc.count() == 0 {
                    continue;
                }
                if let Err(e) = log
                    .write(name, t0, dur, &acc.response)
                    .and_then(|_| log.write(&format!("{name}.service"), t0, dur, &acc.service))
                {
                    failed = Some(e);
                    break;
                }
            }
            if let Some(e) = failed.or_else(|| log.flush().err()) {
                self.hdr = None;
                self.sink.emit(&ErrorRecord::new(
                    None,
                    format!("HDR log write failed, log disabled: {e}"),
                    false,
                ));
            }
        }
        for (acc, src) in into.iter_mut().zip(scratch.iter_mut()) {
            acc.add(src);
            src.reset();
        }
    }

    /// Run one phase until its workers finish (ops limit, deadline or interrupt).
    #[allow(clippy::too_many_arguments)]
    pub async fn run_phase(
        &mut self,
        engine: &Arc<Engine>,
        phase: Phase,
        load: Load,
        counter: Arc<AtomicU64>,
        ops_limit: Option<u64>,
        deadline: Option<Instant>,
    ) -> PhaseResult {
        let n = self.names.len();
        let concurrency = load.concurrency().max(1);
        let n_shards = self.n_shards.min(concurrency as usize);
        let ctx = Arc::new(PhaseCtx {
            engine: Arc::clone(engine),
            shards: (0..n_shards).map(|_| Mutex::new(Shard::new(n))).collect(),
            counter,
            ops_limit,
            stop: AtomicBool::new(self.is_interrupted()),
            deadline,
        });
        let t0 = Instant::now();
        let mut workers = JoinSet::new();
        for w in 0..concurrency as usize {
            let c = Arc::clone(&ctx);
            match load {
                Load::Closed { .. } => workers.spawn(closed_worker(c, w % n_shards)),
                Load::Open { rate_per_s, .. } => {
                    workers.spawn(open_worker(c, w % n_shards, t0, rate_per_s))
                }
            };
        }
        let mut scratch: Vec<OpAcc> = (0..n).map(|_| OpAcc::new()).collect();
        let mut phase_acc: Vec<OpAcc> = (0..n).map(|_| OpAcc::new()).collect();
        let mut interval_start = t0;
        let mut next_tick = t0 + self.interval;
        // Closed loops stop at the deadline; open loops stop issuing at it by due time
        // and still finish (and time) every operation that was due before it.
        let stop_at = match load {
            Load::Closed { .. } => deadline,
            Load::Open { .. } => None,
        };
        let far = t0 + Duration::from_secs(86_400 * 365);
        let mut folded = false;
        loop {
            let interrupt = self.interrupt.notified();
            tokio::select! {
                joined = workers.join_next() => {
                    if joined.is_none() {
                        break;
                    }
                }
                _ = tokio::time::sleep_until(next_tick.into()) => {
                    let now = Instant::now();
                    if !folded && deadline.is_some_and(|d| now >= d) {
                        // Past the deadline only in-flight operations remain: fold their
                        // completion into this interval instead of a sliver of one.
                        folded = true;
                        next_tick = now + self.interval;
                        continue;
                    }
                    let span = (interval_start, now);
                    self.emit_interval(
                        phase, concurrency, &ctx.shards, &mut scratch, &mut phase_acc, span,
                    );
                    interval_start = now;
                    next_tick += self.interval;
                    while next_tick <= now {
                        next_tick += self.interval;
                    }
                }
                _ = tokio::time::sleep_until(stop_at.unwrap_or(far).into()),
                    if stop_at.is_some() && !ctx.stop.load(Ordering::Relaxed) => {
                    ctx.stop.store(true, Ordering::Relaxed);
                }
                _ = interrupt => {
                    ctx.stop.store(true, Ordering::Relaxed);
                }
            }
        }
        let end = Instant::now();
        if end.duration_since(interval_start) > Duration::from_millis(1)
            || ctx.shards.iter().any(|s| {
                s.lock()
                    .map(|s| s.ops.iter().any(|o| o.count() > 0 || o.errors > 0))
                    .unwrap_or(false)
            })
        {
            self.emit_interval(
                phase,
                concurrency,
                &ctx.shards,
                &mut scratch,
                &mut phase_acc,
                (interval_start, end),
            );
        }
        PhaseResult {
            ops: phase_acc,
            duration_s: end.duration_since(t0).as_secs_f64(),
        }
    }

    pub fn summary(
        &mut self,
        ops: &[OpAcc],
        duration_s: f64,
        ramp: Vec<RampStep>,
        best: Option<u32>,
    ) {
        let by_name = self.stats_by_name(ops, duration_s);
        let rec = SummaryRecord {
            schema_version: SCHEMA_VERSION,
            record_type: RecordType::Summary,
            duration_s,
            total: total(ops).stats(duration_s),
            ops: by_name,
            ramp,
            best_threads: best,
            engine_version: env!("CARGO_PKG_VERSION").to_string(),
        };
        self.sink.emit(&rec);
    }
}

/// Operation limit and deadline of a phase. An open loop turns its duration into the
/// exact number of operations due in it, so it neither drops nor adds any.
fn bounds(load: Load, ops: Option<u64>, duration_s: Option<f64>) -> (Option<u64>, Option<Instant>) {
    match load {
        Load::Open { rate_per_s, .. } => {
            let due = duration_s.map(|d| ops_due_within(d, rate_per_s));
            let limit = match (ops, due) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            (limit, None)
        }
        Load::Closed { .. } => (
            ops,
            duration_s.map(|d| Instant::now() + Duration::from_secs_f64(d)),
        ),
    }
}

/// Warm-up (discarded), then the measured phase or the thread ramp, then the summary.
pub async fn run(spec: &WorkloadSpec, engine: Arc<Engine>, rec: &mut Recorder) {
    let n = rec.names.len();
    if spec.warmup_s > 0.0 && !rec.is_interrupted() {
        let load = match spec.rate {
            Rate::Closed { threads } => Load::Closed { threads },
            Rate::Open {
                rate_per_s,
                max_in_flight,
            } => Load::Open {
                rate_per_s,
                max_in_flight,
            },
            Rate::Ramp { min, .. } => Load::Closed { threads: min },
        };
        let (ops, end) = bounds(load, None, Some(spec.warmup_s));
        rec.run_phase(
            &engine,
            Phase::Warmup,
            load,
            Arc::new(AtomicU64::new(0)),
            ops,
            end,
        )
        .await;
    }

    let counter = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let deadline = spec
        .stop
        .duration_s
        .map(|d| start + Duration::from_secs_f64(d));
    let mut totals: Vec<OpAcc> = (0..n).map(|_| OpAcc::new()).collect();
    let mut ramp = Vec::new();
    let mut best = None;
    match spec.rate {
        Rate::Closed { threads } => {
            let r = rec
                .run_phase(
                    &engine,
                    Phase::Measure,
                    Load::Closed { threads },
                    counter,
                    spec.stop.ops,
                    deadline,
                )
                .await;
            totals = r.ops;
        }
        Rate::Open {
            rate_per_s,
            max_in_flight,
        } => {
            let load = Load::Open {
                rate_per_s,
                max_in_flight,
            };
            let (ops, end) = bounds(load, spec.stop.ops, spec.stop.duration_s);
            let r = rec
                .run_phase(&engine, Phase::Measure, load, counter, ops, end)
                .await;
            totals = r.ops;
        }
        Rate::Ramp {
            min,
            max,
            factor,
            step_duration_s,
            min_gain_pct,
            patience,
            ref steps,
        } => {
            let mut threads = min;
            loop {
                let step_end = Instant::now() + Duration::from_secs_f64(step_duration_s);
                let end = deadline.map_or(step_end, |d| d.min(step_end));
                let r = rec
                    .run_phase(
                        &engine,
                        Phase::Ramp,
                        Load::Closed { threads },
                        Arc::clone(&counter),
                        spec.stop.ops,
                        Some(end),
                    )
                    .await;
                let t = total(&r.ops);
                let s = t.stats(r.duration_s);
                ramp.push(RampStep {
                    threads,
                    op_rate: s.op_rate,
                    p99_ms: s.response.p99_ms,
                    errors: s.errors,
                });
                for (acc, src) in totals.iter_mut().zip(r.ops.iter()) {
                    acc.add(src);
                }
                let out_of_budget = deadline.is_some_and(|d| Instant::now() >= d)
                    || spec
                        .stop
                        .ops
                        .is_some_and(|lim| counter.load(Ordering::Relaxed) >= lim);
                if out_of_budget
                    || rec.is_interrupted()
                    || ramp_exhausted(&ramp, min_gain_pct, patience)
                {
                    break;
                }
                match next_ramp_step(threads, steps, factor, max) {
                    Some(t) => threads = t,
                    None => break,
                }
            }
            best = best_threads(&ramp);
        }
    }
    let duration_s = start.elapsed().as_secs_f64();
    rec.summary(&totals, duration_s, ramp, best);
}
