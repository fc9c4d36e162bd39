//! Vector datasets for ANN workloads, memory-mapped: the base vectors a `base_vector`
//! bind writes (base row `key - key_offset`), the query vectors a `query_vector` bind
//! searches with (query `cycle mod queries`), and the ground truth (`.ivecs`: each
//! query's nearest base rows, nearest first) recall@k is counted against.
//!
//! The files are TEXMEX `.fvecs` / `.ivecs`: per vector a little-endian int32 dimension,
//! then that many 4-byte values. Python (`casslab.load.vectors`) writes and checks them
//! before a run; the engine checks their shapes again when it opens them.

use std::fs::File;

mod inserted;
pub use inserted::Inserted;

use memmap2::Mmap;
use scylla::value::CqlValue;

use crate::gen::Value;
use crate::spec::VectorFiles;

/// One memory-mapped `.fvecs` / `.ivecs` file.
pub struct VecsFile {
    map: Mmap,
    pub rows: usize,
    pub dim: usize,
}

impl std::fmt::Debug for VecsFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VecsFile({} x {})", self.rows, self.dim)
    }
}

impl VecsFile {
    pub fn open(path: &str) -> Result<VecsFile, String> {
        let file = File::open(path).map_err(|e| format!("vector file {path:?}: {e}"))?;
        // SAFETY: the file is only read; casslab writes it once (atomically) before a run.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| format!("vector file {path:?}: {e}"))?;
        VecsFile::of(map, path)
    }

    fn of(map: Mmap, path: &str) -> Result<VecsFile, String> {
        let word = |at: usize| i32::from_le_bytes(map[at..at + 4].try_into().expect("4 bytes"));
        if map.len() < 4 {
            return Err(format!("vector file {path:?}: too short for one vector"));
        }
        let dim = word(0);
        let stride = 4 * (dim as usize + 1);
        if dim < 1 || !map.len().is_multiple_of(stride) {
            return Err(format!(
                "vector file {path:?}: dimension {dim}, but its {} bytes are not a whole \
                 number of vectors of {stride} bytes",
                map.len()
            ));
        }
        let rows = map.len() / stride;
        if let Some(r) = (0..rows).find(|r| word(r * stride) != dim) {
            return Err(format!(
                "vector file {path:?}: vector {r} has dimension {}, vector 0 has {dim}",
                word(r * stride)
            ));
        }
        Ok(VecsFile {
            map,
            rows,
            dim: dim as usize,
        })
    }

    fn bytes(&self, row: usize) -> impl Iterator<Item = [u8; 4]> + '_ {
        let start = row * 4 * (self.dim + 1) + 4;
        self.map[start..start + 4 * self.dim]
            .chunks_exact(4)
            .map(|c| c.try_into().expect("4 bytes"))
    }

    pub fn floats(&self, row: usize) -> Vec<f32> {
        self.bytes(row).map(f32::from_le_bytes).collect()
    }

    pub fn ints(&self, row: usize) -> Vec<i32> {
        self.bytes(row).map(i32::from_le_bytes).collect()
    }
}

/// The dataset of a run (spec `vectors`).
#[derive(Debug)]
pub struct Vectors {
    pub base: VecsFile,
    pub queries: VecsFile,
    pub truth: VecsFile,
    pub key_offset: i64,
    /// Search while loading (spec `vectors.preloaded_rows`): the rows the table holds,
    /// recall counted against them. `None`: against the full ground truth.
    pub inserted: Option<Inserted>,
}

impl Vectors {
    /// Open the three files and check they fit each other and the spec's dimension.
    pub fn open(files: &VectorFiles) -> Result<Vectors, String> {
        let base = VecsFile::open(&files.base)?;
        let queries = VecsFile::open(&files.queries)?;
        let truth = VecsFile::open(&files.ground_truth)?;
        for (what, f) in [("base", &base), ("query", &queries)] {
            if f.dim != files.dimension as usize {
                return Err(format!(
                    "the {what} vectors ({:?}) have dimension {}, the column vector<float, {}>",
                    if what == "base" {
                        &files.base
                    } else {
                        &files.queries
                    },
                    f.dim,
                    files.dimension
                ));
            }
        }
        if truth.rows != queries.rows {
            return Err(format!(
                "the ground truth ({:?}) has {} rows, the queries {}",
                files.ground_truth, truth.rows, queries.rows
            ));
        }
        let inserted = match files.preloaded_rows {
            Some(n) if n as usize > base.rows => {
                return Err(format!(
                    "vectors.preloaded_rows {n} is more than the {} base vectors of {:?}; \
                     the table holds at most all of them",
                    base.rows, files.base
                ))
            }
            Some(n) => Some(Inserted::new(base.rows, n as usize)),
            None => None,
        };
        Ok(Vectors {
            base,
            queries,
            truth,
            key_offset: files.key_offset,
            inserted,
        })
    }

    /// The base vector written for `key` (row `key - key_offset`, wrapping past the end).
    pub fn base_value(&self, key: i64) -> Value {
        let row = (key - self.key_offset).rem_euclid(self.base.rows as i64) as usize;
        float_vector(self.base.floats(row))
    }

    /// The query row searched at `cycle`.
    pub fn query_row(&self, cycle: u64) -> usize {
        (cycle % self.queries.rows as u64) as usize
    }

    pub fn query_value(&self, cycle: u64) -> Value {
        float_vector(self.queries.floats(self.query_row(cycle)))
    }

    /// How many of query `row`'s `k` true nearest neighbours are among the `found` keys.
    pub fn hits(&self, row: usize, found: &[i64], k: usize) -> u32 {
        hits(&self.truth.ints(row), found, k, self.key_offset)
    }

    /// Query `row`'s recall@k as hits out of `k`: against the full ground truth, or
    /// (search while loading) against the rows inserted so far; `None`: the query cannot
    /// be judged (see `inserted`).
    #[inline]
    pub fn judge(&self, row: usize, found: &[i64], k: usize) -> Option<u32> {
        match &self.inserted {
            None => Some(self.hits(row, found, k)),
            Some(held) => {
                inserted::restricted_hits(&self.truth.ints(row), found, k, self.key_offset, held)
            }
        }
    }

    /// An acknowledged write of `key`'s base vector (search while loading only).
    #[inline]
    pub fn inserted_key(&self, key: i64) {
        if let Some(held) = &self.inserted {
            if let Ok(row) = usize::try_from(key - self.key_offset) {
                held.mark(row);
            }
        }
    }
}

fn float_vector(v: Vec<f32>) -> Value {
    Value::Cql(CqlValue::Vector(
        v.into_iter().map(CqlValue::Float).collect(),
    ))
}

/// `|found[..k] ∩ truth[..k]|`, `found` being keys (base row + `key_offset`); a key
/// found twice counts once.
pub fn hits(truth: &[i32], found: &[i64], k: usize, key_offset: i64) -> u32 {
    let want: std::collections::HashSet<i64> = truth
        .iter()
        .take(k)
        .map(|&r| r as i64 + key_offset)
        .collect();
    let got: std::collections::HashSet<i64> = found.iter().take(k).copied().collect();
    want.intersection(&got).count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(path: &std::path::Path, dim: i32, rows: &[&[i32]]) {
        let mut f = File::create(path).unwrap();
        for r in rows {
            f.write_all(&dim.to_le_bytes()).unwrap();
            for x in *r {
                f.write_all(&x.to_le_bytes()).unwrap();
            }
        }
    }

    #[test]
    fn hits_count_true_neighbours_among_the_found_keys() {
        // keys are base rows + 1
        assert_eq!(hits(&[4, 2, 9], &[5, 3, 10], 3, 1), 3);
        assert_eq!(hits(&[4, 2, 9], &[5, 5, 5], 3, 1), 1);
        assert_eq!(hits(&[4, 2, 9], &[1, 2, 3], 3, 1), 1);
        assert_eq!(
            hits(&[4, 2, 9, 7], &[8, 5], 2, 1),
            1,
            "only the first k of each"
        );
        assert_eq!(hits(&[4, 2, 9], &[], 3, 1), 0);
    }

    #[test]
    fn files_are_read_as_texmex_and_checked() {
        let dir = std::env::temp_dir().join(format!("casslab-vecs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = |n: &str| dir.join(n).to_string_lossy().into_owned();
        let one = 1.0f32.to_bits() as i32;
        let half = 0.5f32.to_bits() as i32;
        write(dir.join("b").as_path(), 2, &[&[one, half], &[half, one]]);
        write(dir.join("q").as_path(), 2, &[&[one, one]]);
        write(dir.join("g").as_path(), 2, &[&[1, 0]]);
        let files = VectorFiles {
            base: p("b"),
            queries: p("q"),
            ground_truth: p("g"),
            dimension: 2,
            key_offset: 1,
            preloaded_rows: None,
        };
        let v = Vectors::open(&files).unwrap();
        assert_eq!((v.base.rows, v.queries.rows, v.truth.dim), (2, 1, 2));
        assert_eq!(v.base.floats(1), vec![0.5, 1.0]);
        assert_eq!(v.base_value(2), float_vector(vec![0.5, 1.0]));
        assert_eq!(v.base_value(3), float_vector(vec![1.0, 0.5]), "wraps");
        assert_eq!(v.query_row(5), 0);
        assert_eq!(v.hits(0, &[2, 1], 2), 2);
        assert_eq!(
            v.judge(0, &[2, 1], 2),
            Some(2),
            "no inserted rows kept: full truth"
        );
        v.inserted_key(2); // a no-op without search while loading
        let loading = Vectors::open(&VectorFiles {
            preloaded_rows: Some(1),
            ..files.clone()
        })
        .unwrap();
        // row 0 held before: min(k, 1) = 1 neighbour, row 0 (key 1)
        assert_eq!(loading.judge(0, &[1], 2), Some(2));
        assert_eq!(loading.judge(0, &[2], 2), Some(0));
        loading.inserted_key(2);
        loading.inserted_key(0); // below the offset: no row
        assert_eq!(loading.inserted.as_ref().unwrap().count(), 2);
        assert_eq!(loading.judge(0, &[2, 1], 2), Some(2));
        let e = Vectors::open(&VectorFiles {
            preloaded_rows: Some(3),
            ..files.clone()
        })
        .unwrap_err();
        assert!(
            e.contains("preloaded_rows 3 is more than the 2 base vectors"),
            "{e}"
        );
        let wrong = VectorFiles {
            dimension: 3,
            ..files.clone()
        };
        let e = Vectors::open(&wrong).unwrap_err();
        assert!(
            e.contains("have dimension 2, the column vector<float, 3>"),
            "{e}"
        );
        std::fs::write(dir.join("g"), [1u8, 0, 0, 0, 0]).unwrap();
        let e = Vectors::open(&files).unwrap_err();
        assert!(e.contains("not a whole number of vectors"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
