//! The engine never loads a cluster nobody is watching: it exits when casslab, the process
//! that started it, is gone, even when casslab was killed with SIGKILL and could clean
//! nothing up.
//!
//! A watchdog thread polls every [`POLL`]: the engine exits when its parent PID changes
//! (the parent died and the engine was re-parented to init or a subreaper) or when the
//! process named by `CASSLAB_PARENT_PID` no longer runs (gone, or a zombie). casslab sets
//! that variable to its own PID, which also closes the race between casslab's fork and
//! this check: a casslab that died before the engine started is caught at start-up.
//!
//! Why not `prctl(PR_SET_PDEATHSIG)`: the signal fires when the parent *thread* that
//! forked exits, not the parent process, so an engine spawned from a worker thread would
//! be killed mid-run when that thread ends; it also needs `unsafe` FFI and is Linux-only.
//! Polling costs one `getppid` and one small `/proc` read per [`POLL`] and reacts in
//! well under the 2 s casslab promises.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// The environment variable in which casslab passes its PID.
pub const PARENT_PID_ENV: &str = "CASSLAB_PARENT_PID";
/// How often the watchdog looks.
pub const POLL: Duration = Duration::from_millis(200);
/// Exit status of an engine whose parent went away.
pub const ORPHAN_EXIT: i32 = 3;

/// What the watchdog compares against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watched {
    /// The parent PID at start-up.
    pub parent: u32,
    /// The PID casslab named in `CASSLAB_PARENT_PID`, if any.
    pub named: Option<u32>,
}

impl Watched {
    /// From this process's parent PID and the environment; a malformed variable is an error.
    pub fn from_env() -> Result<Watched, String> {
        let named = match std::env::var(PARENT_PID_ENV) {
            Ok(text) => Some(parse_pid(&text)?),
            Err(std::env::VarError::NotPresent) => None,
            Err(e) => return Err(format!("{PARENT_PID_ENV}: {e}")),
        };
        Ok(Watched {
            parent: std::os::unix::process::parent_id(),
            named,
        })
    }

    /// Why the engine must stop now, or `None` while its parent still runs.
    pub fn gone(&self, parent_now: u32, alive: impl Fn(u32) -> bool) -> Option<String> {
        if parent_now != self.parent {
            return Some(format!(
                "parent process {} is gone (re-parented to {parent_now})",
                self.parent
            ));
        }
        match self.named {
            Some(pid) if !alive(pid) => Some(format!(
                "casslab (pid {pid}, from {PARENT_PID_ENV}) is gone"
            )),
            _ => None,
        }
    }
}

fn parse_pid(text: &str) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|p| *p > 0)
        .ok_or_else(|| format!("{PARENT_PID_ENV}={text:?}: give the PID of casslab"))
}

/// Whether `pid` runs: its `/proc` entry exists and is not a zombie. Without `/proc`
/// (not Linux) every PID counts as running and only the parent-PID check applies.
pub fn alive(pid: u32) -> bool {
    if !Path::new("/proc/self/stat").exists() {
        return true;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(process_state(&stat), Some('Z' | 'X')),
        Err(_) => false,
    }
}

/// The state letter of a `/proc/<pid>/stat` line (the field after the parenthesised name,
/// which may itself contain spaces and parentheses).
fn process_state(stat: &str) -> Option<char> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.trim_start().chars().next()
}

/// Exit at once if the parent is already gone; else watch it from a thread and exit the
/// whole process (status [`ORPHAN_EXIT`]) as soon as it goes.
pub fn watch(watched: Watched) {
    let check = move || watched.gone(std::os::unix::process::parent_id(), alive);
    if let Some(reason) = check() {
        orphaned(&reason);
    }
    std::thread::Builder::new()
        .name("parent-watchdog".into())
        .spawn(move || loop {
            std::thread::sleep(POLL);
            if let Some(reason) = check() {
                orphaned(&reason);
            }
        })
        .expect("a thread can be spawned at start-up");
}

fn orphaned(reason: &str) -> ! {
    // Not eprintln!: with the parent gone its stderr may be a closed pipe, and a failed
    // write would panic this watchdog thread instead of ending the process.
    let _ = writeln!(
        std::io::stderr(),
        "Error: {reason}; stopping the load (nobody reads its results)"
    );
    std::process::exit(ORPHAN_EXIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_parent_or_a_dead_named_process_means_gone() {
        let w = Watched {
            parent: 100,
            named: Some(100),
        };
        assert_eq!(w.gone(100, |_| true), None);
        assert!(w
            .gone(1, |_| true)
            .unwrap()
            .contains("parent process 100 is gone"));
        assert!(w.gone(100, |_| false).unwrap().contains("casslab (pid 100"));
        let unnamed = Watched {
            parent: 100,
            named: None,
        };
        assert_eq!(unnamed.gone(100, |_| false), None);
    }

    #[test]
    fn pids_parse() {
        assert_eq!(parse_pid(" 42\n"), Ok(42));
        assert!(parse_pid("0").is_err());
        assert!(parse_pid("casslab").unwrap_err().contains(PARENT_PID_ENV));
    }

    #[test]
    fn state_follows_the_last_parenthesis() {
        assert_eq!(process_state("12 (java) S 1 12"), Some('S'));
        assert_eq!(process_state("12 (a) b) (c) Z 1 12"), Some('Z'));
        assert_eq!(process_state("garbage"), None);
    }

    #[test]
    fn this_process_is_alive_and_an_unused_pid_is_not() {
        assert!(alive(std::process::id()));
        assert!(!alive(u32::MAX - 1));
    }
}
