"""A cluster's own JVM options: -D system properties and -XX: flags go on every node's
java command after casslab's own (the JVM takes an option's last value); the heap, the
collector and anything that is not an option are refused, naming the field to use."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.cli.up_options import spec_message
from casslab.cluster import cluster_spec, jvm
from casslab.cluster.jvm_options import problem
from casslab.cluster.model import Node


@pytest.mark.parametrize(
    "option",
    [
        "-Dcassandra.ring_delay_ms=5000",
        "-Dcassandra.superuser_setup_delay_ms=0",
        "-Dcassandra.replace_address_first_boot=127.0.0.4",
        "-Dflag",
        "-XX:+AlwaysPreTouch",
        "-XX:-UseBiasedLocking",
        "-XX:MaxGCPauseMillis=300",
    ],
)
def test_properties_and_xx_flags_are_taken(option: str) -> None:
    assert problem(option) is None


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ("-Xmx4G", "--heap"),
        ("-Xms1G", "--heap"),
        ("-XX:MaxHeapSize=4g", "--heap"),
        ("-XX:+UseZGC", "--gc"),
        ("-cp", "-Dname=value"),
        ("-javaagent:/tmp/a.jar", "-Dname=value"),
        ("cassandra.ring_delay_ms=5000", "-Dname=value"),
        ("-Dname=a\nb", "-Dname=value"),
        ("-XX:+Flag=a b", "-XX: flags"),
    ],
)
def test_the_rest_is_refused_naming_what_to_use(option: str, said: str) -> None:
    reason = problem(option)
    assert reason is not None
    assert repr(option) in reason
    assert said in reason


def test_the_spec_refuses_in_up_s_words() -> None:
    with pytest.raises(ValueError, match="-Xmx8G") as caught:
        cluster_spec(jvm_options=("-Xmx8G",))
    message = spec_message(caught.value)
    for said in ("--jvm-option", "'-Xmx8G'", "--heap"):
        assert said in message


def test_the_options_come_last_before_the_class_path() -> None:
    node = Node(
        number=1,
        address="127.0.0.1",
        native_port=9042,
        storage_port=7000,
        jmx_port=7191,
        directory=Path("/tmp/n1"),
    )
    options = ("-Dcassandra.ring_delay_ms=5000", "-XX:+AlwaysPreTouch")
    command = jvm.daemon_command(
        Path("/usr/bin/java"),
        17,
        "lib/*",
        node,
        512,
        ["-XX:ActiveProcessorCount=1"],
        options=options,
    )
    at = command.index("-cp")
    assert tuple(command[at - 2 : at]) == options
    assert command[at - 3] == "-XX:ActiveProcessorCount=1"
    assert cluster_spec().jvm_options == ()
