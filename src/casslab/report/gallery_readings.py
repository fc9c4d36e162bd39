"""What to take from each study's committed run, written by hand after reading its page
(:class:`casslab.report.gallery.Reading`): a data table, one entry per study of the gallery
that has run on this machine. A page shows its study's reading only when it is of the run the
page shows; after a new run, read its page and write the reading again."""

from __future__ import annotations

from casslab.report.gallery import Reading

READINGS: dict[str, Reading] = {
    "workload-mix-container-scaled": Reading(
        run_id="20261129T023059Z",
        text=(
            "Compaction follows the write share, as seed 000 found: the 90/10 mix ran 2.4 "
            "compactions a trial against the 50/50 mix's 1.0 (+140%, 95% CI +10% to +977%), "
            "and 70/30 compacted twice the bytes of 50/50 (+98%); the two other compaction "
            "claims point the same way but are not significant with 5 iterations (their rows "
            "give the iterations that would tell). The latency claims do not hold at this "
            "scale: 50/50's mean latency is 10% above 90/10's (CI +2% to +19%), not the "
            "near-double the study drew, and 90/10 and 70/30 differ by 28% where the study "
            "saw them alike. Every mix kept this machine's CPU near 66%, where the study's ran "
            "at 90-100%: its latency gaps may belong to its saturated host, which the "
            "full-size design tests."
        ),
    ),
    "quick-compaction": Reading(
        run_id="20261129T025702Z",
        text=(
            "Seed 001's headline, STCS 2358 op/s against LCS 2350, is a 0.3% difference, below any "
            "run-to-run noise; here STCS's lead is real and large, +21.9% (95% CI "
            "+9.3% to +35.2%, 3 iterations), so the study's other reading, that every "
            "strategy did alike for this write-heavy mix, is contradicted. LCS did far more "
            "compaction work, as the study found (63 against 23 compactions a trial, +79% "
            "bytes compacted) at the same CPU (inside ±10%). On Cassandra 5.0 that extra "
            "compaction costs a CPU-bound node a fifth of its write throughput; the study's "
            "equal throughputs point to a bound other than compaction in its set-up."
        ),
    ),
    "container-overhead-scaled": Reading(
        run_id="20261129T031446Z",
        text=(
            "None of seed 002's container-overhead claims is significant here. With 2 "
            "iterations per cell, the CPU of nodes in their own network namespace and cgroup "
            "is within -3% to +8% of plain processes with intervals that include no change, "
            "and latency and disk throughput show no consistent sign (8 of 24 trials were not "
            "steady; each row gives the iterations that would tell). On one machine a "
            "namespace and a cgroup cost no CPU this run can detect; the study's 13-point "
            "CPU gap is of LXC on its own servers with the load on a third host, which the "
            "full-size design (`experiments/container-overhead.yaml`) reproduces."
        ),
    ),
    "seed003-vm-sizes-scaled": Reading(
        run_id="20261129T060425Z",
        text=(
            "The VM-size ordering holds where the sizes differ in CPU: 3 t2.medium nodes "
            "(2 vCPUs, here 0.4 of a core each) sustained 63% to 95% more YCSB A than "
            "t2.small (+30% to +252% at 95%) and 60% to 76% more YCSB B, Holm-adjusted "
            "p = 0.014 and 0.004. t2.small and t2.micro did alike here (-4% to +5%, not "
            "significant), where the study measured 2.3 to 2.5 times: both have one vCPU and "
            "get the same CPU quota here, so the study's gap is of what casslab's sizes do "
            "not model, EC2's t2 CPU credits (a t2.micro's baseline is half a t2.small's) "
            "and their memory. A fourth t2.medium node added 2% to 9% (not significant): "
            "four nodes at 0.4 of a core and the load engine fill this machine's two cores, "
            "which the full-size design on real hosts does not share. YCSB C's rows vary "
            "too much between its 2 iterations to tell (their rows give the iterations)."
        ),
    ),
    "topologies-scaled": Reading(
        run_id="20261129T065229Z",
        text=(
            "The WAN shows in every request but not in seed 004's p99s at this scale. Over "
            "the emulated links (11 to 22 ms one way), a QUORUM request from Utah waits for "
            "one other site: the median was 27.9 to 28.5 ms in all 6 far-apart trials against "
            "2.0 to 3.5 ms in all 12 trials on one host or one site. The p99s, which the "
            "study's claims are about, are another matter: 6 to 364 ms on one host or one "
            "site, where a 3- or 4-node cluster and the load engine keep this machine's two "
            "cores 45% to 82% busy, so their stalls, not the network, set the tail; with 2 "
            "iterations none of the p99 claims is significant either way (far apart's reads "
            "even had the lowest p99, 49 and 74 ms). The study's 52.7 ms p99 across sites "
            "against 1.5 to 3.9 ms on one site needs nodes that do not share two cores: the "
            "full-size design (`experiments/topologies.yaml`)."
        ),
    ),
    "clock-lww-scaled": Reading(
        run_id="20261129T034112Z",
        text=(
            "Skewed clocks lose updates exactly as Cassandra's last-write-wins rule says, and "
            "only then: with server-side timestamps, a node 500 ms behind lost every "
            "acknowledged update (50 of 50 in each trial) and a node on time none (Fisher's "
            "exact test on the pooled counts, p = 4e-59, Holm-adjusted); with client-side "
            "timestamps the same 500 ms skew lost none. At 50 ms behind, every update "
            "written 10 ms after the first was lost and none written 100 ms after: an update "
            "is lost when the skew exceeds the gap between the two writes. Seed 004 measured "
            "skew but not its effect; its own offsets (milliseconds over NTP) would lose "
            "updates written within milliseconds of each other."
        ),
    ),
}
"""Study name -> the reading of its committed run."""
