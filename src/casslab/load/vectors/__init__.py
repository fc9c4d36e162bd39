"""Vector datasets for ANN workloads: TEXMEX ``.fvecs``/``.ivecs`` files, the
ann-benchmarks HDF5 layout, synthetic clustered sets with exact ground truth, and recall.

| module | job |
|---|---|
| `similarity` | Cassandra's similarity functions and exact (brute-force) nearest neighbours |
| `texmex` | reading (memory-mapped) and writing ``.fvecs`` / ``.ivecs`` |
| `hdf5` | the ann-benchmarks HDF5 layout (``train``, ``test``, ``neighbors``, ``distances``) |
| `synthetic` | seeded clustered datasets of any size and dimension, with their ground truth |
| `recall` | recall@k of found neighbours against the ground truth (pure) |
| `files` | the dataset as the engine reads it: three files, checked, cached |
"""
