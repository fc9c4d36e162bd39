"""The one masking function: every password typed, in any message quoting it (pure)."""

from __future__ import annotations

import pytest

from casslab.masking import MASK, mask_secrets, secrets_in, value_end


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (
            "'user=alice password=Hunter2(Secret' opens a parenthesis",
            f"'user=alice password={MASK}' opens a parenthesis",
        ),
        ("unknown option 'password=S3cret PW'; x", f"unknown option 'password={MASK}'; x"),
        ('"password=it\'s here" bad', f'"password={MASK}" bad'),
        ("a truststore-password=x y", f"a truststore-password={MASK} y"),
        ("-p cassandra.password=abc", f"-p cassandra.password={MASK}"),
        ("KEYSTORE-PASSWORD=abc", f"KEYSTORE-PASSWORD={MASK}"),
        ("form: user=U password=P|password-env=VAR port=N", None),
        ("password-env=VAR is not set", None),
    ],
)
def test_password_values_are_masked(text: str, masked: str | None) -> None:
    assert mask_secrets(text) == (text if masked is None else masked)


def test_known_secrets_are_masked_wherever_quoted() -> None:
    known = secrets_in(["-mode", "user=alice password=S3cret PW(x", "-p", "cassandra.password=a'b"])
    assert known == {"S3cret PW(x", "a'b"}
    text = "it was 'S3cret PW(x' and \"a'b\" and S3cret PW(x"
    assert "S3cret" not in mask_secrets(text, known)
    assert "a'b" not in mask_secrets(text, known)


def test_a_password_runs_to_the_next_option_of_its_word() -> None:
    word = "truststore=t.jks truststore-password=a b ssl-protocol=TLS"
    start = word.index("password=") + len("password=")
    assert word[start : value_end(word, start)] == "a b"
