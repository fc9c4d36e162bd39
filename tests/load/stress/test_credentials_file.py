"""``-credentials-file FILE``: a Java properties file of credentials, read as
``java.util.Properties`` reads it (checked against the JDK's own reader), merged with the
command line as cassandra-stress merges them (the command line's values win), and never
shown."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import Connection
from casslab.errors import WorkloadSyntaxError
from casslab.host.jdk import find_java
from casslab.load.stress import parse_stress
from casslab.load.stress.credentials_file import parse_properties
from cli_entry import casslab, flat

CONNECTION = Connection(contact_points=["127.0.20.1:9042"])

# what Properties.load has to get right: both separators and a blank one, blanks around
# them, comments of both kinds, an escaped separator in a key, continuations, escapes,
# an empty value, a repeated key (the last wins)
TRICKY = """\
# a comment
! another
cql.username = alice
cql.password:S3cret pass(word)=1
transport.truststore.password   tr\\
    ust
key\\=with\\:seps = v
empty=
tab\\tkey=a\\tb
cql.username=bob
   indented.key=  kept  trailing  \u0020
last.line.continues=one\\
"""

_READER = """\
import java.io.FileReader;
import java.util.Properties;
import java.util.TreeMap;

public class Read {
    public static void main(String[] args) throws Exception {
        Properties properties = new Properties();
        try (FileReader reader = new FileReader(args[0])) { properties.load(reader); }
        for (var entry : new TreeMap<Object, Object>(properties).entrySet()) {
            System.out.println("[" + entry.getKey() + "]=[" + entry.getValue() + "]");
        }
    }
}
"""


def test_the_file_reads_as_the_jdks_properties_reader_reads_it(tmp_path: Path) -> None:
    try:
        java = find_java()
    except Exception as error:  # noqa: BLE001 - no JDK: nothing to compare with
        pytest.skip(f"no JDK: {error}")
    (tmp_path / "Read.java").write_text(_READER)
    (tmp_path / "c.properties").write_text(TRICKY)
    done = subprocess.run(
        [str(java), str(tmp_path / "Read.java"), str(tmp_path / "c.properties")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    ours = sorted(f"[{k}]=[{v}]" for k, v in parse_properties(TRICKY).items())
    assert ours == done.stdout.splitlines()
    assert parse_properties(TRICKY)["cql.username"] == "bob"
    assert parse_properties(TRICKY)["cql.password"] == "S3cret pass(word)=1"


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "stress.properties"
    path.write_text(text)
    return path


def test_the_user_and_password_come_from_the_file(tmp_path: Path) -> None:
    _file(tmp_path, "cql.username=alice\ncql.password=S3cret\njmx.username=x\njmx.password=y\n")
    command = parse_stress("write n=10 -credentials-file stress.properties")
    assert command.credentials_file == "stress.properties"
    connection = command.to_spec(CONNECTION, profile_dir=tmp_path).connection
    assert (connection.username, connection.password) == ("alice", "S3cret")


def test_the_command_line_wins_over_the_file(tmp_path: Path) -> None:
    path = _file(tmp_path, "cql.username=alice\ncql.password=fromfile\n")
    line = f"write n=10 -mode user=carol password=typed -credentials-file {path}"
    connection = parse_stress(line).to_spec(CONNECTION).connection
    assert (connection.username, connection.password) == ("carol", "typed")
    # a user on the command line, its password from the file
    line = f"write n=10 -mode user=carol -credentials-file {path}"
    connection = parse_stress(line).to_spec(CONNECTION).connection
    assert (connection.username, connection.password) == ("carol", "fromfile")
    # password-env= on the command line: the file's password is not used
    line = f"write n=10 -mode user=carol password-env=MY_PW -credentials-file {path}"
    connection = parse_stress(line).to_spec(CONNECTION).connection
    assert (connection.password, connection.password_env) == (None, "MY_PW")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("cql.username=alice\n", "no cql.password for user 'alice'"),
        ("cql.password=S3cret\n", "cql.password without cql.username"),
    ],
)
def test_a_half_login_is_refused_naming_the_file(tmp_path: Path, text: str, said: str) -> None:
    path = _file(tmp_path, text)
    with pytest.raises(WorkloadSyntaxError, match=said) as caught:
        parse_stress(f"write n=10 -credentials-file {path}").to_spec(CONNECTION)
    assert str(path) in str(caught.value)
    assert "S3cret" not in str(caught.value)


def test_a_user_without_a_password_or_a_file_is_refused_at_parse() -> None:
    with pytest.raises(WorkloadSyntaxError, match="-credentials-file FILE"):
        parse_stress("write n=10 -mode user=alice")


@pytest.mark.parametrize("args", ["", "a.properties b.properties"])
def test_the_option_takes_one_file(args: str) -> None:
    with pytest.raises(WorkloadSyntaxError, match="name one file"):
        parse_stress(f"write n=10 -credentials-file {args}".strip())


def test_the_dry_run_uses_the_file_and_shows_no_password(tmp_path: Path) -> None:
    path = _file(tmp_path, "cql.username=alice\ncql.password=Hunter2(Secret\n")
    done = casslab(
        tmp_path / "home",
        *("stress", "write", "n=10", "-node", "127.0.20.1", "-credentials-file", str(path)),
        "--dry-run",
        "--json",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Hunter2" not in done.stdout + done.stderr
    assert json.loads(done.stdout)["connection"]["username"] == "alice"
    missing = casslab(
        tmp_path / "home",
        *("stress", "write", "n=10", "-node", "127.0.20.1"),
        *("-credentials-file", str(tmp_path / "absent.properties"), "--dry-run"),
    )
    assert missing.returncode == 1
    assert "-credentials-file" in flat(missing.stderr)
    assert "absent.properties" in flat(missing.stderr)
    assert "Traceback" not in missing.stderr
