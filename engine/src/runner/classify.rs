//! The kind of a failed operation's final error (after retries), in Cassandra's terms:
//! what `errors_by_kind` counts. The kinds and what each covers are listed once, on
//! [`ErrorKind`]; this is the mapping from the driver's errors to them.

use scylla::errors::{DbError, ExecutionError, RequestAttemptError};

use crate::spec::ErrorKind;

/// The kind of `e`.
pub fn kind_of(e: &ExecutionError) -> ErrorKind {
    match e {
        ExecutionError::RequestTimeout(_) => ErrorKind::ClientTimeout,
        ExecutionError::ConnectionPoolError(_) | ExecutionError::EmptyPlan => ErrorKind::Connection,
        ExecutionError::LastAttemptError(a) => match a {
            RequestAttemptError::DbError(db, _) => match db {
                DbError::Unavailable { .. } => ErrorKind::Unavailable,
                DbError::WriteTimeout { .. } => ErrorKind::WriteTimeout,
                DbError::ReadTimeout { .. } => ErrorKind::ReadTimeout,
                DbError::WriteFailure { .. } => ErrorKind::WriteFailure,
                DbError::ReadFailure { .. } => ErrorKind::ReadFailure,
                DbError::Overloaded | DbError::RateLimitReached { .. } => ErrorKind::Overloaded,
                _ => ErrorKind::Other,
            },
            RequestAttemptError::BrokenConnectionError(_)
            | RequestAttemptError::UnableToAllocStreamId => ErrorKind::Connection,
            _ => ErrorKind::Other,
        },
        _ => ErrorKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};
    use std::time::Duration;

    use scylla::errors::{
        BadQuery, BrokenConnectionErrorKind, ConnectionPoolError, OperationType, WriteType,
    };
    use scylla::frame::types::Consistency;

    use super::*;

    fn db(e: DbError) -> ExecutionError {
        ExecutionError::LastAttemptError(RequestAttemptError::DbError(e, "msg".into()))
    }

    #[test]
    fn each_driver_error_has_its_kind() {
        let cl = Consistency::Quorum;
        let cases = [
            (
                db(DbError::Unavailable {
                    consistency: cl,
                    required: 2,
                    alive: 1,
                }),
                ErrorKind::Unavailable,
            ),
            (
                db(DbError::WriteTimeout {
                    consistency: cl,
                    received: 1,
                    required: 2,
                    write_type: WriteType::Simple,
                }),
                ErrorKind::WriteTimeout,
            ),
            (
                db(DbError::ReadTimeout {
                    consistency: cl,
                    received: 1,
                    required: 2,
                    data_present: false,
                }),
                ErrorKind::ReadTimeout,
            ),
            (
                db(DbError::WriteFailure {
                    consistency: cl,
                    received: 1,
                    required: 2,
                    numfailures: 1,
                    write_type: WriteType::Batch,
                }),
                ErrorKind::WriteFailure,
            ),
            (
                db(DbError::ReadFailure {
                    consistency: cl,
                    received: 1,
                    required: 2,
                    numfailures: 1,
                    data_present: false,
                }),
                ErrorKind::ReadFailure,
            ),
            (db(DbError::Overloaded), ErrorKind::Overloaded),
            (
                db(DbError::RateLimitReached {
                    op_type: OperationType::Write,
                    rejected_by_coordinator: true,
                }),
                ErrorKind::Overloaded,
            ),
            (
                ExecutionError::RequestTimeout(Duration::from_secs(12)),
                ErrorKind::ClientTimeout,
            ),
            (
                ExecutionError::ConnectionPoolError(ConnectionPoolError::Initializing),
                ErrorKind::Connection,
            ),
            (
                ExecutionError::LastAttemptError(RequestAttemptError::UnableToAllocStreamId),
                ErrorKind::Connection,
            ),
            (
                ExecutionError::LastAttemptError(RequestAttemptError::BrokenConnectionError(
                    BrokenConnectionErrorKind::KeepaliveTimeout(IpAddr::V4(Ipv4Addr::LOCALHOST))
                        .into(),
                )),
                ErrorKind::Connection,
            ),
            (ExecutionError::EmptyPlan, ErrorKind::Connection),
            (db(DbError::ServerError), ErrorKind::Other),
            (db(DbError::Invalid), ErrorKind::Other),
            (db(DbError::IsBootstrapping), ErrorKind::Other),
            (
                ExecutionError::BadQuery(BadQuery::PartitionKeyExtraction),
                ErrorKind::Other,
            ),
        ];
        for (e, want) in cases {
            assert_eq!(kind_of(&e), want, "{e}");
        }
    }
}
