//! The recorder: the one place that reads what the workers recorded. Once per interval it
//! drains the workers' shards, writes the `IntervalRecord`, the sampled `ErrorRecord`s and
//! the HDR log lines, and adds the interval into its phase's totals; at the end it writes
//! the `SummaryRecord`. Workers never write output.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::Notify;

use crate::error::EngineError;
use crate::output::Sink;
use crate::spec::{
    ErrorRecord, IntervalRecord, OpStats, Phase, RampStep, RecordType, SummaryRecord, VerifyStats,
    WorkloadSpec, SCHEMA_VERSION,
};
use crate::stats::{drain, total, HdrLog, OpAcc, Shard};
use crate::workload::report_names;

pub type HdrFile = HdrLog<BufWriter<File>>;

/// Create `output.hdr_log` (if asked for) with its header; timestamps in it count from
/// `engine_start`.
pub fn open_hdr_log(
    spec: &WorkloadSpec,
    engine_start: Instant,
) -> Result<Option<HdrFile>, EngineError> {
    let Some(path) = &spec.output.hdr_log else {
        return Ok(None);
    };
    let f = File::create(path).map_err(|e| {
        EngineError::Output(format!(
            "cannot create HDR log {path:?}: {e}; check the directory"
        ))
    })?;
    let base = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
        - engine_start.elapsed().as_secs_f64();
    HdrLog::new(BufWriter::new(f), base)
        .map(Some)
        .map_err(|e| EngineError::Output(format!("cannot write HDR log {path:?}: {e}")))
}

/// How the engine is told to stop early, shared by the signal handler and the phases:
/// `interrupted` (the first SIGINT/SIGTERM: stop the load, skip the read-back) and `ended`
/// (SIGUSR1: the measured phase ends now, as if its duration were over, and the read-back
/// runs); either notifies `notify`.
#[derive(Clone, Default)]
pub struct Stops {
    pub notify: Arc<Notify>,
    pub interrupted: Arc<AtomicBool>,
    pub ended: Arc<AtomicBool>,
}

/// The recorder's state across phases: output, HDR log, names, the stops.
pub struct Recorder {
    sink: Sink,
    hdr: Option<HdrFile>,
    engine_start: Instant,
    interval: Duration,
    names: Vec<String>,
    n_shards: usize,
    stops: Stops,
}

impl Recorder {
    pub fn new(
        spec: &WorkloadSpec,
        sink: Sink,
        hdr: Option<HdrFile>,
        engine_start: Instant,
        n_shards: usize,
        stops: Stops,
    ) -> Recorder {
        let names: Vec<&str> = spec.operations.iter().map(|o| o.name.as_str()).collect();
        Recorder {
            sink,
            hdr,
            engine_start,
            interval: Duration::from_secs_f64(spec.output.interval_s),
            names: report_names(&names).0,
            n_shards: n_shards.max(1),
            stops,
        }
    }

    /// Operation types as reported (operations sharing a name count as one).
    pub fn n_ops(&self) -> usize {
        self.names.len()
    }

    /// Shards to give a phase: at most one per worker.
    pub fn shards_for(&self, workers: u32) -> usize {
        self.n_shards.min(workers as usize)
    }

    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Notified on the first SIGINT/SIGTERM and on SIGUSR1.
    pub fn interrupt(&self) -> &Notify {
        &self.stops.notify
    }

    /// The first SIGINT/SIGTERM came: stop, and skip the read-back.
    pub fn is_interrupted(&self) -> bool {
        self.stops.interrupted.load(Ordering::Relaxed)
    }

    /// The load stops: interrupted, or the measured phase was ended (SIGUSR1).
    pub fn is_stopping(&self) -> bool {
        self.is_interrupted() || self.stops.ended.load(Ordering::Relaxed)
    }

    /// The flag the first SIGINT/SIGTERM sets, for tasks that outlive a borrow.
    pub fn interrupted_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stops.interrupted)
    }

    /// A non-fatal error record not tied to an operation.
    pub fn note(&mut self, message: String) {
        self.sink.emit(&ErrorRecord::new(None, message, false));
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

    /// Drain the shards and write one interval (plus error samples and HDR lines); the
    /// interval is then added into `into` and `scratch` left empty.
    pub fn emit_interval(
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
        if !matches!(phase, Phase::Warmup) {
            self.write_hdr(rec.t_start_s, dur, scratch);
        }
        for (acc, src) in into.iter_mut().zip(scratch.iter_mut()) {
            acc.add(src);
            src.reset();
        }
    }

    /// One response and one service line per operation that ran; a failed write disables
    /// the log (reported once) and the run goes on.
    fn write_hdr(&mut self, t0: f64, dur: f64, accs: &[OpAcc]) {
        let Some(log) = self.hdr.as_mut() else {
            return;
        };
        let mut failed = None;
        for (name, acc) in self.names.iter().zip(accs.iter()) {
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

    pub fn summary(
        &mut self,
        ops: &[OpAcc],
        duration_s: f64,
        ramp: Vec<RampStep>,
        best: Option<u32>,
        verify: Option<VerifyStats>,
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
            verify,
        };
        self.sink.emit(&rec);
    }
}

#[cfg(test)]
pub mod tests {
    use std::io::Write;

    use serde_json::Value as Json;

    use super::*;

    /// A writer the test keeps a handle on.
    #[derive(Clone, Default)]
    pub struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Captured {
        pub fn records(&self) -> Vec<Json> {
            let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
            text.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        }
    }

    pub fn spec(hdr_log: Option<&str>) -> WorkloadSpec {
        let hdr = hdr_log.map_or(String::new(), |p| format!(r#", "hdr_log": {p:?}"#));
        WorkloadSpec::from_json(&format!(
            r#"{{"connection": {{"contact_points": ["h:9042"]}},
                "operations": [
                    {{"name": "read", "kind": "read", "weight": 1, "statements": [{{"cql": "R"}}]}},
                    {{"name": "write", "kind": "write", "weight": 1, "statements": [{{"cql": "W"}}]}},
                    {{"name": "read", "kind": "read", "weight": 1, "statements": [{{"cql": "R2"}}]}}],
                "keys": {{"kind": "seq", "min": 1, "max": 10}},
                "rate": {{"mode": "closed", "threads": 1}}, "stop": {{"ops": 1}},
                "output": {{"interval_s": 0.5{hdr}}}}}"#
        ))
        .unwrap()
    }

    pub fn recorder(spec: &WorkloadSpec, out: &Captured, start: Instant) -> Recorder {
        let hdr = open_hdr_log(spec, start).unwrap();
        Recorder::new(
            spec,
            Sink::to_writer(Box::new(out.clone())),
            hdr,
            start,
            4,
            Stops::default(),
        )
    }

    fn accs(n: usize) -> Vec<OpAcc> {
        (0..n).map(|_| OpAcc::new()).collect()
    }

    #[test]
    fn shared_names_report_once_and_shards_follow_workers() {
        let rec = recorder(&spec(None), &Captured::default(), Instant::now());
        assert_eq!(rec.n_ops(), 2);
        assert_eq!(rec.interval(), Duration::from_millis(500));
        assert_eq!(rec.shards_for(2), 2);
        assert_eq!(rec.shards_for(64), 4);
    }

    #[test]
    fn an_interval_drains_the_shards_into_the_phase_totals() {
        let out = Captured::default();
        let t0 = Instant::now();
        let mut rec = recorder(&spec(None), &out, t0);
        let shards: Vec<Mutex<Shard>> = (0..2).map(|_| Mutex::new(Shard::new(2))).collect();
        shards[0].lock().unwrap().ops[0].record(2_000_000, 1_000_000);
        shards[1].lock().unwrap().ops[0].record(4_000_000, 3_000_000);
        {
            let mut s = shards[1].lock().unwrap();
            s.ops[1].fail(crate::spec::ErrorKind::Unavailable);
            s.sample_error(1, || "timed out".into());
        }
        let (mut scratch, mut phase) = (accs(2), accs(2));
        let span = (t0, t0 + Duration::from_secs(2));
        rec.emit_interval(Phase::Measure, 8, &shards, &mut scratch, &mut phase, span);

        let records = out.records();
        assert_eq!(records.len(), 2);
        let interval = &records[0];
        assert_eq!(interval["type"], "interval");
        assert_eq!(interval["phase"], "measure");
        assert_eq!(interval["threads"], 8);
        assert_eq!(interval["t_end_s"], 2.0);
        assert_eq!(interval["ops"]["read"]["count"], 2);
        assert_eq!(interval["ops"]["read"]["op_rate"], 1.0);
        assert_eq!(interval["ops"]["write"]["errors"], 1);
        assert_eq!(interval["ops"]["write"]["errors_by_kind"]["unavailable"], 1);
        assert_eq!(interval["total"]["errors_by_kind"]["unavailable"], 1);
        assert_eq!(interval["total"]["count"], 2);
        let error = &records[1];
        assert_eq!(
            (&error["op"], &error["message"], &error["fatal"]),
            (
                &Json::from("write"),
                &Json::from("timed out"),
                &Json::from(false)
            )
        );
        assert_eq!((phase[0].count(), phase[1].errors), (2, 1));
        assert!(scratch.iter().all(|a| a.count() == 0 && a.errors == 0));
        assert_eq!(shards[0].lock().unwrap().ops[0].count(), 0);
    }

    #[test]
    fn warm_up_stays_out_of_the_hdr_log() {
        let path = std::env::temp_dir().join(format!(
            "casslab-engine-recorder-{}.hlog",
            std::process::id()
        ));
        let spec = spec(Some(path.to_str().unwrap()));
        let out = Captured::default();
        let t0 = Instant::now();
        let mut rec = recorder(&spec, &out, t0);
        let shards = vec![Mutex::new(Shard::new(2))];
        let (mut scratch, mut phase) = (accs(2), accs(2));
        for (p, at) in [(Phase::Warmup, 1), (Phase::Measure, 2), (Phase::Ramp, 3)] {
            shards[0].lock().unwrap().ops[1].record(1_000_000, 1_000_000);
            let span = (
                t0 + Duration::from_secs(at - 1),
                t0 + Duration::from_secs(at),
            );
            rec.emit_interval(p, 1, &shards, &mut scratch, &mut phase, span);
        }
        let log = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let tags: Vec<String> = log
            .lines()
            .filter(|l| l.starts_with("Tag="))
            .map(|l| l.split(',').take(2).collect::<Vec<_>>().join(","))
            .collect();
        assert_eq!(
            tags,
            [
                "Tag=write,1.000",
                "Tag=write.service,1.000",
                "Tag=write,2.000",
                "Tag=write.service,2.000"
            ]
        );
        assert_eq!(phase[1].count(), 3, "the warm-up still counts in its phase");
    }

    #[test]
    fn the_summary_carries_the_ramp_and_the_version() {
        let out = Captured::default();
        let mut rec = recorder(&spec(None), &out, Instant::now());
        let mut ops = accs(2);
        ops[0].record(1_000_000, 1_000_000);
        let step = RampStep {
            threads: 4,
            op_rate: 10.0,
            p99_ms: 1.0,
            errors: 0,
        };
        rec.summary(&ops, 0.5, vec![step], Some(4), None);
        let s = &out.records()[0];
        assert_eq!(s["type"], "summary");
        assert_eq!(s["ops"]["read"]["op_rate"], 2.0);
        assert_eq!(s["ramp"][0]["threads"], 4);
        assert_eq!(s["best_threads"], 4);
        assert_eq!(s["engine_version"], env!("CARGO_PKG_VERSION"));
        assert!(s.get("verify").is_none(), "not asked, not written");
    }

    #[test]
    fn the_summary_carries_the_read_back() {
        let out = Captured::default();
        let mut rec = recorder(&spec(None), &out, Instant::now());
        let verified = VerifyStats {
            consistency: crate::spec::Consistency::Quorum,
            checked: 800,
            lost: 2,
            errors: 1,
            duration_s: 0.4,
        };
        rec.summary(&accs(2), 1.0, Vec::new(), None, Some(verified.clone()));
        let s = &out.records()[0];
        assert_eq!(
            s["verify"],
            serde_json::json!({"consistency": "QUORUM", "checked": 800, "lost": 2,
                               "errors": 1, "duration_s": 0.4})
        );
        let back: SummaryRecord = serde_json::from_value(s.clone()).unwrap();
        assert_eq!(back.verify, Some(verified));
    }
}
