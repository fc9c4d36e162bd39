//! The workload-spec contract, engine side: every spec in `engine/contract/valid/` passes
//! what `casslab-engine --check` runs (parse, check, compile), and every case in
//! `engine/contract/invalid/` fails it with a message containing the case's `reason`.
//! `tests/load/test_contract.py` runs the same files through the Python models.

use std::fs;
use std::path::{Path, PathBuf};

use super::WorkloadSpec;
use crate::workload::Workload;

/// The fewest fixtures of each kind: an empty or misplaced folder must not pass silently.
const MIN_VALID: usize = 10;
const MIN_INVALID: usize = 12;

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("contract")
        .join(kind);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// What `casslab-engine --check` does with a spec file.
fn engine_check(text: &str) -> Result<(), String> {
    let spec = WorkloadSpec::from_json(text)?;
    Workload::new(&spec);
    Ok(())
}

#[test]
fn valid_specs_are_accepted() {
    let files = fixtures("valid");
    assert!(
        files.len() >= MIN_VALID,
        "only {} valid fixtures",
        files.len()
    );
    let refused: Vec<String> = files
        .iter()
        .filter_map(|p| {
            engine_check(&read(p))
                .err()
                .map(|e| format!("{}: {e}", p.display()))
        })
        .collect();
    assert!(refused.is_empty(), "refused:\n{}", refused.join("\n"));
}

#[test]
fn invalid_specs_are_rejected_for_their_reason() {
    let files = fixtures("invalid");
    assert!(
        files.len() >= MIN_INVALID,
        "only {} invalid fixtures",
        files.len()
    );
    let mut wrong = Vec::new();
    for path in &files {
        let case: serde_json::Value = serde_json::from_str(&read(path))
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        let reason = case["reason"]
            .as_str()
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| panic!("{}: no \"reason\" string", path.display()));
        let spec = case["spec"].to_string();
        match engine_check(&spec) {
            Ok(()) => wrong.push(format!("{}: accepted", path.display())),
            Err(e) if !e.contains(reason) => wrong.push(format!(
                "{}: rejected, but the message lacks {reason:?}: {e}",
                path.display()
            )),
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}
