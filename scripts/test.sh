#!/usr/bin/env bash
# `make test` after its set-up: lint, the engine's tests, the tests that need no
# Cassandra node (2 workers), the real-node tests that only need Cassandra to answer
# (2 workers, a test module on one worker), then the tests that measure rates and
# latencies, alone on the machine. Each phase is timed; every phase runs even after one
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
    printf '%s\t%s\t%s\n' "$name" "$(awk "BEGIN { print $end - $start }")" "$rc" >> "$REPORTS/phases.tsv"
    return "$rc"
}

run() {
    local rc=0
    phase "$@" || rc=$?
    [ "$status" -ne 0 ] || status=$rc
}

PYTEST=("$BIN/pytest" -q -p no:cacheprovider)
run "lint" make --no-print-directory lint
# --release: the dependencies the engine's release build compiled serve the tests too
if [ -f Cargo.toml ]; then run "engine tests (cargo)" cargo test --release --quiet; fi
# --dist worksteal: an idle worker takes tests the other has queued (4,000 tests of 0 to 9 s;
# `load` hands them out in fixed shares and left one worker finishing alone): 127-139 s
# against 142-145 s with `load` (2026-11-29, idle machine)
run "no node (2 workers)" "${PYTEST[@]}" -m "not integration and not measuring" -n 2 \
    --dist worksteal --junitxml="$REPORTS/no-node.xml"
# --no-loadscope-reorder: the modules in tests/module_order.py's order (longest first);
# pytest-xdist 3.8 (requirements.lock) otherwise sorts them by their number of tests
# CASSLAB_TEST_CPU_DIR: each module's CPU-seconds, its nodes and engines included
# (tests/cpu_accounting.py), into module_times.tsv beside its seconds
run "real nodes (2 workers)" env CASSLAB_TEST_CPU_DIR="$REPORTS" \
    "${PYTEST[@]}" -m "integration and not measuring" -n 2 \
    --dist loadfile --no-loadscope-reorder --junitxml="$REPORTS/real-nodes.xml"
run "measuring (alone)" "${PYTEST[@]}" -m "measuring" --junitxml="$REPORTS/measuring.xml"

"$BIN/python" scripts/test_report.py "$REPORTS"
if ! "$BIN/python" scripts/leftovers.py; then
    [ "$status" -ne 0 ] || status=1
fi
exit "$status"
