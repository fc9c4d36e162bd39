//! Where records go: JSON lines to standard output or a file, plus the optional HDR log.

use std::fs::File;
use std::io::{self, BufWriter, Write};

use serde::Serialize;

pub struct Sink {
    out: Box<dyn Write + Send>,
}

impl Sink {
    pub fn open(path: Option<&str>) -> io::Result<Sink> {
        let out: Box<dyn Write + Send> = match path {
            None => Box::new(io::stdout()),
            Some(p) => Box::new(BufWriter::new(File::create(p)?)),
        };
        Ok(Sink { out })
    }

    /// Records into any writer (tests read them back).
    #[cfg(test)]
    pub fn to_writer(out: Box<dyn Write + Send>) -> Sink {
        Sink { out }
    }

    /// One record as one line, flushed so a reader sees it at once.
    pub fn emit<T: Serialize>(&mut self, record: &T) {
        let line = serde_json::to_string(record).expect("records always serialize");
        // A closed pipe (the reader went away) must not crash the run mid-interval.
        let _ = writeln!(self.out, "{line}").and_then(|_| self.out.flush());
    }
}
