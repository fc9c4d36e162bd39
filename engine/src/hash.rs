//! Counter-based hashing: every random choice is a pure function of its inputs.
//!
//! No shared RNG state exists anywhere in the engine; a value is `mix(seed, stream, index)`.
//! Two seeds feed it: the spec's `seed` for the operation sequence (which operation, key
//! and row each cycle takes) and its `data_seed` for the data (the values written and
//! validated, the rows of each partition); see `workload.rs`.

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
#[inline]
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Hash of (seed, stream, index); different streams give independent sequences.
#[inline]
pub fn mix(seed: u64, stream: u64, index: u64) -> u64 {
    splitmix64(splitmix64(seed ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93)) ^ index)
}

/// A uniform double in [0, 1) from the top 53 bits of a hash.
#[inline]
pub fn unit(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform integer in [0, n) (Lemire's multiply-shift; bias below 2^-64 * n).
#[inline]
pub fn below(h: u64, n: u64) -> u64 {
    ((h as u128 * n as u128) >> 64) as u64
}

/// FNV-1a 64 over a string, for turning column names into stream ids.
pub fn fnv1a_str(s: &str) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// YCSB's `Utils.fnvhash64`: FNV-1a over the 8 little-endian octets of `val`, then `abs`.
pub fn ycsb_fnvhash64(mut val: i64) -> i64 {
    let mut h: i64 = 0xCBF2_9CE4_8422_2325_u64 as i64;
    for _ in 0..8 {
        let octet = val & 0xff;
        val >>= 8;
        h ^= octet;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    h.wrapping_abs()
}

/// A stream of pseudo-random words from one seed (for filling blobs and strings).
pub struct Stream(u64);

impl Stream {
    pub fn new(seed: u64) -> Stream {
        Stream(seed)
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        splitmix64(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_is_deterministic_and_stream_sensitive() {
        assert_eq!(mix(1, 2, 3), mix(1, 2, 3));
        assert_ne!(mix(1, 2, 3), mix(1, 3, 3));
        assert_ne!(mix(1, 2, 3), mix(2, 2, 3));
        assert_ne!(mix(1, 2, 3), mix(1, 2, 4));
    }

    #[test]
    fn unit_and_below_stay_in_range() {
        for i in 0..10_000u64 {
            let h = mix(7, 1, i);
            let u = unit(h);
            assert!((0.0..1.0).contains(&u));
            assert!(below(h, 10) < 10);
        }
        assert_eq!(below(u64::MAX, 5), 4);
        assert_eq!(below(0, 5), 0);
    }

    #[test]
    fn ycsb_hash_matches_reference_values() {
        // Known value from YCSB: Utils.fnvhash64(0) for the FNV-1a 64 loop over 8 zero bytes.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for _ in 0..8 {
            h = h.wrapping_mul(1_099_511_628_211);
        }
        assert_eq!(ycsb_fnvhash64(0), (h as i64).wrapping_abs());
        assert!(ycsb_fnvhash64(12345) >= 0);
        assert_ne!(ycsb_fnvhash64(1), ycsb_fnvhash64(2));
    }
}
