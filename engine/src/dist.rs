//! Integer distributions over an inclusive range, as pure functions of a hash.
//!
//! `sample(seq_index, h)`: `seq_index` drives SEQ (the cycle or key number), `h` is a
//! 64-bit hash from [`crate::hash::mix`] that every other kind turns into its value.

use crate::hash::{below, splitmix64, unit, ycsb_fnvhash64};
use crate::spec::{DistKind, Distribution};

/// YCSB's item count and zeta for the scrambled zipfian at theta 0.99.
const YCSB_ITEM_COUNT: u64 = 10_000_000_000;
const YCSB_ZETAN_099: f64 = 26.469_028_201_783_02;

/// Precomputed constants of YCSB's `ZipfianGenerator` over `items` items.
#[derive(Debug, Clone)]
pub struct Zipf {
    items: u64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    half_pow_theta: f64,
}

impl Zipf {
    pub fn new(items: u64, theta: f64) -> Zipf {
        let zetan = if items == YCSB_ITEM_COUNT && theta == 0.99 {
            YCSB_ZETAN_099
        } else {
            zeta(items, theta)
        };
        Zipf::with_zeta(items, theta, zetan)
    }

    fn with_zeta(items: u64, theta: f64, zetan: f64) -> Zipf {
        let zeta2 = zeta(2, theta);
        let n = items.max(2) as f64;
        let eta = (1.0 - (2.0 / n).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        Zipf {
            items,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta,
            half_pow_theta: 0.5f64.powf(theta),
        }
    }

    /// A value in `0..items`, small values most likely (YCSB `nextLong`).
    pub fn next(&self, u: f64) -> u64 {
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + self.half_pow_theta {
            return 1.min(self.items - 1);
        }
        let v = (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        v.min(self.items - 1)
    }
}

/// The generalised harmonic number sum_{i=1..n} i^-theta: exact for the first 100k terms,
/// Euler-Maclaurin for the tail (relative error far below what a load test can notice).
pub fn zeta(n: u64, theta: f64) -> f64 {
    const EXACT: u64 = 100_000;
    let m = n.min(EXACT);
    let mut sum = 0.0;
    for i in 1..=m {
        sum += 1.0 / (i as f64).powf(theta);
    }
    if n > m {
        let (a, b) = (m as f64, n as f64);
        let integral = if (theta - 1.0).abs() < 1e-12 {
            b.ln() - a.ln()
        } else {
            (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
        };
        sum += integral + (b.powf(-theta) - a.powf(-theta)) / 2.0;
    }
    sum
}

/// A distribution ready to sample: the spec plus precomputed constants.
#[derive(Debug, Clone)]
pub struct Dist {
    kind: DistKind,
    min: i64,
    max: i64,
    span: u64, // max - min + 1 (0 means the full 2^64 range, never used in practice)
    mean: f64,
    stdev: f64,
    hot_items: u64,
    hot_ops_fraction: f64,
    zipf: Option<Zipf>,
}

impl Dist {
    /// Compile a checked distribution: `Distribution::check` (run on every spec by
    /// `WorkloadSpec::from_json`) guarantees `min <= max`, a zipf theta in (0, 1) and
    /// hotspot fractions in 0..=1, which the constants below rely on.
    pub fn new(d: &Distribution) -> Dist {
        assert!(d.check().is_ok(), "compile a checked distribution: {d:?}");
        let span = (d.max as i128 - d.min as i128 + 1) as u64;
        let width = (d.max - d.min) as f64;
        let (mean, stdev) = match d.kind {
            // cassandra-stress GAUSSIAN(min..max): mean in the middle, 3 stdevs to each bound.
            DistKind::Gaussian => (
                d.mean.unwrap_or((d.min as f64 + d.max as f64) / 2.0),
                d.stdev.unwrap_or(width / 6.0),
            ),
            // EXP(min..max): offset from min; by default 99.9% of the mass lies inside.
            DistKind::Exp => (d.mean.unwrap_or((width / 1000f64.ln()).max(1e-9)), 0.0),
            _ => (0.0, 0.0),
        };
        let zipf = match d.kind {
            DistKind::Zipfian => Some(Zipf::new(YCSB_ITEM_COUNT, d.zipf_theta)),
            DistKind::Latest => Some(Zipf::new(span.max(1), d.zipf_theta)),
            _ => None,
        };
        Dist {
            kind: d.kind,
            min: d.min,
            max: d.max,
            span,
            mean,
            stdev,
            hot_items: ((span as f64) * d.hot_fraction) as u64,
            hot_ops_fraction: d.hot_ops_fraction,
            zipf,
        }
    }

    fn clamp(&self, v: f64) -> i64 {
        if v.is_nan() {
            return self.min;
        }
        let r = v.round();
        if r <= self.min as f64 {
            self.min
        } else if r >= self.max as f64 {
            self.max
        } else {
            r as i64
        }
    }

    #[inline]
    fn offset(&self, k: u64) -> i64 {
        (self.min as i128 + k as i128) as i64
    }

    /// One value in `min..=max`.
    #[inline]
    pub fn sample(&self, seq_index: u64, h: u64) -> i64 {
        match self.kind {
            DistKind::Fixed => self.min,
            DistKind::Seq => self.offset(seq_index % self.span),
            DistKind::Uniform => self.offset(below(h, self.span)),
            DistKind::Gaussian => {
                // Box-Muller with two independent uniforms from one hash.
                let u1 = unit(h).max(f64::MIN_POSITIVE);
                let u2 = unit(splitmix64(h));
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                self.clamp(self.mean + z * self.stdev)
            }
            DistKind::Exp => {
                let u = unit(h);
                let x = -self.mean * (1.0 - u).ln();
                let k = if x >= (self.span - 1) as f64 {
                    self.span - 1
                } else {
                    x as u64
                };
                self.offset(k)
            }
            DistKind::Zipfian => {
                // YCSB ScrambledZipfianGenerator: zipf over 1e10 items, scattered by FNV.
                let z = self.zipf.as_ref().map_or(0, |z| z.next(unit(h)));
                let scrambled = ycsb_fnvhash64(z as i64) as u64;
                self.offset(scrambled % self.span)
            }
            DistKind::Latest => {
                // YCSB SkewedLatestGenerator with the newest key = max: max - zipf(0..n).
                let z = self.zipf.as_ref().map_or(0, |z| z.next(unit(h)));
                (self.max as i128 - z as i128).max(self.min as i128) as i64
            }
            DistKind::Hotspot => {
                let cold = self.span - self.hot_items;
                let h2 = splitmix64(h);
                if (unit(h) < self.hot_ops_fraction && self.hot_items > 0) || cold == 0 {
                    self.offset(below(h2, self.hot_items.max(1)))
                } else {
                    self.offset(self.hot_items + below(h2, cold))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix;

    fn dist(kind: DistKind, min: i64, max: i64) -> Distribution {
        Distribution::range(kind, min, max)
    }

    const ALL: [DistKind; 8] = [
        DistKind::Fixed,
        DistKind::Seq,
        DistKind::Uniform,
        DistKind::Gaussian,
        DistKind::Exp,
        DistKind::Zipfian,
        DistKind::Latest,
        DistKind::Hotspot,
    ];

    #[test]
    fn every_kind_stays_in_range_and_is_deterministic() {
        for kind in ALL {
            for (min, max) in [(1, 1), (1, 10), (5, 1_000_000), (-50, 50)] {
                let spec = dist(kind, min, max);
                let d = Dist::new(&spec);
                let again = Dist::new(&spec);
                for i in 0..20_000u64 {
                    let h = mix(42, 9, i);
                    let v = d.sample(i, h);
                    assert!((min..=max).contains(&v), "{kind:?} {min}..{max} gave {v}");
                    assert_eq!(v, again.sample(i, h), "{kind:?} not deterministic");
                }
            }
        }
    }

    #[test]
    fn seq_wraps_and_fixed_is_min() {
        let d = Dist::new(&dist(DistKind::Seq, 3, 5));
        let got: Vec<i64> = (0..7).map(|i| d.sample(i, 0)).collect();
        assert_eq!(got, vec![3, 4, 5, 3, 4, 5, 3]);
        let f = Dist::new(&dist(DistKind::Fixed, 7, 7));
        assert_eq!(f.sample(99, 12345), 7);
    }

    #[test]
    fn uniform_covers_the_range_evenly() {
        let d = Dist::new(&dist(DistKind::Uniform, 1, 10));
        let mut counts = [0u32; 10];
        for i in 0..100_000u64 {
            counts[(d.sample(i, mix(1, 2, i)) - 1) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn gaussian_centres_on_the_middle() {
        let d = Dist::new(&dist(DistKind::Gaussian, 0, 600));
        let n = 50_000u64;
        let xs: Vec<f64> = (0..n).map(|i| d.sample(i, mix(3, 4, i)) as f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - 300.0).abs() < 3.0, "mean {mean}");
        assert!((var.sqrt() - 100.0).abs() < 3.0, "stdev {}", var.sqrt());
    }

    #[test]
    fn exp_and_latest_and_zipf_are_skewed() {
        let n = 50_000u64;
        let exp = Dist::new(&dist(DistKind::Exp, 1, 1000));
        let low = (0..n)
            .filter(|&i| exp.sample(i, mix(5, 6, i)) <= 100)
            .count();
        assert!(low as f64 / n as f64 > 0.45, "exp low share {low}");
        let latest = Dist::new(&dist(DistKind::Latest, 1, 1000));
        let newest = (0..n)
            .filter(|&i| latest.sample(i, mix(5, 7, i)) >= 990)
            .count();
        assert!(
            newest as f64 / n as f64 > 0.3,
            "latest newest share {newest}"
        );
        let zipf = Dist::new(&dist(DistKind::Zipfian, 1, 1000));
        let mut counts = vec![0u32; 1001];
        for i in 0..n {
            counts[zipf.sample(i, mix(5, 8, i)) as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let top10: u32 = counts[..10].iter().sum();
        // YCSB scrambles a zipf over 1e10 items: the top ten keys get ~11-13% (uniform: 1%).
        assert!(top10 as f64 / n as f64 > 0.10, "zipf top-10 share {top10}");
    }

    #[test]
    fn hotspot_sends_most_ops_to_the_hot_set() {
        let d = Dist::new(&dist(DistKind::Hotspot, 1, 1000));
        let n = 50_000u64;
        let hot = (0..n).filter(|&i| d.sample(i, mix(8, 8, i)) <= 200).count();
        let share = hot as f64 / n as f64;
        assert!((0.78..0.82).contains(&share), "hot share {share}");
    }

    #[test]
    fn zeta_approximation_is_close_to_exact() {
        let exact: f64 = (1..=300_000u64).map(|i| 1.0 / (i as f64).powf(0.99)).sum();
        let approx = zeta(300_000, 0.99);
        assert!((exact - approx).abs() / exact < 1e-9, "{exact} vs {approx}");
        let ycsb = zeta(YCSB_ITEM_COUNT, 0.99);
        assert!(
            (ycsb - YCSB_ZETAN_099).abs() / YCSB_ZETAN_099 < 1e-6,
            "{ycsb}"
        );
    }

    #[test]
    #[should_panic(expected = "compile a checked distribution")]
    fn an_unchecked_distribution_is_a_bug() {
        Dist::new(&dist(DistKind::Uniform, 5, 1));
    }
}
