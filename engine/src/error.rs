//! The engine's one error type. Each kind says which side has to act (fix the spec, reach
//! the cluster, look at the cluster, free the output path); `main` maps kinds to exit
//! statuses in one place and writes the message as a fatal `ErrorRecord`.

use std::fmt;

/// Why the engine stops before its summary. The message names the operation, the value
/// and the fix; it is what the fatal `ErrorRecord` carries, unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The command line is wrong (unknown flag, missing `--spec`, a bad
    /// `CASSLAB_PARENT_PID`).
    Usage(String),
    /// The spec cannot be run as written: unreadable, invalid, rejected when compiled, or a
    /// statement whose bind markers do not match its binds.
    Spec(String),
    /// No session: the contact points cannot be reached, TLS cannot be set up, or the
    /// credentials are missing or refused.
    Connect(String),
    /// The cluster refused the run's setup (a schema statement, `USE`, a prepare), or the
    /// runtime could not start.
    Run(String),
    /// Records or the HDR log cannot be written (`output.jsonl`, `output.hdr_log`).
    Output(String),
}

impl EngineError {
    pub fn message(&self) -> &str {
        match self {
            EngineError::Usage(m)
            | EngineError::Spec(m)
            | EngineError::Connect(m)
            | EngineError::Run(m)
            | EngineError::Output(m) => m,
        }
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for EngineError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_the_message_alone() {
        let e = EngineError::Connect("cannot connect to [\"h:9042\"]: refused".into());
        assert_eq!(e.to_string(), "cannot connect to [\"h:9042\"]: refused");
        assert_eq!(EngineError::Output("x".into()).message(), "x");
    }
}
