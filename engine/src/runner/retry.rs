//! Retry classification and the retry rule. The driver's own retry policy is off
//! (`session`), so every retry is this one: idempotent statements retry timeouts,
//! unavailable/overloaded/bootstrapping coordinators, replica read/write timeouts and
//! failures, server and truncate errors, rate limits, exhausted stream ids and broken or
//! still-initialising connection pools, `retries` times with exponential backoff from
//! `retry_backoff_ms` (doubling, at most 5 s a pause). Everything else (syntax, invalid,
//! unauthorized, bad values, an empty plan, ...) fails the operation at once, as does any
//! error of a non-idempotent statement. Service time spans all attempts.

use std::time::Duration;

use scylla::errors::{DbError, ExecutionError, RequestAttemptError};

use crate::spec::Connection;

/// The longest pause between two attempts.
const MAX_RETRY_PAUSE: Duration = Duration::from_secs(5);

/// Whether retrying the same idempotent request may succeed.
pub fn retryable(e: &ExecutionError) -> bool {
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

/// The engine's retry rule (the driver's own retry policy is off, so every retry is this).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    pub retries: u32,
    pub backoff: Duration,
}

impl Retry {
    pub fn of(c: &Connection) -> Retry {
        Retry {
            retries: c.retries,
            backoff: Duration::from_secs_f64(c.retry_backoff_ms.max(0.0) / 1000.0),
        }
    }

    /// After `tries` retries already made and failure `e`: the pause before the next
    /// attempt, or None when the error stands.
    #[inline]
    pub fn pause(&self, idempotent: bool, tries: u32, e: &ExecutionError) -> Option<Duration> {
        if idempotent && tries < self.retries && retryable(e) {
            let pause = self.backoff.saturating_mul(1u32 << tries.min(10));
            Some(pause.min(MAX_RETRY_PAUSE))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};

    use scylla::errors::{
        BadQuery, BrokenConnectionErrorKind, ConnectionPoolError, OperationType, WriteType,
    };
    use scylla::frame::types::Consistency;

    use super::*;
    use crate::spec::WorkloadSpec;

    fn db(e: DbError) -> ExecutionError {
        ExecutionError::LastAttemptError(RequestAttemptError::DbError(e, "msg".into()))
    }

    fn transient() -> Vec<ExecutionError> {
        let cl = Consistency::Quorum;
        vec![
            ExecutionError::RequestTimeout(Duration::from_secs(12)),
            ExecutionError::ConnectionPoolError(ConnectionPoolError::Initializing),
            ExecutionError::LastAttemptError(RequestAttemptError::UnableToAllocStreamId),
            ExecutionError::LastAttemptError(RequestAttemptError::BrokenConnectionError(
                BrokenConnectionErrorKind::KeepaliveTimeout(IpAddr::V4(Ipv4Addr::LOCALHOST)).into(),
            )),
            db(DbError::Unavailable {
                consistency: cl,
                required: 2,
                alive: 1,
            }),
            db(DbError::Overloaded),
            db(DbError::IsBootstrapping),
            db(DbError::ReadTimeout {
                consistency: cl,
                received: 1,
                required: 2,
                data_present: false,
            }),
            db(DbError::WriteTimeout {
                consistency: cl,
                received: 1,
                required: 2,
                write_type: WriteType::Simple,
            }),
            db(DbError::ReadFailure {
                consistency: cl,
                received: 1,
                required: 2,
                numfailures: 1,
                data_present: false,
            }),
            db(DbError::WriteFailure {
                consistency: cl,
                received: 1,
                required: 2,
                numfailures: 1,
                write_type: WriteType::Batch,
            }),
            db(DbError::ServerError),
            db(DbError::TruncateError),
            db(DbError::RateLimitReached {
                op_type: OperationType::Write,
                rejected_by_coordinator: true,
            }),
        ]
    }

    fn permanent() -> Vec<ExecutionError> {
        vec![
            db(DbError::SyntaxError),
            db(DbError::Invalid),
            db(DbError::Unauthorized),
            db(DbError::AuthenticationError),
            db(DbError::ConfigError),
            db(DbError::ProtocolError),
            db(DbError::AlreadyExists {
                keyspace: "ks".into(),
                table: "t".into(),
            }),
            db(DbError::Other(0x1234)),
            ExecutionError::BadQuery(BadQuery::TooManyQueriesInBatchStatement(70_000)),
            ExecutionError::BadQuery(BadQuery::PartitionKeyExtraction),
            ExecutionError::EmptyPlan,
        ]
    }

    #[test]
    fn transient_errors_are_retryable() {
        for e in transient() {
            assert!(retryable(&e), "should retry: {e}");
        }
    }

    #[test]
    fn request_and_permission_errors_are_final() {
        for e in permanent() {
            assert!(!retryable(&e), "should not retry: {e}");
        }
    }

    #[test]
    fn only_idempotent_requests_retry_and_only_within_the_budget() {
        let rule = Retry {
            retries: 3,
            backoff: Duration::from_millis(100),
        };
        let timeout = ExecutionError::RequestTimeout(Duration::from_secs(1));
        assert_eq!(
            rule.pause(true, 0, &timeout),
            Some(Duration::from_millis(100))
        );
        assert_eq!(rule.pause(true, 3, &timeout), None, "budget used up");
        assert_eq!(rule.pause(false, 0, &timeout), None, "not idempotent");
        assert_eq!(rule.pause(true, 0, &db(DbError::Invalid)), None);
        let none = Retry { retries: 0, ..rule };
        assert_eq!(none.pause(true, 0, &timeout), None);
    }

    #[test]
    fn backoff_doubles_up_to_five_seconds() {
        let rule = Retry {
            retries: 20,
            backoff: Duration::from_millis(100),
        };
        let e = db(DbError::Overloaded);
        let pauses: Vec<u64> = (0..8)
            .map(|t| rule.pause(true, t, &e).unwrap().as_millis() as u64)
            .collect();
        assert_eq!(pauses, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        let huge = Retry {
            retries: 20,
            backoff: Duration::from_secs(3600),
        };
        assert_eq!(huge.pause(true, 19, &e), Some(MAX_RETRY_PAUSE));
    }

    #[test]
    fn retry_settings_come_from_the_connection() {
        let spec = WorkloadSpec::from_json(
            r#"{"connection": {"contact_points": ["h:9042"], "retries": 5,
                               "retry_backoff_ms": 250},
                "operations": [{"name": "w", "kind": "write", "weight": 1,
                                "statements": [{"cql": "W"}]}],
                "keys": {"kind": "seq", "min": 1, "max": 10},
                "rate": {"mode": "closed", "threads": 1}, "stop": {"ops": 1}}"#,
        )
        .unwrap();
        let mut c = spec.connection;
        assert_eq!(
            Retry::of(&c),
            Retry {
                retries: 5,
                backoff: Duration::from_millis(250)
            }
        );
        c.retry_backoff_ms = -1.0;
        assert_eq!(Retry::of(&c).backoff, Duration::ZERO);
    }
}
