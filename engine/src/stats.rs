//! HDR histograms and counters: per-shard accumulation, per-interval merge, statistics.
//!
//! Latencies are recorded in nanoseconds (lowest discernible 1 us, highest 1 h, 3
//! significant digits), the unit HdrHistogram's Java tools assume for interval logs.

use std::io::{self, Write};
use std::sync::Mutex;

use base64::Engine as _;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;

use crate::spec::{ErrorKind, LatencyStats, OpStats, RecallStats};

pub const LOW_NS: u64 = 1_000;
pub const HIGH_NS: u64 = 3_600_000_000_000;
pub const SIGFIG: u8 = 3;
const NS_PER_MS: f64 = 1_000_000.0;

pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(LOW_NS, HIGH_NS, SIGFIG).expect("static histogram bounds are valid")
}

/// Everything recorded for one operation type.
#[derive(Debug, Clone)]
pub struct OpAcc {
    pub response: Histogram<u64>,
    pub service: Histogram<u64>,
    pub errors: u64,
    /// `errors` by kind, indexed by `ErrorKind as usize`.
    pub errors_by_kind: [u64; ErrorKind::ALL.len()],
    pub rows: u64,
    pub partitions: u64,
    pub not_found: u64,
    pub mismatches: u64,
    pub applied: u64,
    pub not_applied: u64,
    /// ANN queries by how many of their k true neighbours came back (index: hits); empty
    /// for operations that count no recall.
    pub recall_hits: Vec<u64>,
    /// Search while loading: ANN queries that could not be judged (the ground truth's
    /// depth ran out before k inserted neighbours); not in `recall_hits`.
    pub recall_unjudged: u64,
}

impl Default for OpAcc {
    fn default() -> Self {
        OpAcc::new()
    }
}

impl OpAcc {
    pub fn new() -> OpAcc {
        OpAcc {
            response: new_histogram(),
            service: new_histogram(),
            errors: 0,
            errors_by_kind: [0; ErrorKind::ALL.len()],
            rows: 0,
            partitions: 0,
            not_found: 0,
            mismatches: 0,
            applied: 0,
            not_applied: 0,
            recall_hits: Vec::new(),
            recall_unjudged: 0,
        }
    }

    /// Record one ANN query that found `hits` of its `k` true neighbours.
    #[inline]
    pub fn record_recall(&mut self, hits: u32, k: u32) {
        if self.recall_hits.len() < k as usize + 1 {
            self.recall_hits.resize(k as usize + 1, 0);
        }
        self.recall_hits[hits.min(k) as usize] += 1;
    }

    /// Record one successful operation (values clamp to the histogram's range).
    #[inline]
    pub fn record(&mut self, response_ns: u64, service_ns: u64) {
        self.response.saturating_record(response_ns.max(LOW_NS));
        self.service.saturating_record(service_ns.max(LOW_NS));
    }

    /// Record one failed operation whose final error was of `kind`.
    #[inline]
    pub fn fail(&mut self, kind: ErrorKind) {
        self.errors += 1;
        self.errors_by_kind[kind as usize] += 1;
    }

    pub fn count(&self) -> u64 {
        self.response.len()
    }

    pub fn add(&mut self, other: &OpAcc) {
        self.response
            .add(&other.response)
            .expect("histograms share bounds");
        self.service
            .add(&other.service)
            .expect("histograms share bounds");
        self.errors += other.errors;
        for (a, b) in self.errors_by_kind.iter_mut().zip(other.errors_by_kind) {
            *a += b;
        }
        self.rows += other.rows;
        self.partitions += other.partitions;
        self.not_found += other.not_found;
        self.mismatches += other.mismatches;
        self.applied += other.applied;
        self.not_applied += other.not_applied;
        if self.recall_hits.len() < other.recall_hits.len() {
            self.recall_hits.resize(other.recall_hits.len(), 0);
        }
        for (a, b) in self.recall_hits.iter_mut().zip(&other.recall_hits) {
            *a += b;
        }
        self.recall_unjudged += other.recall_unjudged;
    }

    pub fn reset(&mut self) {
        self.response.reset();
        self.service.reset();
        self.errors = 0;
        self.errors_by_kind = [0; ErrorKind::ALL.len()];
        self.rows = 0;
        self.partitions = 0;
        self.not_found = 0;
        self.mismatches = 0;
        self.applied = 0;
        self.not_applied = 0;
        self.recall_hits.iter_mut().for_each(|n| *n = 0);
        self.recall_unjudged = 0;
    }

    pub fn stats(&self, duration_s: f64) -> OpStats {
        let count = self.count();
        OpStats {
            count,
            errors: self.errors,
            op_rate: if duration_s > 0.0 {
                count as f64 / duration_s
            } else {
                0.0
            },
            rows: self.rows,
            partitions: self.partitions,
            not_found: self.not_found,
            mismatches: self.mismatches,
            applied: self.applied,
            not_applied: self.not_applied,
            errors_by_kind: ErrorKind::ALL
                .iter()
                .zip(self.errors_by_kind)
                .filter(|(_, n)| *n > 0)
                .map(|(k, n)| (*k, n))
                .collect(),
            response: latency_stats(&self.response),
            service: latency_stats(&self.service),
            recall: recall_stats(&self.recall_hits),
            recall_unjudged: self.recall_unjudged,
        }
    }
}

/// Recall statistics from queries counted by hits (None when no recall is counted, or
/// no query was: an interval without ANN queries has no recall, not a recall of 0).
pub fn recall_stats(by_hits: &[u64]) -> Option<RecallStats> {
    let k = by_hits.len().checked_sub(1).filter(|&k| k > 0)?;
    let queries: u64 = by_hits.iter().sum();
    if queries == 0 {
        return None;
    }
    let found: u64 = by_hits.iter().enumerate().map(|(h, n)| h as u64 * n).sum();
    let pct = |p: f64| -> f64 {
        let rank = ((p / 100.0 * queries as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (h, n) in by_hits.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return h as f64 / k as f64;
            }
        }
        1.0
    };
    Some(RecallStats {
        k: k as u32,
        queries,
        mean: found as f64 / (queries * k as u64) as f64,
        p5: pct(5.0),
        p1: pct(1.0),
        queries_by_hits: by_hits.to_vec(),
    })
}

pub fn latency_stats(h: &Histogram<u64>) -> LatencyStats {
    if h.is_empty() {
        return LatencyStats::default();
    }
    let ms = |v: u64| v as f64 / NS_PER_MS;
    LatencyStats {
        count: h.len(),
        mean_ms: h.mean() / NS_PER_MS,
        p50_ms: ms(h.value_at_quantile(0.50)),
        p95_ms: ms(h.value_at_quantile(0.95)),
        p99_ms: ms(h.value_at_quantile(0.99)),
        p999_ms: ms(h.value_at_quantile(0.999)),
        max_ms: ms(h.max()),
    }
}

/// At most this many failure samples are kept per interval.
pub const ERROR_SAMPLES_PER_INTERVAL: usize = 5;

/// What one group of workers records into; the recorder drains it once per interval.
#[derive(Debug)]
pub struct Shard {
    pub ops: Vec<OpAcc>,
    pub error_samples: Vec<(usize, String)>,
    /// The keys of acknowledged `write` operations, kept for the whole phase (intervals do
    /// not drain them); only when the spec asks to verify them.
    pub acked: Option<Vec<i64>>,
}

impl Shard {
    pub fn new(n_ops: usize) -> Shard {
        Shard {
            ops: (0..n_ops).map(|_| OpAcc::new()).collect(),
            error_samples: Vec::new(),
            acked: None,
        }
    }

    /// A shard that also remembers the keys of acknowledged writes.
    pub fn remembering(n_ops: usize) -> Shard {
        Shard {
            acked: Some(Vec::new()),
            ..Shard::new(n_ops)
        }
    }

    /// Remember `key`, acknowledged by a write (a no-op unless remembering).
    #[inline]
    pub fn acknowledged(&mut self, key: i64) {
        if let Some(keys) = self.acked.as_mut() {
            keys.push(key);
        }
    }

    pub fn sample_error(&mut self, op: usize, message: impl FnOnce() -> String) {
        if self.error_samples.len() < ERROR_SAMPLES_PER_INTERVAL {
            self.error_samples.push((op, message()));
        }
    }
}

/// Merge every shard into `into` (one accumulator per op) and reset the shards.
/// Returns the error samples collected since the last drain (at most the per-interval cap).
pub fn drain(shards: &[Mutex<Shard>], into: &mut [OpAcc]) -> Vec<(usize, String)> {
    let mut samples = Vec::new();
    for shard in shards {
        let mut s = shard.lock().unwrap_or_else(|p| p.into_inner());
        for (acc, src) in into.iter_mut().zip(s.ops.iter_mut()) {
            if src.count() > 0 || src.errors > 0 {
                acc.add(src);
                src.reset();
            }
        }
        for e in s.error_samples.drain(..) {
            if samples.len() < ERROR_SAMPLES_PER_INTERVAL {
                samples.push(e);
            }
        }
    }
    samples
}

/// Every shard's remembered keys, moved out (empty when none remembers).
pub fn take_acked(shards: &[Mutex<Shard>]) -> Vec<i64> {
    let mut keys = Vec::new();
    for shard in shards {
        let mut s = shard.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = s.acked.as_mut() {
            keys.append(k);
        }
    }
    keys
}

/// Sum of all operation types.
pub fn total(ops: &[OpAcc]) -> OpAcc {
    let mut t = OpAcc::new();
    for o in ops {
        t.add(o);
    }
    t
}

/// An HdrHistogram interval log (format 1.3, V2 compressed histograms, values in ns).
pub struct HdrLog<W: Write> {
    out: W,
    serializer: V2DeflateSerializer,
    buf: Vec<u8>,
    text: String,
}

impl<W: Write> HdrLog<W> {
    /// Write the header; interval timestamps are then seconds since `base_time_s` (epoch).
    pub fn new(mut out: W, base_time_s: f64) -> io::Result<HdrLog<W>> {
        writeln!(
            out,
            "#[casslab-engine {} latency log; values in nanoseconds]",
            env!("CARGO_PKG_VERSION")
        )?;
        writeln!(out, "#[Histogram log format version 1.3]")?;
        writeln!(out, "#[StartTime: {base_time_s:.3} (seconds since epoch)]")?;
        writeln!(out, "#[BaseTime: {base_time_s:.3} (seconds since epoch)]")?;
        writeln!(
            out,
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\""
        )?;
        Ok(HdrLog {
            out,
            serializer: V2DeflateSerializer::new(),
            buf: Vec::new(),
            text: String::new(),
        })
    }

    /// One histogram line; `Interval_Max` is in milliseconds as the Java writer does.
    pub fn write(
        &mut self,
        tag: &str,
        start_s: f64,
        duration_s: f64,
        h: &Histogram<u64>,
    ) -> io::Result<()> {
        self.buf.clear();
        self.text.clear();
        self.serializer
            .serialize(h, &mut self.buf)
            .map_err(|e| io::Error::other(format!("histogram serialization failed: {e:?}")))?;
        base64::engine::general_purpose::STANDARD.encode_string(&self.buf, &mut self.text);
        let tag: String = tag
            .chars()
            .map(|c| {
                if matches!(c, ',' | ' ' | '\r' | '\n') {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        writeln!(
            self.out,
            "Tag={tag},{start_s:.3},{duration_s:.3},{:.3},{}",
            h.max() as f64 / NS_PER_MS,
            self.text
        )
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn recall_statistics_by_hand() {
        // k = 10; 100 queries: 3 found 7 true neighbours, 2 found 8, 95 found all 10
        let mut by_hits = vec![0u64; 11];
        by_hits[7] = 3;
        by_hits[8] = 2;
        by_hits[10] = 95;
        let r = super::recall_stats(&by_hits).unwrap();
        assert_eq!((r.k, r.queries), (10, 100));
        assert!((r.mean - 0.987).abs() < 1e-12, "{}", r.mean);
        assert_eq!((r.p1, r.p5), (0.7, 0.8));
        assert!(super::recall_stats(&[]).is_none());
        let mut acc = OpAcc::new();
        acc.record_recall(3, 4);
        acc.record_recall(4, 4);
        let mut other = OpAcc::new();
        other.record_recall(4, 4);
        acc.add(&other);
        let r = acc.stats(1.0).recall.unwrap();
        assert_eq!(r.queries_by_hits, vec![0, 0, 0, 1, 2]);
        assert!((r.mean - 11.0 / 12.0).abs() < 1e-12);
        acc.reset();
        assert!(acc.stats(1.0).recall.is_none(), "no query: no recall");
    }

    use super::*;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use hdrhistogram::serialization::Deserializer;

    #[test]
    fn stats_are_in_milliseconds() {
        let mut a = OpAcc::new();
        for ms in 1..=1000u64 {
            a.record(ms * 1_000_000, ms * 500_000);
        }
        let s = a.stats(2.0);
        assert_eq!(s.count, 1000);
        assert_eq!(s.op_rate, 500.0);
        assert!(
            (s.response.p50_ms - 500.0).abs() < 1.0,
            "{}",
            s.response.p50_ms
        );
        assert!(
            (s.response.p999_ms - 999.0).abs() < 1.0,
            "{}",
            s.response.p999_ms
        );
        assert!((s.response.max_ms - 1000.0).abs() < 1.0);
        assert!((s.service.p50_ms - 250.0).abs() < 0.5);
        assert!((s.response.mean_ms - 500.5).abs() < 0.5);
        assert_eq!(OpAcc::new().stats(1.0).response, LatencyStats::default());
    }

    #[test]
    fn drain_merges_shards_and_resets_them() {
        let shards: Vec<Mutex<Shard>> = (0..3).map(|_| Mutex::new(Shard::new(2))).collect();
        for (i, s) in shards.iter().enumerate() {
            let mut s = s.lock().unwrap();
            s.ops[0].record(1_000_000 * (i as u64 + 1), 1_000_000);
            s.ops[1].fail(ErrorKind::WriteTimeout);
            for _ in 0..10 {
                s.sample_error(1, || "x".into());
            }
        }
        let mut into = vec![OpAcc::new(), OpAcc::new()];
        let samples = drain(&shards, &mut into);
        assert_eq!(samples.len(), ERROR_SAMPLES_PER_INTERVAL);
        assert_eq!(into[0].count(), 3);
        assert_eq!(into[1].errors, 3);
        assert_eq!(
            into[0].response.max(),
            into[0].response.highest_equivalent(3_000_000)
        );
        let t = total(&into);
        assert_eq!(t.count(), 3);
        assert_eq!(t.errors, 3);
        assert_eq!(t.errors_by_kind[ErrorKind::WriteTimeout as usize], 3);
        let mut again = vec![OpAcc::new(), OpAcc::new()];
        assert!(drain(&shards, &mut again).is_empty());
        assert_eq!(again[0].count(), 0);
        assert_eq!(again[1].errors, 0);
    }

    #[test]
    fn errors_count_by_kind_and_only_kinds_with_a_count_are_written() {
        let mut a = OpAcc::new();
        a.fail(ErrorKind::Unavailable);
        a.fail(ErrorKind::Unavailable);
        a.fail(ErrorKind::ClientTimeout);
        let mut b = OpAcc::new();
        b.fail(ErrorKind::Other);
        a.add(&b);
        let s = a.stats(1.0);
        assert_eq!(s.errors, 4);
        assert_eq!(s.errors_by_kind.values().sum::<u64>(), s.errors);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(
            json["errors_by_kind"],
            serde_json::json!({"unavailable": 2, "client_timeout": 1, "other": 1})
        );
        let back: OpStats = serde_json::from_value(json).unwrap();
        assert_eq!(back, s);
        let none = serde_json::to_value(OpAcc::new().stats(1.0)).unwrap();
        assert!(
            none.get("errors_by_kind").is_none(),
            "no errors, no field: {none}"
        );
        a.reset();
        assert_eq!((a.errors, a.errors_by_kind), (0, [0; ErrorKind::ALL.len()]));
    }

    #[test]
    fn only_remembering_shards_keep_acknowledged_keys_across_drains() {
        let shards = vec![
            Mutex::new(Shard::remembering(1)),
            Mutex::new(Shard::remembering(1)),
        ];
        for (i, key) in [5, 7, 5].into_iter().enumerate() {
            shards[i % 2].lock().unwrap().acknowledged(key);
        }
        let mut into = vec![OpAcc::new()];
        drain(&shards, &mut into);
        let mut keys = take_acked(&shards);
        keys.sort_unstable();
        assert_eq!(
            keys,
            [5, 5, 7],
            "a drain leaves the keys; duplicates are kept"
        );
        assert!(take_acked(&shards).is_empty(), "taken once");
        let plain = vec![Mutex::new(Shard::new(1))];
        plain[0].lock().unwrap().acknowledged(9);
        assert!(plain[0].lock().unwrap().acked.is_none());
        assert!(take_acked(&plain).is_empty());
    }

    #[test]
    fn every_kind_has_its_counter() {
        for (i, k) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(*k as usize, i, "{k:?}");
        }
    }

    #[test]
    fn out_of_range_values_saturate() {
        let mut a = OpAcc::new();
        a.record(0, u64::MAX);
        assert_eq!(a.count(), 1);
        assert!(a.service.max() >= HIGH_NS / 2);
    }

    #[test]
    fn interval_log_round_trips() {
        let mut h = new_histogram();
        for v in [1_000_000u64, 2_000_000, 50_000_000] {
            h.record(v).unwrap();
        }
        let mut out = Vec::new();
        {
            let mut log = HdrLog::new(&mut out, 1_700_000_000.0).unwrap();
            log.write("write", 0.0, 1.0, &h).unwrap();
            log.write("write.service", 0.0, 1.0, &h).unwrap();
            log.flush().unwrap();
        }
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(text.contains("#[BaseTime: 1700000000.000"));
        let mut hists = 0;
        for entry in IntervalLogIterator::new(&out) {
            if let LogEntry::Interval(ilh) = entry.unwrap() {
                hists += 1;
                assert!(ilh.tag().unwrap().as_str().starts_with("write"));
                assert!((ilh.max() - 50.0).abs() < 0.1, "{}", ilh.max());
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(ilh.encoded_histogram())
                    .unwrap();
                let back: Histogram<u64> = Deserializer::new()
                    .deserialize(&mut bytes.as_slice())
                    .unwrap();
                assert_eq!(back.len(), 3);
                assert_eq!(back.max(), h.max());
            }
        }
        assert_eq!(hists, 2);
    }
}
