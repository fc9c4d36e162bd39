//! casslab-engine: reads one workload spec (JSON), runs it against Cassandra, writes JSON
//! lines (one per interval, error samples, a final summary).
//!
//! Exit codes: 0 done, 1 fatal run error (cannot connect, schema failed), 2 bad arguments
//! or spec. A fatal error is also written as an ErrorRecord with `fatal: true`.

mod dist;
mod gen;
mod hash;
mod output;
mod runner;
mod spec;
mod stats;
mod workload;

use std::io::Read;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Notify;

use crate::output::Sink;
use crate::runner::{Engine, Fatal, Recorder};
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

/// Report a fatal error on the record stream and on stderr.
fn fatal(sink: Option<&mut Sink>, message: &str, code: u8) -> ExitCode {
    let rec = ErrorRecord::new(None, message.to_string(), true);
    match sink {
        Some(s) => s.emit(&rec),
        None => Sink::open(None).map(|mut s| s.emit(&rec)).unwrap_or(()),
    }
    eprintln!("Error: {message}");
    ExitCode::from(code)
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
        Err(e) => return fatal(None, &format!("{e}\n{USAGE}"), 2),
    };
    let spec = match read_spec(&args.spec) {
        Ok(s) => s,
        Err(e) => return fatal(None, &e, 2),
    };
    if args.check_only {
        return match Workload::new(&spec) {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => fatal(None, &e, 2),
        };
    }
    let mut sink = match Sink::open(spec.output.jsonl.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            let msg = format!("cannot open output.jsonl {:?}: {e}", spec.output.jsonl);
            return fatal(None, &msg, 2);
        }
    };
    let workload = match Workload::new(&spec) {
        Ok(w) => w,
        Err(e) => return fatal(Some(&mut sink), &e, 2),
    };
    let threads = args.runtime_threads.unwrap_or_else(default_runtime_threads);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            return fatal(
                Some(&mut sink),
                &format!("cannot start the runtime: {e}"),
                1,
            )
        }
    };
    let interrupt = Arc::new(Notify::new());
    let interrupted = Arc::new(AtomicBool::new(false));
    let result: Result<(), (Fatal, Sink)> = runtime.block_on(async {
        spawn_signal_handler(Arc::clone(&interrupt), Arc::clone(&interrupted));
        let engine = match Engine::connect(&spec, workload).await {
            Ok(e) => Arc::new(e),
            Err(f) => return Err((f, sink)),
        };
        let mut rec = match Recorder::new(
            &spec,
            sink,
            engine_start,
            threads * 2,
            interrupt,
            interrupted,
        ) {
            Ok(r) => r,
            Err(f) => return Err((f, Sink::open(None).expect("stdout is always there"))),
        };
        runner::run(&spec, engine, &mut rec).await;
        Ok(())
    });
    // Do not wait for driver background tasks (reconnects, metadata refresh).
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err((Fatal(msg), mut sink)) => fatal(Some(&mut sink), &msg, 1),
    }
}

/// Half the cores (at least 1, at most 8): the load generator shares the machine with
/// what it measures, and on small machines one thread costs least CPU per operation.
fn default_runtime_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (cores / 2).clamp(1, 8)
}

/// First SIGINT/SIGTERM: stop issuing load, finish in-flight ops, write the summary.
/// Second one: exit at once.
fn spawn_signal_handler(interrupt: Arc<Notify>, interrupted: Arc<AtomicBool>) {
    use tokio::signal::unix::{signal, SignalKind};
    tokio::spawn(async move {
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return;
        };
        for round in 0..2 {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            if round == 1 {
                std::process::exit(130);
            }
            interrupted.store(true, Ordering::SeqCst);
            interrupt.notify_one();
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
}
