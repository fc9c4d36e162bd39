"""`casslab up`'s option for each ClusterSpec field, and a spec's validation error in
those words (``--jmx-port-base``, not ``jmx_port_base``)."""

from __future__ import annotations

UP_OPTIONS = {
    "name": "--name",
    "nodes": "--nodes",
    "version": "--version",
    "heap": "--heap",
    "base_address": "--base-address",
    "jmx_port_base": "--jmx-port-base",
    "isolation": "--isolation",
    "node_size": "--node-size",
    "cpus": "--cpus",
    "memory": "--memory",
    "cpu_scale": "--cpu-scale",
    "cpuset": "--cpuset",
    "subnet": "--subnet",
    "topology": "--topology",
    "links": "--link",
    "clock": "--clock",
    "injectable_clock": "--injectable-clock",
    "hosts": "--hosts",
    "gc": "--gc",
    "preset": "--preset",
    "jvm_options": "--jvm-option",
    "node_versions": "--node-version",
}


def spec_message(error: ValueError) -> str:
    from pydantic import ValidationError

    from casslab.validation import validation_message

    if isinstance(error, ValidationError):
        return validation_message(error, names=UP_OPTIONS)
    return str(error)
