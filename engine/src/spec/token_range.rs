//! A `token_range` operation's walk of the token ring (`TokenRangeScan` in
//! `src/casslab/engine_contract/workload_spec.py`) and its rules, with the same messages.

use serde::{Deserialize, Serialize};

use super::{OpKind, Operation};

/// How a `token_range` operation walks the ring: the ring's ranges each cut into
/// `split_factor` pieces, handed out in ring order, one an operation, read in pages of
/// `page_size` rows; without `wrap` the phase ends when every piece was read.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TokenRangeScan {
    #[serde(default = "page_size")]
    pub page_size: i64,
    #[serde(default = "split_factor")]
    pub split_factor: i64,
    #[serde(default)]
    pub wrap: bool,
}

fn page_size() -> i64 {
    5000
}

fn split_factor() -> i64 {
    1
}

impl TokenRangeScan {
    pub fn check(&self) -> Result<(), String> {
        if self.page_size < 1 || self.split_factor < 1 {
            return Err(format!(
                "token_range page_size and split_factor must be >= 1 (got {} and {})",
                self.page_size, self.split_factor
            ));
        }
        Ok(())
    }
}

impl Operation {
    /// `kind: token_range` and `token_range` go together; its one statement has no binds.
    pub(super) fn check_token_range(&self) -> Result<(), String> {
        if (self.kind == OpKind::TokenRange) != self.token_range.is_some() {
            return Err("token_range settings go with kind token_range (both or neither)".into());
        }
        if self.token_range.is_some()
            && (self.statements.len() != 1
                || !self.statements[0].binds.is_empty()
                || self.batch.is_some())
        {
            return Err(
                "a token_range operation has one statement and no binds or batch \
                        (the engine binds the range's two bounds)"
                    .into(),
            );
        }
        Ok(())
    }
}
