//! The rules a workload spec must satisfy, in the order and with the messages of the
//! pydantic validators in `src/casslab/load/spec.py`.
//!
//! Both sides run the fixtures in `engine/contract/` (see its README): a spec in `valid/`
//! is accepted by both, a spec in `invalid/` is rejected by both with messages that contain
//! its `reason`. Change a rule here, there and in a fixture together.

use super::{
    Connection, DistKind, Distribution, GenKind, Generator, OpKind, Operation, Output, Rate, Stop,
    Verify, WorkloadSpec, SCHEMA_VERSION,
};

/// `x > 0`, false for NaN.
fn positive(x: f64) -> bool {
    x > 0.0
}

/// `x >= 0`, false for NaN.
fn non_negative(x: f64) -> bool {
    x >= 0.0
}

fn fraction(x: f64) -> bool {
    (0.0..=1.0).contains(&x)
}

fn kind_name(kind: DistKind) -> String {
    format!("{kind:?}").to_lowercase()
}

pub(super) fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Distribution {
    pub fn check(&self) -> Result<(), String> {
        if self.max < self.min {
            return Err(format!(
                "{} distribution {}..{}: max is below min; write it as min..max",
                kind_name(self.kind),
                self.min,
                self.max
            ));
        }
        if !(positive(self.zipf_theta) && self.zipf_theta < 1.0) {
            return Err(format!(
                "zipf_theta must be between 0 and 1, exclusive (got {}); YCSB uses 0.99",
                self.zipf_theta
            ));
        }
        if !(fraction(self.hot_fraction) && fraction(self.hot_ops_fraction)) {
            return Err(format!(
                "hot_fraction and hot_ops_fraction must be between 0 and 1 (got {}, {})",
                self.hot_fraction, self.hot_ops_fraction
            ));
        }
        Ok(())
    }
}

impl Generator {
    pub fn check(&self) -> Result<(), String> {
        let column = &self.column;
        if let Some(d) = &self.size {
            d.check()
                .map_err(|e| format!("column {column:?} size: {e}"))?;
        }
        if let Some(d) = &self.values {
            d.check()
                .map_err(|e| format!("column {column:?} values: {e}"))?;
        }
        if let Some(d) = self.size.as_ref().filter(|d| d.min < 0) {
            return Err(format!(
                "column {column:?}: size must be >= 0 bytes (got {}..{})",
                d.min, d.max
            ));
        }
        self.check_items()
    }

    /// A collection, tuple or UDT has its item generators; other kinds have none.
    fn check_items(&self) -> Result<(), String> {
        let column = &self.column;
        let got = self.items.len();
        let (least, most) = self.kind.item_counts();
        if !(least..=most).contains(&got) {
            let rule = match self.kind {
                GenKind::List | GenKind::Set | GenKind::Vector => {
                    "a list, set or vector takes one item generator (its element)"
                }
                GenKind::Map => "a map takes two item generators (its key and its value)",
                GenKind::Tuple | GenKind::Udt => {
                    "a tuple or udt takes one item generator per component"
                }
                _ => "only list, set, map, tuple, udt and vector take item generators",
            };
            return Err(format!("column {column:?}: {rule} (got {got})"));
        }
        if self.kind == GenKind::Udt && self.udt.is_none() {
            return Err(format!(
                "column {column:?}: a udt needs udt (the type's keyspace and name)"
            ));
        }
        if self.kind == GenKind::Vector
            && !self
                .size
                .as_ref()
                .is_some_and(|d| d.min == d.max && d.min >= 1)
        {
            return Err(format!(
                "column {column:?}: a vector needs a fixed size >= 1 (its dimension)"
            ));
        }
        for item in &self.items {
            item.check()?;
        }
        Ok(())
    }
}

impl Operation {
    /// Nested records first, then the operation's own rules (pydantic's order).
    pub fn check(&self) -> Result<(), String> {
        let ctx = |e: String| format!("operation {:?}: {e}", self.name);
        for g in self.statements.iter().flat_map(|s| &s.binds) {
            g.check().map_err(ctx)?;
        }
        if let Some(d) = &self.keys {
            d.check().map_err(|e| ctx(format!("keys: {e}")))?;
        }
        for g in &self.validate_columns {
            g.check().map_err(ctx)?;
        }
        for d in &self.clustering {
            d.check().map_err(|e| ctx(format!("clustering: {e}")))?;
        }
        if let Some(t) = &self.token_range {
            t.check().map_err(ctx)?;
        }
        if let Some(b) = &self.batch {
            b.partitions
                .check()
                .map_err(|e| ctx(format!("batch partitions: {e}")))?;
            b.select
                .check()
                .map_err(|e| ctx(format!("batch select: {e}")))?;
            if b.partitions.min < 1 || b.select.min < 0 {
                return Err(ctx(format!(
                    "batch partitions must be >= 1 and select >= 0 (got partitions {}..{}, \
                     select {}..{})",
                    b.partitions.min, b.partitions.max, b.select.min, b.select.max
                )));
            }
            if !positive(b.select_divisor) {
                return Err(ctx(format!(
                    "batch select_divisor must be > 0 (got {})",
                    b.select_divisor
                )));
            }
        }
        if !positive(self.weight) {
            return Err(ctx(format!("weight must be > 0 (got {})", self.weight)));
        }
        if self.statements.is_empty() {
            return Err(ctx(
                "statements is empty; give at least one statement".into()
            ));
        }
        let depth = self.clustering.len();
        if let Some(g) = self
            .statements
            .iter()
            .flat_map(|s| &s.binds)
            .find(|g| g.level > depth)
        {
            return Err(ctx(format!(
                "column {:?} has level {} but the partition has {depth} clustering level(s)",
                g.column, g.level
            )));
        }
        if self.clustering.iter().any(|d| d.min < 1) {
            return Err(ctx("clustering counts must be >= 1".into()));
        }
        if self.batch.is_some()
            && (!matches!(self.kind, OpKind::Write | OpKind::CounterWrite)
                || self.statements.len() != 1)
        {
            return Err(ctx("batch needs a write with exactly one statement".into()));
        }
        if self.kind == OpKind::ReadModifyWrite && self.statements.len() != 2 {
            return Err(ctx(format!(
                "read_modify_write needs exactly 2 statements (a read, then a write), got {}",
                self.statements.len()
            )));
        }
        if !self.condition_binds.is_empty() {
            self.check_condition_binds().map_err(ctx)?;
        }
        self.check_token_range().map_err(ctx)?;
        if self
            .validate_columns
            .iter()
            .any(|g| g.kind == GenKind::ScanLength)
        {
            return Err(ctx(
                "validate_columns cannot hold scan_length (it is a LIMIT, not a column); \
                 remove it"
                    .into(),
            ));
        }
        Ok(())
    }
}

impl Operation {
    /// The read-first LWT's rules (`condition_binds`), as `Operation._check_condition_binds`.
    fn check_condition_binds(&self) -> Result<(), String> {
        if !self.conditional || self.statements.len() != 2 {
            return Err(format!(
                "condition_binds needs a conditional operation of 2 statements (the read, \
                 then the conditional one), got conditional={} and {} statement(s)",
                if self.conditional { "True" } else { "False" },
                self.statements.len()
            ));
        }
        let binds = self.statements[1].binds.len();
        if let Some(p) = self.condition_binds.iter().find(|&&p| p >= binds) {
            return Err(format!(
                "condition_binds position {p} is outside the conditional statement's {binds} binds"
            ));
        }
        let mut seen = self.condition_binds.clone();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != self.condition_binds.len() {
            return Err(format!(
                "condition_binds repeats a position ({:?}); each read value fills one bind",
                self.condition_binds
            ));
        }
        Ok(())
    }
}

impl Rate {
    pub fn check(&self) -> Result<(), String> {
        match self {
            Rate::Closed { threads } => {
                if *threads < 1 {
                    return Err(format!("rate.threads must be >= 1 (got {threads})"));
                }
            }
            Rate::Open {
                rate_per_s,
                max_in_flight,
            } => {
                if !positive(*rate_per_s) {
                    return Err(format!("rate.rate_per_s must be > 0 (got {rate_per_s})"));
                }
                if *max_in_flight < 1 {
                    return Err(format!(
                        "rate.max_in_flight must be >= 1 (got {max_in_flight})"
                    ));
                }
            }
            Rate::Ramp {
                min,
                max,
                factor,
                step_duration_s,
                patience,
                steps,
                ..
            } => {
                if !(1 <= *min && min <= max) {
                    return Err(format!(
                        "rate: ramp needs 1 <= min <= max (got min={min} max={max}); in \
                         stress syntax threads>=MIN threads<=MAX"
                    ));
                }
                if factor.is_nan() || *factor <= 1.0 {
                    return Err(format!("rate.factor must be > 1 (got {factor})"));
                }
                if !positive(*step_duration_s) {
                    return Err(format!(
                        "rate.step_duration_s must be > 0 (got {step_duration_s})"
                    ));
                }
                if *patience < 1 {
                    return Err(format!("rate.patience must be >= 1 (got {patience})"));
                }
                if steps.windows(2).any(|w| w[1] <= w[0]) || steps.iter().any(|&s| s < 1) {
                    return Err(format!(
                        "rate.steps must be ascending and >= 1 (got {steps:?}); each step is \
                         a thread count above the one before"
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Stop {
    pub fn check(&self) -> Result<(), String> {
        if let Some(ops) = self.ops.filter(|&n| n < 1) {
            return Err(format!(
                "stop.ops must be >= 1 (got {ops}); leave it out for no limit"
            ));
        }
        if let Some(d) = self.duration_s.filter(|&d| !positive(d)) {
            return Err(format!(
                "stop.duration_s must be > 0 (got {d}); leave it out for no limit"
            ));
        }
        Ok(())
    }
}

impl Connection {
    pub fn check(&self) -> Result<(), String> {
        if self.contact_points.is_empty() {
            return Err("connection.contact_points is empty; give at least one host:port".into());
        }
        if self.password.is_some() && self.password_env.is_some() {
            return Err("connection: give password or password_env, not both".into());
        }
        if let Some(name) = &self.password_env {
            if !is_env_name(name) {
                return Err(format!(
                    "connection.password_env {name:?}: not an environment variable name; use \
                     letters, digits and _ (e.g. CASSANDRA_PASSWORD)"
                ));
            }
        }
        if self.username.is_some() != (self.password.is_some() || self.password_env.is_some()) {
            return Err(
                "connection: give both username and password (or password_env), or neither".into(),
            );
        }
        if !positive(self.request_timeout_s) {
            return Err(format!(
                "connection.request_timeout_s must be > 0 (got {})",
                self.request_timeout_s
            ));
        }
        if !non_negative(self.retry_backoff_ms) {
            return Err(format!(
                "connection.retry_backoff_ms must be >= 0 (got {})",
                self.retry_backoff_ms
            ));
        }
        Ok(())
    }
}

impl Output {
    pub fn check(&self) -> Result<(), String> {
        if !positive(self.interval_s) {
            return Err(format!(
                "output.interval_s must be > 0 (got {})",
                self.interval_s
            ));
        }
        Ok(())
    }
}

impl Verify {
    /// Its binds, then every bind a function of the key alone (what the read-back of a key
    /// can evaluate).
    pub fn check(&self) -> Result<(), String> {
        for g in &self.statement.binds {
            g.check().map_err(|e| format!("verify: {e}"))?;
        }
        if let Some(g) = self
            .statement
            .binds
            .iter()
            .find(|g| !g.per_key || g.level != 0 || g.kind == GenKind::ScanLength)
        {
            return Err(format!(
                "verify: bind {:?} is not a function of the key alone (per_key, level 0); \
                 the read-back of a key can only bind the key's own values",
                g.column
            ));
        }
        Ok(())
    }

    /// The operations it verifies: at least one `write`, and no batch among them.
    pub fn check_operations(&self, operations: &[Operation]) -> Result<(), String> {
        let writes = || operations.iter().filter(|o| o.kind == OpKind::Write);
        if let Some(op) = writes().find(|o| o.batch.is_some()) {
            return Err(format!(
                "verify: operation {:?} writes batches, whose acknowledged rows are not \
                 verified; leave verify out or write one row per operation",
                op.name
            ));
        }
        if writes().next().is_none() {
            return Err(
                "verify: no operation of kind write; verify reads back what writes acknowledged"
                    .into(),
            );
        }
        Ok(())
    }
}

impl WorkloadSpec {
    /// Every rule of the Python models: fields in declaration order (nested records first),
    /// then the spec's own rules.
    pub fn check(&self) -> Result<(), String> {
        if self.schema_version != SCHEMA_VERSION {
            return Err(format!(
                "workload spec schema_version {} is not supported by this engine (expects {}); \
                 rebuild the engine with `make engine`",
                self.schema_version, SCHEMA_VERSION
            ));
        }
        self.connection.check()?;
        for op in &self.operations {
            op.check()?;
        }
        self.keys.check().map_err(|e| format!("keys: {e}"))?;
        self.rate.check()?;
        self.stop.check()?;
        self.output.check()?;
        if let Some(v) = &self.verify {
            v.check()?;
        }
        if self.operations.is_empty() {
            return Err("operations is empty; give at least one operation".into());
        }
        if !non_negative(self.warmup_s) {
            return Err(format!("warmup_s must be >= 0 (got {})", self.warmup_s));
        }
        if self.seed < 0 {
            return Err(seed_message("seed", self.seed));
        }
        if self.data_seed < 0 {
            return Err(seed_message("data_seed", self.data_seed));
        }
        if self.stop.ops.is_none()
            && self.stop.duration_s.is_none()
            && !matches!(self.rate, Rate::Ramp { .. })
        {
            return Err("stop: give ops (n=) or duration_s (duration=); a run must end".into());
        }
        if let Some(v) = &self.verify {
            v.check_operations(&self.operations)?;
        }
        self.check_vectors()
    }

    /// Dataset binds and recall need `vectors`; recall needs a query to count against.
    fn check_vectors(&self) -> Result<(), String> {
        if let Some(v) = &self.vectors {
            if v.dimension < 1 {
                return Err("vectors.dimension must be >= 1".into());
            }
        }
        for op in &self.operations {
            let kinds: Vec<GenKind> = op
                .statements
                .iter()
                .flat_map(|s| &s.binds)
                .map(|g| g.kind)
                .collect();
            let uses = kinds
                .iter()
                .any(|k| matches!(k, GenKind::BaseVector | GenKind::QueryVector));
            if (uses || op.recall_k.is_some()) && self.vectors.is_none() {
                return Err(format!(
                    "operation {:?}: base_vector, query_vector and recall_k need vectors \
                     (the dataset's files)",
                    op.name
                ));
            }
            if let Some(k) = op.recall_k {
                if k < 1 || !kinds.contains(&GenKind::QueryVector) {
                    return Err(format!(
                        "operation {:?}: recall_k {k} needs k >= 1 and a query_vector bind",
                        op.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The rule of `connection.retries`, in the Python validator's words.
pub(super) fn retries_message(retries: impl std::fmt::Display) -> String {
    format!("connection.retries must be >= 0 and < 2**32 (got {retries})")
}

/// The rule of `seed` and `data_seed` (each 0 <= x < 2**63), in the Python validator's words.
pub(super) fn seed_message(field: &str, seed: impl std::fmt::Display) -> String {
    format!("{field} must be >= 0 and < 2**63 (got {seed})")
}
