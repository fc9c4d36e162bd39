# casslab: `make demo` and `make test` each do their own set-up on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CASSANDRA_VERSION ?= 5.0.9
ENGINE := target/release/casslab-engine
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: setup venv lock engine wheel cassandra browser isolation wan ssh lint test test-fast demo demo-cluster bench clean docs studies

setup: venv engine cassandra

venv: $(BIN)/.installed

# Dependencies at the versions CI tested (requirements.lock), then casslab itself; pip check
# fails when pyproject.toml needs a package the lock lacks (then: make lock).
$(BIN)/.installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	$(BIN)/pip check
	touch $@

# Re-resolve requirements.lock from pyproject.toml in a scratch virtualenv (after a
# dependency change); review the diff before committing it.
LOCK_VENV := .lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/pip install --quiet -e '.[dev]'
	{ sed -n '/^#/p' requirements.lock; $(LOCK_VENV)/bin/pip freeze --exclude-editable; } > requirements.lock.new
	mv requirements.lock.new requirements.lock
	rm -rf $(LOCK_VENV)

engine:
	@if [ -f Cargo.toml ]; then cargo build --release --quiet -p casslab-engine; fi

# One wheel with the package, the shipped studies and the engine (scripts/build_wheel.py):
# pipx install dist/casslab-*.whl
wheel: venv engine
	$(BIN)/python scripts/build_wheel.py

cassandra: venv
	$(BIN)/casslab fetch --version $(CASSANDRA_VERSION)

# Debian's Chromium for the report's browser test (root installs it; otherwise it is skipped).
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	  || echo "chromium not installed: the browser test will be skipped"; }

# iproute2 (ip) and util-linux (nsenter) for isolated nodes (root installs them; otherwise
# their tests are skipped).
isolation:
	@command -v ip >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 util-linux >/dev/null; } \
	  || echo "ip/nsenter not installed: the isolated-node tests will be skipped"; }

# Debian's vde2 (wirefilter, dpipe, vde_plug) for the emulated WAN links between
# datacenters (root installs it; otherwise the topology tests are skipped).
wan:
	@command -v wirefilter >/dev/null 2>&1 && command -v dpipe >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq vde2 >/dev/null; } \
	  || echo "vde2 not installed: the topology tests will be skipped"; }

# Debian's openssh-server for the ssh backend's test hosts (sshd in network namespaces;
# root installs it; otherwise the ssh tests are skipped). policy-rc.d keeps the package
# from starting a system sshd on port 22 of this machine.
ssh:
	@test -x /usr/sbin/sshd || { [ "$$(id -u)" = 0 ] && \
	  { created=; [ -e /usr/sbin/policy-rc.d ] || { printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && created=1; }; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server >/dev/null; status=$$?; \
	    [ -z "$$created" ] || rm -f /usr/sbin/policy-rc.d; exit $$status; } \
	  || echo "openssh-server not installed: the ssh tests will be skipped"; }

lint: venv
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/mypy
	# the bench and scripts run casslab's API: a change of it must not break them unseen
	$(BIN)/mypy --ignore-missing-imports --follow-imports=silent bench/*.py scripts/*.py
	$(BIN)/python scripts/module_sizes.py
	@if [ -f Cargo.toml ]; then cargo fmt --all -- --check && cargo clippy --quiet --all-targets -- -D warnings; fi

# Three pytest phases (scripts/test.sh): the tests that need no Cassandra node and the
# real-node tests that only need Cassandra to answer, each on two workers, with lint and
# the engine tests' build beside the real-node one at the lowest CPU priority; the
# engine's tests; then the tests that measure rates or latencies (marked `measuring`)
# alone on the machine. Prints each phase's time and the 30 slowest tests, and fails if
# anything was left running (scripts/leftovers.py).
test: setup browser isolation wan ssh
	BIN=$(BIN) bash scripts/test.sh

# The inner loop: the tests that need no Cassandra node, on two workers (under 3 minutes);
# with the byte-code cache on, as scripts/test.sh says why.
test-fast: venv
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -m "not integration and not measuring" -n 2 --dist worksteal -q

demo: setup
	$(BIN)/casslab run experiments/quick-compaction.yaml

# Every scaled study in sequence (about 2 h 30 min on 2 cores), then the gallery: docs/studies/.
# A few at a time: make studies STUDY="clock-lww-scaled topologies-scaled" (the others' pages stay).
studies: setup
	$(BIN)/python scripts/studies.py --run $(foreach s,$(STUDY),--study $(s))

demo-cluster: setup
	bash scripts/demo.sh

# The peer for the engine benchmark: latte, built from crates.io into .bench-tools/.
LATTE := $(CURDIR)/.bench-tools/bin/latte

$(LATTE):
	cargo install --quiet --locked latte-cli --root $(CURDIR)/.bench-tools

bench: setup ssh $(LATTE)
	$(BIN)/python bench/cluster_startup.py
	$(BIN)/python bench/metrics_overhead.py
	$(BIN)/python bench/recording_overhead.py
	$(BIN)/python bench/first_trial.py --runs 3
	$(BIN)/python bench/lab_overhead.py --run experiments/quick-compaction.yaml --results bench-results
	$(BIN)/python bench/engine_vs_latte.py --ops 300000 --concurrency 128 --latte $(LATTE)
	$(BIN)/python bench/profile_vs_latte.py --ops 300000 --concurrency 128 --latte $(LATTE)
	$(BIN)/python bench/isolation.py
	$(BIN)/python bench/operations.py
	$(BIN)/python bench/ssh_deploy.py --start

docs: venv
	@if [ -f src/casslab/metrics/catalogue.py ]; then $(BIN)/python -m casslab.metrics > docs/metrics.md; fi

clean:
	rm -rf $(VENV) $(LOCK_VENV) target build .mypy_cache .ruff_cache .pytest_cache
