//! The CQL types beyond the first ten: the other native types, collections, tuples, UDTs
//! and vectors, each generated as the driver's own [`CqlValue`] and serialized by it.
//!
//! A value is a pure function of its generator's hash `h` (and, for numbers with a
//! `values` distribution, of a sample of it), so a read computes what the write stored.
//! A collection's element *j* draws from `mix(h, element column, j)`: elements differ,
//! and a nested collection is generated the same way one level down.
//!
//! [`cql_eq`] compares a generated value with one read back as Cassandra returns it: sets
//! and maps in any order (Cassandra sorts them), ascii and text alike, floats by bits, and
//! an empty collection equal to null (Cassandra stores an empty collection as no cell).

use std::net::{IpAddr, Ipv4Addr};

use scylla::value::{CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimeuuid, CqlValue, CqlVarint};
use uuid::Uuid;

use super::{Gen, Value};
use crate::hash::{mix, splitmix64, unit};
use crate::spec::GenKind;

/// Days from 1970-01-01 to 2100-01-01: a date without `values` falls in that range.
const DATE_DAYS: u64 = 47_482;
const DAY_NS: u64 = 86_400_000_000_000;
/// 2017-07-14 .. 2023-11-14 in ms, as the Python side's default timestamps.
const TIMEUUID_MS_MIN: u64 = 1_500_000_000_000;
const TIMEUUID_MS_SPAN: u64 = 200_000_000_000;
/// 100 ns intervals from 1582-10-15 (the UUID epoch) to 1970-01-01, in ms.
const UUID_EPOCH_OFFSET_MS: u64 = 12_219_292_800_000;
/// Collection length when a generator gives no `size` (the Python side always does).
const DEFAULT_LENGTH: usize = 4;
/// Decimals carry two digits after the point.
const DECIMAL_SCALE: i32 = 2;

/// The minimal big-endian two's-complement bytes of `n` (Cassandra's varint form).
pub fn varint_bytes(n: i64) -> Vec<u8> {
    let bytes = n.to_be_bytes();
    let mut start = 0;
    while start < 7 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        let redundant = (b == 0 && next & 0x80 == 0) || (b == 0xFF && next & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    bytes[start..].to_vec()
}

/// A version 1 (time-based) UUID at `ms` since the Unix epoch; the sub-millisecond
/// ticks, clock sequence and node come from `h`.
pub fn timeuuid(ms: u64, h: u64) -> Uuid {
    let h2 = splitmix64(h);
    let ticks = (ms + UUID_EPOCH_OFFSET_MS) * 10_000 + h % 10_000;
    let mut b = [0u8; 16];
    b[..4].copy_from_slice(&((ticks & 0xFFFF_FFFF) as u32).to_be_bytes());
    b[4..6].copy_from_slice(&(((ticks >> 32) & 0xFFFF) as u16).to_be_bytes());
    b[6..8].copy_from_slice(&((((ticks >> 48) & 0x0FFF) as u16) | 0x1000).to_be_bytes());
    b[8..10].copy_from_slice(&((((h2 >> 48) & 0x3FFF) as u16) | 0x8000).to_be_bytes());
    b[10..].copy_from_slice(&h2.to_be_bytes()[..6]);
    Uuid::from_bytes(b)
}

impl Value {
    /// The value as the driver's [`CqlValue`] (to nest it in a collection).
    pub fn into_cql(self) -> CqlValue {
        use scylla::value::{Counter, CqlTimestamp};
        match self {
            Value::Blob(b) => CqlValue::Blob(b),
            Value::Text(s) => CqlValue::Text(s),
            Value::Int(i) => CqlValue::Int(i),
            Value::BigInt(i) => CqlValue::BigInt(i),
            Value::Double(d) => CqlValue::Double(d),
            Value::Uuid(u) => CqlValue::Uuid(u),
            Value::Timestamp(t) => CqlValue::Timestamp(CqlTimestamp(t)),
            Value::Counter(c) => CqlValue::Counter(Counter(c)),
            Value::Cql(v) => v,
            // Generators never make a null, so none is ever nested.
            Value::Null => CqlValue::Empty,
        }
    }
}

impl Gen {
    /// Element `j` of a collection, tuple or UDT from item generator `item`.
    fn item(&self, item: &Gen, index: u64, h: u64, j: usize) -> CqlValue {
        item.make(index, mix(h, item.column_id, j as u64), None)
            .into_cql()
    }

    fn length(&self, index: u64, h: u64) -> usize {
        self.size.as_ref().map_or(DEFAULT_LENGTH, |d| {
            d.sample(index, splitmix64(h ^ super::SALT_SIZE)).max(0) as usize
        })
    }

    /// The value of a kind this module generates; `base` is the number a generator
    /// without `values` starts from (the key at the top level, the hash when nested).
    pub(super) fn typed(&self, index: u64, h: u64, base: i64) -> CqlValue {
        let num = || self.values.as_ref().map_or(base, |d| d.sample(index, h));
        let sampled = |default: u64| {
            self.values
                .as_ref()
                .map_or(default, |d| d.sample(index, h) as u64)
        };
        match self.kind {
            GenKind::Boolean => CqlValue::Boolean(num() & 1 == 1),
            GenKind::Tinyint => CqlValue::TinyInt(num() as i8),
            GenKind::Smallint => CqlValue::SmallInt(num() as i16),
            GenKind::Varint => {
                CqlValue::Varint(CqlVarint::from_signed_bytes_be(varint_bytes(num())))
            }
            GenKind::Float => CqlValue::Float(match &self.values {
                Some(d) => (d.sample(index, h) as f64 + unit(splitmix64(h))) as f32,
                None => unit(h) as f32,
            }),
            GenKind::Decimal => {
                let cents = num()
                    .wrapping_mul(100)
                    .wrapping_add((splitmix64(h) % 100) as i64);
                CqlValue::Decimal(CqlDecimal::from_signed_be_bytes_and_exponent(
                    varint_bytes(cents),
                    DECIMAL_SCALE,
                ))
            }
            GenKind::Date => {
                let days = sampled(h % DATE_DAYS) as i64;
                CqlValue::Date(CqlDate((1u32 << 31).wrapping_add(days as i32 as u32)))
            }
            GenKind::Time => CqlValue::Time(CqlTime((sampled(h) % DAY_NS) as i64)),
            GenKind::Duration => CqlValue::Duration(CqlDuration {
                months: (h % 25) as i32,
                days: ((h >> 8) % 31) as i32,
                nanoseconds: ((h >> 16) % DAY_NS) as i64,
            }),
            GenKind::Timeuuid => {
                let ms = sampled(TIMEUUID_MS_MIN + h % TIMEUUID_MS_SPAN);
                CqlValue::Timeuuid(CqlTimeuuid::from(timeuuid(ms, h)))
            }
            GenKind::Inet => CqlValue::Inet(IpAddr::V4(Ipv4Addr::from(sampled(h) as u32))),
            GenKind::List | GenKind::Vector => {
                let n = self.length(index, h);
                let items: Vec<CqlValue> = (0..n)
                    .map(|j| self.item(&self.items[0], index, h, j))
                    .collect();
                if self.kind == GenKind::List {
                    CqlValue::List(items)
                } else {
                    CqlValue::Vector(items)
                }
            }
            GenKind::Set => {
                let mut items: Vec<CqlValue> = Vec::new();
                for j in 0..self.length(index, h) {
                    let v = self.item(&self.items[0], index, h, j);
                    if !items.iter().any(|x| cql_eq(x, &v)) {
                        items.push(v);
                    }
                }
                CqlValue::Set(items)
            }
            GenKind::Map => {
                let mut pairs: Vec<(CqlValue, CqlValue)> = Vec::new();
                for j in 0..self.length(index, h) {
                    let k = self.item(&self.items[0], index, h, j);
                    if !pairs.iter().any(|(x, _)| cql_eq(x, &k)) {
                        pairs.push((k, self.item(&self.items[1], index, h, j)));
                    }
                }
                CqlValue::Map(pairs)
            }
            GenKind::Tuple => CqlValue::Tuple(
                self.items
                    .iter()
                    .enumerate()
                    .map(|(j, it)| Some(self.item(it, index, h, j)))
                    .collect(),
            ),
            GenKind::Udt => {
                let (keyspace, name) = self.udt.clone().unwrap_or_default();
                CqlValue::UserDefinedType {
                    keyspace,
                    name,
                    fields: self
                        .items
                        .iter()
                        .enumerate()
                        .map(|(j, it)| (it.name.clone(), Some(self.item(it, index, h, j))))
                        .collect(),
                }
            }
            other => unreachable!("{other:?} is generated in gen.rs"),
        }
    }
}

fn is_empty_collection(v: &CqlValue) -> bool {
    match v {
        CqlValue::List(x) | CqlValue::Set(x) => x.is_empty(),
        CqlValue::Map(x) => x.is_empty(),
        _ => false,
    }
}

/// Whether `want` (generated) equals `got` (read back), as module docs describe.
pub fn cql_eq(want: &CqlValue, got: &CqlValue) -> bool {
    let all = |a: &[CqlValue], b: &[CqlValue]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| cql_eq(x, y))
    };
    match (want, got) {
        (CqlValue::Text(a) | CqlValue::Ascii(a), CqlValue::Text(b) | CqlValue::Ascii(b)) => a == b,
        (CqlValue::Float(a), CqlValue::Float(b)) => a.to_bits() == b.to_bits(),
        (CqlValue::Double(a), CqlValue::Double(b)) => a.to_bits() == b.to_bits(),
        (CqlValue::List(a), CqlValue::List(b)) | (CqlValue::Vector(a), CqlValue::Vector(b)) => {
            all(a, b)
        }
        (CqlValue::Set(a), CqlValue::Set(b)) => {
            a.len() == b.len() && a.iter().all(|x| b.iter().any(|y| cql_eq(x, y)))
        }
        (CqlValue::Map(a), CqlValue::Map(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.iter().any(|(bk, bv)| cql_eq(k, bk) && cql_eq(v, bv)))
        }
        (CqlValue::Tuple(a), CqlValue::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| opt_eq(x.as_ref(), y.as_ref()))
        }
        (
            CqlValue::UserDefinedType { fields: a, .. },
            CqlValue::UserDefinedType { fields: b, .. },
        ) => a.iter().all(|(name, x)| {
            let y = b
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, y)| y.as_ref());
            opt_eq(x.as_ref(), y)
        }),
        (a, b) => a == b,
    }
}

/// [`cql_eq`] where either side may be null (a null equals an empty collection).
pub fn opt_eq(want: Option<&CqlValue>, got: Option<&CqlValue>) -> bool {
    match (want, got) {
        (None, None) => true,
        (Some(w), Some(g)) => cql_eq(w, g),
        (Some(v), None) | (None, Some(v)) => is_empty_collection(v),
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::sync::Arc;

    use scylla::deserialize::value::DeserializeValue;
    use scylla::deserialize::FrameSlice;
    use scylla::frame::response::result::{
        CollectionType, ColumnType, NativeType, UserDefinedType,
    };
    use scylla::serialize::value::SerializeValue;
    use scylla::serialize::writers::CellWriter;

    use super::*;
    use crate::spec::Generator;

    fn native(t: NativeType) -> ColumnType<'static> {
        ColumnType::Native(t)
    }

    fn collection(frozen: bool, typ: CollectionType<'static>) -> ColumnType<'static> {
        ColumnType::Collection { frozen, typ }
    }

    /// Serialize `v` for `typ` with the driver, then read it back as the driver reads a
    /// result cell.
    fn round_trip(v: &Value, typ: &ColumnType<'static>) -> Option<CqlValue> {
        let mut buf = Vec::new();
        v.serialize(typ, CellWriter::new(&mut buf))
            .unwrap_or_else(|e| panic!("serialize {v:?} as {typ:?}: {e}"));
        let len = i32::from_be_bytes(buf[..4].try_into().unwrap());
        assert_eq!(len as usize, buf.len() - 4, "{v:?}");
        let slice = FrameSlice::new_borrowed(&buf[4..]);
        Some(CqlValue::deserialize(typ, Some(slice)).unwrap_or_else(|e| panic!("{typ:?}: {e}")))
    }

    fn udt_type() -> ColumnType<'static> {
        ColumnType::UserDefinedType {
            frozen: true,
            definition: Arc::new(UserDefinedType {
                name: Cow::Borrowed("address"),
                keyspace: Cow::Borrowed("ks"),
                field_types: vec![
                    (Cow::Borrowed("street"), native(NativeType::Text)),
                    (Cow::Borrowed("zip"), native(NativeType::Int)),
                    (
                        Cow::Borrowed("tags"),
                        collection(
                            true,
                            CollectionType::Set(Box::new(native(NativeType::Ascii))),
                        ),
                    ),
                ],
            }),
        }
    }

    /// Every type: its generator (JSON as the Python side sends it), its CQL type, and
    /// what each generated value must look like.
    #[allow(clippy::type_complexity)]
    fn cases() -> Vec<(&'static str, ColumnType<'static>, fn(&CqlValue) -> bool)> {
        vec![
            (r#"{"kind": "boolean"}"#, native(NativeType::Boolean), |v| {
                matches!(v, CqlValue::Boolean(_))
            }),
            (
                r#"{"kind": "tinyint", "values": {"kind": "uniform", "min": -100, "max": 100}}"#,
                native(NativeType::TinyInt),
                |v| matches!(v, CqlValue::TinyInt(x) if (-100..=100).contains(x)),
            ),
            (
                r#"{"kind": "smallint"}"#,
                native(NativeType::SmallInt),
                |v| matches!(v, CqlValue::SmallInt(_)),
            ),
            (
                r#"{"kind": "varint", "values": {"kind": "uniform", "min": -1000000000000, "max": 1000000000000}}"#,
                native(NativeType::Varint),
                |v| matches!(v, CqlValue::Varint(x) if x.as_signed_bytes_be_slice().len() <= 6),
            ),
            (
                r#"{"kind": "float"}"#,
                native(NativeType::Float),
                |v| matches!(v, CqlValue::Float(x) if (0.0..1.0).contains(x)),
            ),
            (
                r#"{"kind": "decimal", "values": {"kind": "uniform", "min": 1, "max": 1000}}"#,
                native(NativeType::Decimal),
                |v| matches!(v, CqlValue::Decimal(d) if d.as_signed_be_bytes_slice_and_exponent().1 == 2),
            ),
            (
                r#"{"kind": "date"}"#,
                native(NativeType::Date),
                |v| matches!(v, CqlValue::Date(CqlDate(d)) if (1u32 << 31..(1u32 << 31) + 47_482).contains(d)),
            ),
            (
                r#"{"kind": "time"}"#,
                native(NativeType::Time),
                |v| matches!(v, CqlValue::Time(CqlTime(t)) if (0..DAY_NS as i64).contains(t)),
            ),
            (
                r#"{"kind": "duration"}"#,
                native(NativeType::Duration),
                |v| matches!(v, CqlValue::Duration(d) if d.months < 25 && d.days < 31),
            ),
            (
                r#"{"kind": "timeuuid"}"#,
                native(NativeType::Timeuuid),
                |v| matches!(v, CqlValue::Timeuuid(u) if Uuid::from_bytes(*u.as_bytes()).get_version_num() == 1),
            ),
            (r#"{"kind": "inet"}"#, native(NativeType::Inet), |v| {
                matches!(v, CqlValue::Inet(IpAddr::V4(_)))
            }),
            (
                r#"{"kind": "list", "size": {"kind": "uniform", "min": 1, "max": 5},
                    "items": [{"kind": "text", "column": "e", "size": {"kind": "fixed", "min": 3, "max": 3}}]}"#,
                collection(
                    false,
                    CollectionType::List(Box::new(native(NativeType::Text))),
                ),
                |v| matches!(v, CqlValue::List(x) if (1..=5).contains(&x.len())),
            ),
            (
                r#"{"kind": "set", "size": {"kind": "fixed", "min": 6, "max": 6},
                    "items": [{"kind": "boolean", "column": "e"}]}"#,
                collection(
                    true,
                    CollectionType::Set(Box::new(native(NativeType::Boolean))),
                ),
                |v| matches!(v, CqlValue::Set(x) if (1..=2).contains(&x.len())),
            ),
            (
                r#"{"kind": "map", "size": {"kind": "fixed", "min": 3, "max": 3},
                    "items": [{"kind": "timeuuid", "column": "k"}, {"kind": "double", "column": "v"}]}"#,
                collection(
                    false,
                    CollectionType::Map(
                        Box::new(native(NativeType::Timeuuid)),
                        Box::new(native(NativeType::Double)),
                    ),
                ),
                |v| matches!(v, CqlValue::Map(x) if x.len() == 3),
            ),
            (
                r#"{"kind": "list", "size": {"kind": "fixed", "min": 2, "max": 2},
                    "items": [{"kind": "list", "column": "e", "size": {"kind": "fixed", "min": 2, "max": 2},
                               "items": [{"kind": "bigint", "column": "e"}]}]}"#,
                collection(
                    false,
                    CollectionType::List(Box::new(collection(
                        true,
                        CollectionType::List(Box::new(native(NativeType::BigInt))),
                    ))),
                ),
                |v| matches!(v, CqlValue::List(x) if x.len() == 2 && x[0] != x[1]),
            ),
            (
                r#"{"kind": "tuple", "items": [{"kind": "int", "column": "0"}, {"kind": "uuid", "column": "1"},
                    {"kind": "blob", "column": "2", "size": {"kind": "fixed", "min": 4, "max": 4}}]}"#,
                ColumnType::Tuple(vec![
                    native(NativeType::Int),
                    native(NativeType::Uuid),
                    native(NativeType::Blob),
                ]),
                |v| matches!(v, CqlValue::Tuple(x) if x.len() == 3),
            ),
            (
                r#"{"kind": "udt", "udt": {"keyspace": "ks", "name": "address"}, "items": [
                    {"kind": "text", "column": "street"}, {"kind": "int", "column": "zip"},
                    {"kind": "set", "column": "tags", "size": {"kind": "fixed", "min": 2, "max": 2},
                     "items": [{"kind": "text", "column": "e"}]}]}"#,
                udt_type(),
                |v| matches!(v, CqlValue::UserDefinedType { fields, .. } if fields.len() == 3 && fields[0].0 == "street"),
            ),
            (
                r#"{"kind": "vector", "size": {"kind": "fixed", "min": 3, "max": 3},
                    "items": [{"kind": "float", "column": "e"}]}"#,
                ColumnType::Vector {
                    typ: Box::new(native(NativeType::Float)),
                    dimensions: 3,
                },
                |v| matches!(v, CqlValue::Vector(x) if x.len() == 3),
            ),
        ]
    }

    #[test]
    fn every_type_is_generated_serialized_and_read_back_equal() {
        for (json, typ, shape) in cases() {
            let spec: Generator = serde_json::from_str(json).unwrap();
            spec.check().unwrap();
            let g = Gen::new(&spec);
            let mut distinct = Vec::new();
            for key in 1..60 {
                let v = g.value(7, key, 0);
                assert_eq!(v, g.value(7, key, 99), "{json}: a pure function of the key");
                let Value::Cql(cql) = &v else {
                    panic!("{json}: {v:?}")
                };
                assert!(shape(cql), "{json}: key {key} gave {cql:?}");
                let back = round_trip(&v, &typ);
                assert!(
                    v.matches(back.as_ref()),
                    "{json}: {v:?} read back as {back:?}"
                );
                if !distinct.contains(cql) {
                    distinct.push(cql.clone());
                }
            }
            assert!(distinct.len() > 1, "{json}: one value for every key");
        }
    }

    #[test]
    fn a_value_read_back_wrong_does_not_match() {
        let spec: Generator = serde_json::from_str(
            r#"{"kind": "map", "size": {"kind": "fixed", "min": 3, "max": 3},
                "items": [{"kind": "int", "column": "k"}, {"kind": "text", "column": "v"}]}"#,
        )
        .unwrap();
        let g = Gen::new(&spec);
        let (a, b) = (g.value(1, 1, 0), g.value(1, 2, 0));
        assert!(a.matches(Some(&a.clone().into_cql())));
        assert!(!a.matches(Some(&b.into_cql())));
        assert!(!a.matches(None));
        // Cassandra stores an empty collection as no cell: null reads back.
        assert!(Value::Cql(CqlValue::List(vec![])).matches(None));
    }

    #[test]
    fn item_generators_follow_the_rules() {
        for (json, reason) in [
            (
                r#"{"kind": "list", "column": "l"}"#,
                "a list, set or vector takes one item generator",
            ),
            (
                r#"{"kind": "map", "column": "m", "items": [{"kind": "int"}]}"#,
                "a map takes two item generators",
            ),
            (
                r#"{"kind": "tuple", "column": "t"}"#,
                "a tuple or udt takes one item generator per component",
            ),
            (
                r#"{"kind": "int", "column": "i", "items": [{"kind": "int"}]}"#,
                "only list, set, map, tuple, udt and vector take item generators",
            ),
            (
                r#"{"kind": "udt", "column": "u", "items": [{"kind": "int"}]}"#,
                "a udt needs udt",
            ),
            (
                r#"{"kind": "vector", "column": "v", "items": [{"kind": "float"}],
                    "size": {"kind": "uniform", "min": 2, "max": 3}}"#,
                "a vector needs a fixed size >= 1",
            ),
            (
                r#"{"kind": "list", "column": "l", "items": [{"kind": "list", "column": "e"}]}"#,
                "column \"e\": a list, set or vector takes one item generator",
            ),
        ] {
            let spec: Generator = serde_json::from_str(json).unwrap();
            let err = spec.check().unwrap_err();
            assert!(err.contains(reason), "{json}: {err}");
        }
    }

    #[test]
    fn varints_are_minimal_twos_complement() {
        for (n, bytes) in [
            (0i64, vec![0u8]),
            (1, vec![1]),
            (127, vec![0x7F]),
            (128, vec![0x00, 0x80]),
            (-1, vec![0xFF]),
            (-128, vec![0x80]),
            (-129, vec![0xFF, 0x7F]),
            (i64::MIN, vec![0x80, 0, 0, 0, 0, 0, 0, 0]),
        ] {
            assert_eq!(varint_bytes(n), bytes, "{n}");
        }
    }

    #[test]
    fn a_timeuuid_is_version_1_at_its_time() {
        // 2020-01-01T00:00:00Z
        let u = timeuuid(1_577_836_800_000, 12345);
        assert_eq!(u.get_version_num(), 1);
        assert_eq!(u.get_variant(), uuid::Variant::RFC4122);
        let (secs, nanos) = u.get_timestamp().unwrap().to_unix();
        assert_eq!(secs, 1_577_836_800);
        assert_eq!(nanos, 12345 % 10_000 * 100);
    }

    #[test]
    fn sets_and_maps_compare_in_any_order_and_empty_is_null() {
        let set = CqlValue::Set(vec![CqlValue::Int(1), CqlValue::Int(2)]);
        let sorted = CqlValue::Set(vec![CqlValue::Int(2), CqlValue::Int(1)]);
        assert!(cql_eq(&set, &sorted));
        assert!(!cql_eq(&set, &CqlValue::Set(vec![CqlValue::Int(1)])));
        let list = CqlValue::List(vec![CqlValue::Int(1), CqlValue::Int(2)]);
        assert!(!cql_eq(
            &list,
            &CqlValue::List(vec![CqlValue::Int(2), CqlValue::Int(1)])
        ));
        let map = CqlValue::Map(vec![
            (CqlValue::Text("a".into()), CqlValue::Float(1.5)),
            (CqlValue::Text("b".into()), CqlValue::Float(2.5)),
        ]);
        let back = CqlValue::Map(vec![
            (CqlValue::Ascii("b".into()), CqlValue::Float(2.5)),
            (CqlValue::Ascii("a".into()), CqlValue::Float(1.5)),
        ]);
        assert!(cql_eq(&map, &back));
        assert!(opt_eq(Some(&CqlValue::List(vec![])), None));
        assert!(!opt_eq(Some(&list), None));
        assert!(!cql_eq(
            &CqlValue::Float(f32::NAN),
            &CqlValue::Float(-f32::NAN)
        ));
    }
}
