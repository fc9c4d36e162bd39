//! Bind values as pure functions of (data seed, key, column) or (data seed, cycle, column).
//!
//! A write of key *k* and a validating read of key *k* evaluate the same generator for
//! the same column name under the same data seed, so they agree on the value without any
//! shared state, whatever operation seed each ran with. The one generator that is not
//! data, `scan_length` (a LIMIT, a part of the operation), is evaluated under the
//! operation seed instead: [`Gen::is_data`] tells the caller which seed to pass.

use scylla::errors::SerializationError;
use scylla::frame::response::result::ColumnType;
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, WrittenCellProof};
use scylla::value::{Counter, CqlTimestamp, CqlValue};
use uuid::Uuid;

use crate::dist::Dist;
use crate::hash::{fnv1a_str, mix, splitmix64, unit, ycsb_fnvhash64, Stream};
use crate::spec::{DistKind, GenKind, Generator};

mod typed;

pub use typed::opt_eq;

/// Stream salts, so size, content and per-cycle values never reuse a hash.
const SALT_CYCLE: u64 = 0x5EED_C1C1_E000_0001;
const SALT_SIZE: u64 = 0x51BE_0000_0000_0002;

/// cassandra-stress defaults: 10-byte keys, 34-byte column values.
const DEFAULT_KEY_BYTES: i64 = 10;
const DEFAULT_VALUE_BYTES: i64 = 34;
const DEFAULT_SCAN_LENGTH: i64 = 100;

const TEXT_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// One bound value, serialized by delegating to the driver's own impls.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Blob(Vec<u8>),
    Text(String),
    Int(i32),
    BigInt(i64),
    Double(f64),
    Uuid(Uuid),
    Timestamp(i64),
    Counter(i64),
    /// Every other CQL type, as the driver's own value (see `typed`).
    Cql(CqlValue),
    /// No value: what a read-first LWT binds for a column it found null (never generated).
    Null,
}

impl SerializeValue for Value {
    fn serialize<'b>(
        &self,
        typ: &ColumnType,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        match self {
            Value::Blob(b) => SerializeValue::serialize(b, typ, writer),
            Value::Text(s) => SerializeValue::serialize(s, typ, writer),
            Value::Int(i) => SerializeValue::serialize(i, typ, writer),
            Value::BigInt(i) => SerializeValue::serialize(i, typ, writer),
            Value::Double(d) => SerializeValue::serialize(d, typ, writer),
            Value::Uuid(u) => SerializeValue::serialize(u, typ, writer),
            Value::Timestamp(t) => SerializeValue::serialize(&CqlTimestamp(*t), typ, writer),
            Value::Counter(c) => SerializeValue::serialize(&Counter(*c), typ, writer),
            Value::Cql(v) => SerializeValue::serialize(v, typ, writer),
            Value::Null => Ok(writer.set_null()),
        }
    }
}

impl Value {
    /// Whether a value read back equals this generated one (counters always match:
    /// they accumulate and cannot be predicted).
    pub fn matches(&self, got: Option<&CqlValue>) -> bool {
        match (self, got) {
            (Value::Counter(_), _) => true,
            (Value::Cql(a), b) => opt_eq(Some(a), b),
            (Value::Null, b) => b.is_none(),
            (_, None) => false,
            (Value::Blob(a), Some(CqlValue::Blob(b))) => a == b,
            (Value::Text(a), Some(CqlValue::Text(b) | CqlValue::Ascii(b))) => a == b,
            (Value::Int(a), Some(CqlValue::Int(b))) => a == b,
            (Value::BigInt(a), Some(CqlValue::BigInt(b))) => a == b,
            (Value::Double(a), Some(CqlValue::Double(b))) => a.to_bits() == b.to_bits(),
            (Value::Uuid(a), Some(CqlValue::Uuid(b))) => a == b,
            (Value::Timestamp(a), Some(CqlValue::Timestamp(b))) => *a == b.0,
            _ => false,
        }
    }
}

/// A generator ready to evaluate.
#[derive(Debug, Clone)]
pub struct Gen {
    kind: GenKind,
    name: String,
    column_id: u64,
    size: Option<Dist>,
    values: Option<Dist>,
    prefix: String,
    hashed: bool,
    per_key: bool,
    level: usize,
    items: Vec<Gen>,
    udt: Option<(String, String)>,
}

/// Where a row sits in its partition: its position on each clustering level and, per
/// level, a hash of the positions down to it (so a value on level i is shared by every
/// row below the same level-i prefix).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowPos {
    pub positions: Vec<u64>,
    pub ids: Vec<u64>,
}

fn fixed(n: i64) -> Dist {
    Dist::new(&crate::spec::Distribution::range(DistKind::Fixed, n, n))
}

impl Gen {
    /// Compile a checked generator: `Generator::check` (run on every spec by
    /// `WorkloadSpec::from_json`) guarantees its distributions are valid and its sizes
    /// are >= 0 bytes.
    pub fn new(g: &Generator) -> Gen {
        assert!(g.check().is_ok(), "compile a checked generator: {g:?}");
        let size = match (&g.size, g.kind) {
            (Some(d), _) => Some(Dist::new(d)),
            (None, GenKind::KeyBlob) => Some(fixed(DEFAULT_KEY_BYTES)),
            (None, GenKind::Blob | GenKind::Text) => Some(fixed(DEFAULT_VALUE_BYTES)),
            (None, _) => None,
        };
        Gen {
            kind: g.kind,
            name: g.column.clone(),
            column_id: fnv1a_str(&g.column),
            size,
            values: g.values.as_ref().map(Dist::new),
            prefix: g.prefix.clone(),
            hashed: g.hashed,
            per_key: g.per_key && g.kind != GenKind::ScanLength,
            level: g.level,
            items: g.items.iter().map(Gen::new).collect(),
            udt: g.udt.as_ref().map(|u| (u.keyspace.clone(), u.name.clone())),
        }
    }

    pub fn kind(&self) -> GenKind {
        self.kind
    }

    /// Whether this generator's values are data (written or validated: evaluate them under
    /// the data seed) rather than a part of the operation (a scan's length: evaluate it
    /// under the operation seed).
    pub fn is_data(&self) -> bool {
        self.kind != GenKind::ScanLength
    }

    /// The value for `key` at `cycle` under `seed` (the data seed when [`Gen::is_data`]).
    pub fn value(&self, seed: u64, key: i64, cycle: u64) -> Value {
        self.value_in_row(seed, key, None, cycle)
    }

    /// The value for the row at `row` of partition `key` (level-0 generators and rows of
    /// partitions without clustering levels ignore `row`).
    pub fn value_in_row(&self, seed: u64, key: i64, row: Option<&RowPos>, cycle: u64) -> Value {
        let (index, h) = if !self.per_key {
            (cycle, mix(seed, self.column_id ^ SALT_CYCLE, cycle))
        } else {
            match row {
                Some(r) if self.level > 0 && self.level <= r.ids.len() => (
                    r.positions[self.level - 1],
                    mix(seed, self.column_id, r.ids[self.level - 1]),
                ),
                _ => (key as u64, mix(seed, self.column_id, key as u64)),
            }
        };
        self.make(index, h, Some(key))
    }

    /// The value at `index` (the key, row position or cycle) from hash `h`; `key` is None
    /// for an element of a collection, tuple or UDT (numbers then start from `h`).
    fn make(&self, index: u64, h: u64, key: Option<i64>) -> Value {
        let base = key.unwrap_or(h as i64);
        let len = |d: &Option<Dist>| -> usize {
            d.as_ref().map_or(0, |d| {
                d.sample(index, splitmix64(h ^ SALT_SIZE)).max(0) as usize
            })
        };
        let num =
            |default: i64| -> i64 { self.values.as_ref().map_or(default, |d| d.sample(index, h)) };
        match self.kind {
            GenKind::KeyBlob => Value::Blob(key_blob(base, len(&self.size))),
            GenKind::KeyText => {
                let n = if self.hashed {
                    ycsb_fnvhash64(base)
                } else {
                    base
                };
                Value::Text(format!("{}{}", self.prefix, n))
            }
            GenKind::KeyBigint => Value::BigInt(base),
            GenKind::Blob => Value::Blob(blob(h, len(&self.size))),
            GenKind::Text => Value::Text(text(h, len(&self.size))),
            GenKind::Int => Value::Int(num(base) as i32),
            GenKind::Bigint => Value::BigInt(num(base)),
            GenKind::Double => Value::Double(match &self.values {
                Some(d) => d.sample(index, h) as f64 + unit(splitmix64(h)),
                None => unit(h),
            }),
            GenKind::Uuid => {
                let hi = h.to_be_bytes();
                let lo = splitmix64(h).to_be_bytes();
                let mut b = [0u8; 16];
                b[..8].copy_from_slice(&hi);
                b[8..].copy_from_slice(&lo);
                b[6] = (b[6] & 0x0F) | 0x40; // version 4
                b[8] = (b[8] & 0x3F) | 0x80; // RFC 4122 variant
                Value::Uuid(Uuid::from_bytes(b))
            }
            GenKind::Timestamp => Value::Timestamp(num(base)),
            GenKind::CounterDelta => Value::Counter(num(1)),
            GenKind::ScanLength => Value::Int(num(DEFAULT_SCAN_LENGTH) as i32),
            _ => Value::Cql(self.typed(index, h, base)),
        }
    }
}

/// The key as `len` bytes: big-endian key in the trailing bytes, zeros before it.
fn key_blob(key: i64, len: usize) -> Vec<u8> {
    let be = key.to_be_bytes();
    let mut out = vec![0u8; len];
    let n = len.min(8);
    out[len - n..].copy_from_slice(&be[8 - n..]);
    out
}

fn blob(h: u64, len: usize) -> Vec<u8> {
    let mut s = Stream::new(h);
    let mut out = Vec::with_capacity(len);
    while out.len() + 8 <= len {
        out.extend_from_slice(&s.next_u64().to_le_bytes());
    }
    let rest = len - out.len();
    out.extend_from_slice(&s.next_u64().to_le_bytes()[..rest]);
    out
}

fn text(h: u64, len: usize) -> String {
    let mut s = Stream::new(h);
    let mut out = String::with_capacity(len);
    while out.len() < len {
        let mut w = s.next_u64();
        for _ in 0..10 {
            if out.len() == len {
                break;
            }
            out.push(TEXT_ALPHABET[(w & 63) as usize] as char);
            w >>= 6;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Distribution;

    fn gen(kind: GenKind, column: &str) -> Generator {
        Generator {
            kind,
            column: column.into(),
            size: None,
            values: None,
            prefix: String::new(),
            hashed: false,
            per_key: true,
            level: 0,
            items: Vec::new(),
            udt: None,
        }
    }

    fn range(kind: DistKind, min: i64, max: i64) -> Distribution {
        Distribution::range(kind, min, max)
    }

    #[test]
    fn per_key_values_depend_on_seed_key_and_column_only() {
        let g = Gen::new(&gen(GenKind::Blob, "C0"));
        assert_eq!(g.value(1, 5, 0), g.value(1, 5, 999));
        assert_ne!(g.value(1, 5, 0), g.value(1, 6, 0));
        assert_ne!(g.value(1, 5, 0), g.value(2, 5, 0));
        let other = Gen::new(&gen(GenKind::Blob, "C1"));
        assert_ne!(g.value(1, 5, 0), other.value(1, 5, 0));
    }

    #[test]
    fn only_a_scan_length_is_not_data() {
        for kind in [
            GenKind::Blob,
            GenKind::Text,
            GenKind::CounterDelta,
            GenKind::KeyBlob,
        ] {
            assert!(Gen::new(&gen(kind, "c")).is_data(), "{kind:?}");
        }
        let mut scan = gen(GenKind::ScanLength, "limit");
        scan.per_key = false;
        assert!(!Gen::new(&scan).is_data());
    }

    #[test]
    fn per_cycle_values_depend_on_cycle() {
        let mut spec = gen(GenKind::Bigint, "v");
        spec.per_key = false;
        spec.values = Some(range(DistKind::Uniform, 0, 1 << 40));
        let g = Gen::new(&spec);
        assert_eq!(g.value(1, 5, 7), g.value(1, 6, 7));
        assert_ne!(g.value(1, 5, 7), g.value(1, 5, 8));
    }

    #[test]
    fn sizes_follow_the_size_distribution() {
        let mut spec = gen(GenKind::Text, "f");
        spec.size = Some(range(DistKind::Uniform, 3, 17));
        let g = Gen::new(&spec);
        for k in 0..2_000 {
            match g.value(0, k, 0) {
                Value::Text(s) => {
                    assert!((3..=17).contains(&s.len()), "{}", s.len());
                    assert!(s.bytes().all(|b| TEXT_ALPHABET.contains(&b)));
                }
                v => panic!("{v:?}"),
            }
        }
        let b = Gen::new(&gen(GenKind::Blob, "C0"));
        for k in 0..100 {
            assert!(matches!(b.value(0, k, 0), Value::Blob(v) if v.len() == 34));
        }
        for len in 0..20 {
            assert_eq!(blob(9, len).len(), len);
        }
    }

    #[test]
    fn keys_render_like_stress_and_ycsb() {
        let kb = Gen::new(&gen(GenKind::KeyBlob, "key"));
        assert_eq!(
            kb.value(0, 258, 0),
            Value::Blob(vec![0, 0, 0, 0, 0, 0, 0, 0, 1, 2])
        );
        let mut t = gen(GenKind::KeyText, "y_id");
        t.prefix = "user".into();
        assert_eq!(Gen::new(&t).value(0, 42, 0), Value::Text("user42".into()));
        t.hashed = true;
        let hashed = Gen::new(&t).value(0, 42, 0);
        assert_eq!(hashed, Value::Text(format!("user{}", ycsb_fnvhash64(42))));
        assert_eq!(key_blob(258, 1), vec![2]);
    }

    #[test]
    fn numeric_generators_use_values_or_key() {
        let g = Gen::new(&gen(GenKind::Int, "i"));
        assert_eq!(g.value(0, 12, 0), Value::Int(12));
        let mut c = gen(GenKind::CounterDelta, "c");
        assert_eq!(Gen::new(&c).value(0, 12, 0), Value::Counter(1));
        c.values = Some(range(DistKind::Fixed, 5, 5));
        assert_eq!(Gen::new(&c).value(0, 12, 0), Value::Counter(5));
        let u = Gen::new(&gen(GenKind::Uuid, "u"));
        match u.value(3, 4, 0) {
            Value::Uuid(x) => assert_eq!(x.get_version_num(), 4),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn row_values_depend_on_the_row_prefix_down_to_their_level() {
        let mut top = gen(GenKind::Text, "date");
        top.level = 1;
        let mut leaf = gen(GenKind::Blob, "value");
        leaf.level = 2;
        let (top, leaf) = (Gen::new(&top), Gen::new(&leaf));
        let pk = Gen::new(&gen(GenKind::Text, "name"));
        let row = |a: u64, b: u64| RowPos {
            positions: vec![a, b],
            ids: vec![mix(7, 1, a), mix(7, 2, a * 31 + b)],
        };
        let (r00, r01, r10) = (row(0, 0), row(0, 1), row(1, 0));
        assert_eq!(
            top.value_in_row(1, 5, Some(&r00), 0),
            top.value_in_row(1, 5, Some(&r01), 9)
        );
        assert_ne!(
            top.value_in_row(1, 5, Some(&r00), 0),
            top.value_in_row(1, 5, Some(&r10), 0)
        );
        assert_ne!(
            leaf.value_in_row(1, 5, Some(&r00), 0),
            leaf.value_in_row(1, 5, Some(&r01), 0)
        );
        assert_eq!(pk.value_in_row(1, 5, Some(&r10), 0), pk.value(1, 5, 3));
        assert_eq!(top.value_in_row(1, 5, None, 0), top.value(1, 5, 0));
    }

    #[test]
    fn matches_compares_read_back_values() {
        let v = Value::Blob(vec![1, 2]);
        assert!(v.matches(Some(&CqlValue::Blob(vec![1, 2]))));
        assert!(!v.matches(Some(&CqlValue::Blob(vec![1, 3]))));
        assert!(!v.matches(None));
        assert!(Value::Text("a".into()).matches(Some(&CqlValue::Ascii("a".into()))));
        assert!(!Value::Int(1).matches(Some(&CqlValue::BigInt(1))));
        assert!(Value::Counter(3).matches(None));
        assert!(Value::Null.matches(None));
        assert!(!Value::Null.matches(Some(&CqlValue::Int(0))));
    }

    #[test]
    fn null_serializes_as_a_null_cell_whatever_the_type() {
        use scylla::frame::response::result::NativeType;
        for typ in [
            ColumnType::Native(NativeType::Text),
            ColumnType::Native(NativeType::Timeuuid),
        ] {
            let mut buf = Vec::new();
            Value::Null
                .serialize(&typ, CellWriter::new(&mut buf))
                .unwrap();
            assert_eq!(buf, (-1i32).to_be_bytes(), "{typ:?}");
        }
    }
}
