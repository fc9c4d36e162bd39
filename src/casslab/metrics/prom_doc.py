"""The Prometheus section of the generated ``docs/metrics.md`` (see
:mod:`casslab.metrics.catalogue_doc`): how to serve, the naming rule, the labels, and the
exposed name of every metric."""

from __future__ import annotations

from casslab.metrics.catalogue import CATALOGUE
from casslab.metrics.prom_names import (
    ENGINE_INTERVAL_METRICS,
    ENGINE_LABELS,
    ERRORS_BY_KIND,
    exposed_name,
    interval_exposed_name,
    label_names,
)

_INTRO = [
    "## Prometheus and Grafana",
    "",
    "`casslab metrics serve` samples every metric above for the cluster's nodes (the same",
    "samplers as `record` and `watch`) and serves the newest value of each in the",
    "Prometheus exposition format until Ctrl-C. `casslab run FILE --serve-metrics` serves",
    "the run's cluster metrics (read by the runner's own samplers, during the measured",
    "phases), the load engine's interval statistics of the trial being measured, and the",
    'engine process\'s own CPU and memory (`engine.*`, under `node="engine"`).',
    "",
    "```",
    "casslab metrics serve [--port 9464] [--address 127.0.0.1] [--name N] [--interval 1s]",
    "casslab run FILE --serve-metrics [--metrics-port 9464]",
    "curl -s http://127.0.0.1:9464/metrics",
    "```",
    "",
    "It listens on loopback only, unless `--allow-remote` (`--metrics-allow-remote` for",
    "`run`) lets it bind an address other machines reach. A value is shown until it is a",
    "minute old (a sampler stopped, a measured phase ended) or its source fails (node down:",
    "that node's values of that source go at once).",
    "",
    "Names: `casslab_` and the catalogue name with dots made underscores, its unit where",
    "the catalogue puts it (`host.disk_read_bytes_per_s` is",
    "`casslab_host_disk_read_bytes_per_s`, in bytes per second; `_ms` milliseconds, `_pct`",
    "percent). Counters are Prometheus counters and end in `_total` (use `rate()` or",
    "`increase()`; a node's restart resets them); gauges and rates are gauges.",
    "",
    "Labels: `cluster`, `node` (the node's address) and `dc` on every node metric; `host`",
    "(the machine's host name, or an SSH host's inventory address) on the host metrics, whose",
    "figures every node of one machine shares; `keyspace` and `table` on the per-table",
    "metrics. The engine's interval metrics carry "
    + ", ".join(f"`{label}`" for label in ENGINE_LABELS)
    + " (`total`",
    "or an operation of the workload).",
    "",
    "A scrape configuration for Prometheus and a Grafana dashboard (op rate, p99, CPU",
    "user / system / iowait, disk MB/s, memory, compactions pending, per node, and the",
    "load engine's CPU and memory, with a",
    "datasource, `node` and `dc` variables): `dashboards/grafana/casslab.json`.",
    "",
    "```yaml",
    "scrape_configs:",
    "  - job_name: casslab",
    "    scrape_interval: 5s",
    "    static_configs: [{targets: ['127.0.0.1:9464']}]",
    "```",
    "",
]


def prometheus_section() -> list[str]:
    """The lines of the section."""
    lines = [
        *_INTRO,
        "### Load engine intervals (`casslab run --serve-metrics`)",
        "",
        "| Prometheus name | type | meaning |",
        "|---|---|---|",
    ]
    for spec in (*ENGINE_INTERVAL_METRICS, ERRORS_BY_KIND):
        kind = "counter" if spec.name != interval_exposed_name(spec) else "gauge"
        lines.append(f"| `{interval_exposed_name(spec)}` | {kind} | {spec.help} |")
    lines += ["", "`casslab_engine_errors_by_kind_total` adds the label `kind`."]
    lines += [
        "",
        "### Every sampled metric",
        "",
        "| Prometheus name | casslab name | labels |",
        "|---|---|---|",
    ]
    for m in CATALOGUE:
        labels = ", ".join(label_names(m))
        lines.append(f"| `{exposed_name(m)}` | {m.name} | {labels} |")
    lines.append("")
    return lines
