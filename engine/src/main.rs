//! casslab-engine: reads one workload spec (JSON), runs it against Cassandra, writes JSON
//! lines (one per interval, error samples, a final summary).
//!
//! Exit statuses (set here and nowhere else, from the kind of [`EngineError`]):
//!
//! | status | meaning |
//! |---|---|
//! | 0 | done, the summary is written (also after a first SIGINT/SIGTERM, and after SIGUSR1) |
//! | 1 | fatal error during the run: a schema statement, `USE` or a prepare failed, or the runtime could not start (`EngineError::Run`) |
//! | 2 | bad arguments or spec, including `--check` rejecting it (`Usage`, `Spec`) |
//! | 3 | its parent (casslab) went away (`parent::ORPHAN_EXIT`) |
//! | 4 | cannot connect or authenticate: unreachable contact points, TLS, credentials (`Connect`) |
//! | 5 | output error: `output.jsonl` or `output.hdr_log` cannot be created (`Output`) |
//! | 130 | a second SIGINT/SIGTERM: stopped at once, no summary |
//!
//! Every non-zero status but 3 and 130 is preceded by an `ErrorRecord` with `fatal: true`
//! on the record stream (standard output when `output.jsonl` cannot be opened) and an
//! `Error: ...` line on standard error.
//!
//! Signals: the first SIGINT/SIGTERM stops the load, skips the read-back of acknowledged
//! writes (`verify`) and writes the summary; a second one exits at once (130). SIGUSR1
//! ends the measured phase (or the warm-up and then the measured phase) as its duration
//! would: the last partial interval, the HDR log's lines, the read-back and the summary are
//! written as at a normal end (casslab sends it when a trial's operations are over).

mod dist;
mod error;
mod gen;
mod hash;
mod output;
mod parent;
mod runner;
mod spec;
mod stats;
mod vectors;
mod workload;

use std::io::Read;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use crate::error::EngineError;
use crate::output::Sink;
use crate::runner::{open_hdr_log, Engine, Recorder, Stops};
use crate::spec::{ErrorRecord, WorkloadSpec};
use crate::workload::Workload;

const USAGE: &str = "usage: casslab-engine --spec FILE|- [--runtime-threads N] [--check]\n\
    Runs the workload spec (JSON, see casslab.load.spec) and writes JSON lines.\n\
    --runtime-threads defaults to half the cores (1..8).\n\
    --check only parses and compiles the spec (exit 0 if the engine accepts it).";

#[derive(Debug)]
struct Args {
    spec: String,
    runtime_threads: Option<usize>,
    check_only: bool,
}

fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut spec = None;
    let mut runtime_threads = None;
    let mut check_only = false;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--check" => check_only = true,
            "--spec" => spec = Some(it.next().ok_or("--spec needs a file name or -")?),
            "--runtime-threads" => {
                let v = it.next().ok_or("--runtime-threads needs a number")?;
                let n: usize = v
                    .parse()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| format!("--runtime-threads {v:?}: give an integer >= 1"))?;
                runtime_threads = Some(n);
            }
            "--version" | "-V" => return Ok(None),
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let spec = spec.ok_or("missing --spec FILE (or --spec - for standard input)")?;
    Ok(Some(Args {
        spec,
        runtime_threads,
        check_only,
    }))
}

fn read_spec(path: &str) -> Result<WorkloadSpec, String> {
    let mut text = String::new();
    if path == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read the spec from standard input: {e}"))?;
    } else {
        text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read spec file {path:?}: {e}"))?;
    }
    WorkloadSpec::from_json(&text)
}

/// Status of interrupting the engine twice.
const INTERRUPTED_TWICE_EXIT: i32 = 130;

/// The process exit status of each kind of error (see the module docs).
fn exit_status(e: &EngineError) -> u8 {
    match e {
        EngineError::Run(_) => 1,
        EngineError::Usage(_) | EngineError::Spec(_) => 2,
        EngineError::Connect(_) => 4,
        EngineError::Output(_) => 5,
    }
}

/// Report a fatal error on the record stream (standard output without a sink) and on
/// stderr; the exit status follows its kind.
fn fatal(sink: Option<&mut Sink>, error: &EngineError) -> ExitCode {
    let rec = ErrorRecord::new(None, error.message().to_string(), true);
    match sink {
        Some(s) => s.emit(&rec),
        None => Sink::open(None).map(|mut s| s.emit(&rec)).unwrap_or(()),
    }
    eprintln!("Error: {error}");
    ExitCode::from(exit_status(error))
}

fn main() -> ExitCode {
    let engine_start = Instant::now();
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("casslab-engine {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => return fatal(None, &EngineError::Usage(format!("{e}\n{USAGE}"))),
    };
    let spec = match read_spec(&args.spec) {
        Ok(s) => s,
        Err(e) => return fatal(None, &EngineError::Spec(e)),
    };
    if args.check_only {
        // `read_spec` ran every rule; this builds what a run would, opening its files.
        return match Workload::load(&spec) {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => fatal(None, &EngineError::Spec(e)),
        };
    }
    match parent::Watched::from_env() {
        Ok(watched) => parent::watch(watched),
        Err(e) => return fatal(None, &EngineError::Usage(e)),
    }
    let mut sink = match Sink::open(spec.output.jsonl.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            let msg = format!("cannot open output.jsonl {:?}: {e}", spec.output.jsonl);
            return fatal(None, &EngineError::Output(msg));
        }
    };
    let workload = match Workload::load(&spec) {
        Ok(w) => w,
        Err(e) => return fatal(Some(&mut sink), &EngineError::Spec(e)),
    };
    let threads = args.runtime_threads.unwrap_or_else(default_runtime_threads);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            let error = EngineError::Run(format!("cannot start the runtime: {e}"));
            return fatal(Some(&mut sink), &error);
        }
    };
    let stops = Stops::default();
    let result: Result<(), (EngineError, Sink)> = runtime.block_on(async {
        spawn_signal_handler(stops.clone());
        let engine = match Engine::connect(&spec, workload).await {
            Ok(e) => Arc::new(e),
            Err(e) => return Err((e, sink)),
        };
        let hdr = match open_hdr_log(&spec, engine_start) {
            Ok(h) => h,
            Err(e) => return Err((e, sink)),
        };
        let mut rec = Recorder::new(&spec, sink, hdr, engine_start, threads * 2, stops);
        runner::run(&spec, engine, &mut rec).await;
        Ok(())
    });
    // Do not wait for driver background tasks (reconnects, metadata refresh).
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err((error, mut sink)) => fatal(Some(&mut sink), &error),
    }
}

/// Half the cores (at least 1, at most 8): the load generator shares the machine with
/// what it measures, and on small machines one thread costs least CPU per operation.
fn default_runtime_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (cores / 2).clamp(1, 8)
}

/// First SIGINT/SIGTERM: stop issuing load, finish in-flight ops, write the summary
/// (no read-back). Second one: exit at once. SIGUSR1, any number of times: end the
/// measured phase now, then read back and write the summary as at its normal end.
/// The three are taken over before this returns (inside the runtime): a SIGUSR1 that
/// came before the handler task first ran would otherwise end the process (its default).
fn spawn_signal_handler(stops: Stops) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int), Ok(mut usr1)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::user_defined1()),
    ) else {
        return;
    };
    tokio::spawn(async move {
        let mut interrupts = 0;
        loop {
            tokio::select! {
                _ = term.recv() => interrupts += 1,
                _ = int.recv() => interrupts += 1,
                _ = usr1.recv() => {
                    stops.ended.store(true, Ordering::SeqCst);
                    stops.notify.notify_one();
                    continue;
                }
            }
            if interrupts == 2 {
                std::process::exit(INTERRUPTED_TWICE_EXIT);
            }
            stops.interrupted.store(true, Ordering::SeqCst);
            stops.notify.notify_one();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Result<Option<Args>, String> {
        parse_args(v.iter().map(|s| s.to_string()))
    }

    #[test]
    fn arguments_parse() {
        let a = args(&["--spec", "-", "--runtime-threads", "3"])
            .unwrap()
            .unwrap();
        assert_eq!(a.spec, "-");
        assert_eq!(a.runtime_threads, Some(3));
        assert!(args(&["--version"]).unwrap().is_none());
        assert!(args(&[]).unwrap_err().contains("missing --spec"));
        assert!(args(&["--runtime-threads", "0", "--spec", "x"]).is_err());
        assert!(args(&["--bogus"]).unwrap_err().contains("--bogus"));
    }

    #[test]
    fn each_error_kind_has_its_own_status() {
        let status = |e: EngineError| exit_status(&e);
        assert_eq!(status(EngineError::Run("schema".into())), 1);
        assert_eq!(status(EngineError::Usage("--bogus".into())), 2);
        assert_eq!(status(EngineError::Spec("rate".into())), 2);
        assert_eq!(status(EngineError::Connect("refused".into())), 4);
        assert_eq!(status(EngineError::Output("hdr".into())), 5);
        let taken = [0, 130, parent::ORPHAN_EXIT];
        for e in [
            EngineError::Run(String::new()),
            EngineError::Spec(String::new()),
            EngineError::Connect(String::new()),
            EngineError::Output(String::new()),
        ] {
            assert!(!taken.contains(&i32::from(exit_status(&e))), "{e:?}");
        }
        assert_eq!(INTERRUPTED_TWICE_EXIT, 130);
    }

    /// Sends `signal` (a `kill` name) to this test process.
    fn send(signal: &str) {
        let pid = std::process::id().to_string();
        let status = std::process::Command::new("kill")
            .args([signal, pid.as_str()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill {signal} {pid}");
    }

    /// The two kinds of stop, as the phases read them: SIGUSR1 (sent at once after the
    /// handler is spawned, before its task first runs, and then again) ends the measured
    /// phase and leaves the read-back on; only the first SIGTERM sets `interrupted`. One
    /// test only: a second SIGTERM would end the test process (130), as it ends the engine.
    #[test]
    fn sigusr1_ends_the_phase_and_sigterm_interrupts() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let stops = Stops::default();
        runtime.block_on(async {
            let wait = std::time::Duration::from_secs(10);
            spawn_signal_handler(stops.clone());
            send("-USR1");
            tokio::time::timeout(wait, stops.notify.notified())
                .await
                .expect("SIGUSR1 notifies the phases");
            assert!(stops.ended.load(Ordering::SeqCst));
            assert!(
                !stops.interrupted.load(Ordering::SeqCst),
                "the read-back stays on"
            );
            send("-USR1");
            tokio::time::timeout(wait, stops.notify.notified())
                .await
                .expect("a second SIGUSR1 is taken too");
            assert!(!stops.interrupted.load(Ordering::SeqCst));
            send("-TERM");
            tokio::time::timeout(wait, stops.notify.notified())
                .await
                .expect("SIGTERM notifies the phases");
            assert!(
                stops.interrupted.load(Ordering::SeqCst),
                "SIGTERM skips the read-back"
            );
        });
    }
}
