//! Driving the cluster: connect and prepare, then warm-up, the measured phase or the thread
//! ramp, and the summary.
//!
//! | module | job |
//! |---|---|
//! | `session` | connection (timeouts, routing, TLS, credentials), schema, prepared statements |
//! | `execute` | one operation: statements or batch, result reading, validation, recording |
//! | `lwt` | lightweight transactions: values a read-first LWT binds, the `[applied]` outcome |
//! | `classify` | the kind of a failed operation's final error (`errors_by_kind`) |
//! | `retry` | which driver errors are retried (idempotent statements only), backoff |
//! | `open_loop` | the open loop's due times: operation *i* is due `i / rate` after the start |
//! | `phase` | phases (warm-up, measure) and their workers; deadlines and operation limits |
//! | `ramp` | the thread ramp: its steps and its stopping rule |
//! | `token_ring` | token range queries: the ring cut into pieces, their walk, one piece's pages |
//! | `verify` | after the measured phase: the read-back of acknowledged writes (spec `verify`) |
//! | `recorder` | intervals, error samples, HDR log, summary: the one writer of records |
//!
//! Hot path: a worker takes a cycle number (one atomic add), executes it and records into
//! its shard (one uncontended lock per operation). Only the recorder drains the shards,
//! once per interval, and merges the per-worker histograms.

mod classify;
mod execute;
mod lwt;
mod open_loop;
mod phase;
mod ramp;
mod recorder;
mod retry;
mod session;
mod token_ring;
mod verify;

pub use execute::Engine;
pub use phase::run;
pub use recorder::{open_hdr_log, Recorder, Stops};
