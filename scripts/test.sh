#!/usr/bin/env bash
# `make test` after its set-up: the tests that need no Cassandra node (2 workers), the
# real-node tests that only need Cassandra to answer (2 workers, a test module on one
# worker) with lint and the engine tests' build beside them at the lowest CPU priority,
# the engine's tests, then the tests that measure rates and latencies, alone on the
# machine. Each phase is timed; every phase runs even after one
# failed (one run tells every failure; the exit status is the first failure's). Then the phase
# times, the 30 slowest tests and the real-node modules that used the most CPU are printed, and
# scripts/leftovers.py fails the run if any JVM, engine, sshd, namespace, link or cgroup
# was left behind (also after a failure).
set -u
# Python's byte-code cache on: the suite starts `casslab` as a subprocess hundreds of times,
# and with PYTHONDONTWRITEBYTECODE set (as some images do) each start compiles casslab's
# sources again (0.4 of a `casslab plan`'s 1.0 s here; tests/cli took 65.6 s, 49.0 s with it).
unset PYTHONDONTWRITEBYTECODE
BIN=${BIN:-.venv/bin}
REPORTS=${REPORTS:-.test-reports}
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
status=0

phase() {
    local name=$1 start end rc
    shift
    echo "=== $name"
    start=$EPOCHREALTIME
    "$@"
    rc=$?
    end=$EPOCHREALTIME
    local beside=""
    [ -z "${BESIDE:-}" ] || beside=$'\tbeside'  # a fourth column: not on the way to the end
    printf '%s\t%s\t%s%s\n' "$name" "$(awk "BEGIN { print $end - $start }")" "$rc" "$beside" \
        >> "$REPORTS/phases.tsv"
    return "$rc"
}

run() {
    local rc=0
    phase "$@" || rc=$?
    [ "$status" -ne 0 ] || status=$rc
}

PYTEST=("$BIN/pytest" -q -p no:cacheprovider)

# Lint and the build of the engine's tests run beside the real-node phase, at the lowest
# CPU priority (nice 19): they take only the CPU it leaves idle (13% of the two cores:
# nodes starting, failure detectors, waits), and their 22 s (51 s and 74 CPU-s from a
# fresh clone: mypy's cache and clippy's build) leave the total. Not beside the no-node
# phase: short, CPU-bound and full of short processes, it took 129, 144 and 156 s with
# lint beside it, 124-137 s in the four runs before. Their output is printed once they
# are done, and the measuring phase waits for them; the engine's tests, built by then, run
# just before it (0.2 s).
# --release: the dependencies the engine's release build compiled serve the tests too (its
# tests are the unit tests of src/main.rs: their build leaves target/release/casslab-engine,
# which the real-node tests run, as it is)
beside() {
    local rc=0 built=0
    BESIDE=1 phase "lint" nice -n 19 make --no-print-directory lint || rc=$?
    if [ -f Cargo.toml ]; then
        BESIDE=1 phase "engine tests' build (cargo)" \
            nice -n 19 cargo test --release --no-run --quiet || built=$?
        [ "$rc" -ne 0 ] || rc=$built
    fi
    return "$rc"
}
# --dist worksteal: an idle worker takes tests the other has queued (4,000 tests of 0 to 9 s;
# `load` hands them out in fixed shares and left one worker finishing alone): 127-139 s
# against 142-145 s with `load` (2026-11-29, idle machine)
run "no node (2 workers)" "${PYTEST[@]}" -m "not integration and not measuring" -n 2 \
    --dist worksteal --junitxml="$REPORTS/no-node.xml"
# a process group of its own (set -m), stopped with the script (Ctrl-C, a kill) while it
# still runs: only then is its group ours (once it has ended, its number can be reused)
set -m
beside > "$REPORTS/beside.log" 2>&1 &
beside_pid=$!
set +m
trap 'if jobs -rp | grep -qx "$beside_pid"; then kill -- -"$beside_pid" 2>/dev/null; fi' EXIT
# --no-loadscope-reorder: the modules in tests/module_order.py's order (longest first);
# pytest-xdist 3.8 (requirements.lock) otherwise sorts them by their number of tests
# CASSLAB_TEST_CPU_DIR: each module's CPU-seconds, its nodes and engines included
# (tests/cpu_accounting.py), into module_times.tsv beside its seconds
run "real nodes (2 workers)" env CASSLAB_TEST_CPU_DIR="$REPORTS" \
    "${PYTEST[@]}" -m "integration and not measuring" -n 2 \
    --dist loadfile --no-loadscope-reorder --junitxml="$REPORTS/real-nodes.xml"
# their output, once they are done; the time waited for them (if any) is in the total
wait_beside() {
    local rc=0
    wait "$beside_pid" || rc=$?
    cat "$REPORTS/beside.log"
    return "$rc"
}
run "lint and build (the rest)" wait_beside
if [ -f Cargo.toml ]; then run "engine tests (cargo)" cargo test --release --quiet; fi
run "measuring (alone)" "${PYTEST[@]}" -m "measuring" --junitxml="$REPORTS/measuring.xml"

"$BIN/python" scripts/test_report.py "$REPORTS"
if ! "$BIN/python" scripts/leftovers.py; then
    [ "$status" -ne 0 ] || status=1
fi
exit "$status"
