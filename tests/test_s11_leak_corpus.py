"""s11 outside-in leak audit: every secret and person of the generated corpus (tests/test_s11_leak_gen.py,
written from the providers' formats before reading the rule packs) is gone from the redacted text and
from the places sessions carry it (Claude Code tool_result / text block / numbered Read / Bash input,
Codex function_call_output with JSON in a string); and the shapes the new rules met in this machine's
real text stay as they are."""

from __future__ import annotations

import base64
import json
import random

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, kept
from tests.test_s11_leak_gen import carriers, decoded_views, leaks, samples

KEY = b"s11-leak-corpus-test-key-0123456789"

# Left as they are, on purpose or for later (see the s11 report):
#  - private IPv4 addresses (10/8, 192.168/16) are not personal; the pack keeps them;
#  - a relative "Users/<name>/" without its leading slash or drive.
GAPS: dict[str, set[str] | None] = {
    "ipv4-private": None,
    "known_hosts": None,
    "path-var-users": None,
}
SEEDS = (11, 1)
CASES = [(seed, fam, text, values) for seed in SEEDS for fam, text, values in samples(seed)]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"], ["Zelda Quixote"])


@pytest.mark.parametrize("seed,family,text,values", CASES, ids=[f"{s}-{f}" for s, f, _, _ in CASES])
def test_generated_secret_is_gone_everywhere(red, seed: int, family: str, text: str, values: list[str]) -> None:  # noqa: ANN001
    gaps = GAPS.get(family, set())
    if gaps is None:
        pytest.skip(f"{family}: known gap")
    got: dict[str, list[str]] = {}
    if "text" not in gaps:
        got["text"] = leaks(values, red.redact_text(text, RedactionReport()), 12)
    for name, line in carriers(text).items():
        if name in gaps:
            continue
        out = red.redact_jsonl_line(line, RedactionReport())
        json.loads(out)
        got[name] = leaks(values, decoded_views(out), 12)
    assert not {k: v for k, v in got.items() if v}


def test_the_corpus_covers_the_families() -> None:
    fams = {f for f, _, _ in samples(11)}
    assert len(fams) == len(samples(11)) >= 250
    for f in ("pem-tail-cut", "pem-diff-hunk", "phone-fr-spaces", "email-idn", "anthropic-wrapped-64",
              "jwt-wrapped-76", "wp-config", "rust-code", "http-dump-json", "ssn-json", "pgp-private"):
        assert f in fams


def _pem_with(marker: str) -> tuple[str, str]:
    r = random.Random(7)
    body = base64.b64encode(r.randbytes(900)).decode()
    body = body[:258] + marker + body[258 + len(marker):]  # early in a 64-column line: 32+ base64 after it
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(lines) + "\n=Ab12\n-----END PGP PRIVATE KEY BLOCK-----\n", lines[4]


@pytest.mark.parametrize("marker", ["/9j/", "R0lGOD", "UklGR", "iVBORw0KGgo"])
def test_an_image_marker_inside_a_key_body_does_not_shield_the_key(red, marker: str) -> None:  # noqa: ANN001
    pem, line = _pem_with(marker)
    assert marker in line
    out = red.redact_text(pem, RedactionReport())
    assert line not in out and marker not in out
    rec = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": pem}]}}).encode()
    assert line.encode() not in red.redact_jsonl_line(rec, RedactionReport())


def test_base64_images_stay_as_they_are(red) -> None:  # noqa: ANN001
    r = random.Random(3)
    jpg = base64.b64encode(b"\xff\xd8\xff\xe0" + r.randbytes(700)).decode()
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + r.randbytes(700)).decode()
    assert jpg.startswith("/9j/")
    line = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": jpg}},
        {"type": "text", "text": f"data:image/png;base64,{png}"}]}}).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line
    wrapped = "$ base64 logo.png\n" + "\n".join(png[i:i + 76] for i in range(0, len(png), 76)) + "\n"
    assert kept(red, wrapped) == {}
    wrapped64 = "$ openssl base64 -in logo.png\n" + "\n".join(png[i:i + 64] for i in range(0, len(png), 64)) + "\n"
    assert kept(red, wrapped64) == {}


# Shapes the new and changed rules met in /usr/share/doc, man pages and site-packages (values made up
# here), and ordinary code and tool output around them.
REAL_TEXT = [
    "console.log(copy);\n// Prints: <Buffer 01 02 03 04 05>\n",
    '<span class="hljs-comment">// Prints: &#x3C;Buffer 01 02 03 04 05></span>',
    'self.dkim_attributes["NextSigningKeyLength"] = "RSA_2048_BIT"',
    "app.config['SECRET_KEY'] = os.environ['SECRET_KEY']\n",
    'let token: &str = "Authorization";\nconst tokenType: string = "bearer";\n',
    "requests.get(url, auth=(user, password))\nconn = DriverManager.getConnection(url, user, pw);\n",
    "define( 'DB_NAME', 'wordpress_prod' );\ndefine( 'DB_PASSWORD', 'password_here' );\n",
    "$ od -An -tx1 file.bin\n 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16\n",
    "$ sha256sum server.key\n3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab836ed  server.key\n",
    "$ md5sum config/master.key\n0123456789abcdef0123456789abcdef  config/master.key\n",
    "commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad\nMerge: 3b18e51 2dba79e\n    bump to 1.06.12.34.56\n",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFAKEexample0123 ci@runner-7\n",
    "uuid 0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f and version 2.10.0.4\n",
    "Telefon: 2024-01-15\nphone.py:012 3456\n",
]


@pytest.mark.parametrize("text", REAL_TEXT)
def test_real_text_shapes_are_kept(red, text: str) -> None:  # noqa: ANN001
    kept(red, text)


def test_url_credentials_before_an_idn_host_are_no_email(red) -> None:  # noqa: ANN001
    text = 'url = httpx.URL("HTTPS://jo%40email.com:a%20secret@müller.de:1234/pa%20th?search=ab#anchorlink")'
    report = RedactionReport()
    out = red.redact_text(text, report)
    assert "email-unicode" not in report.by_rule() and "müller.de:1234" in out


@pytest.mark.parametrize("doc", [
    {"className": "btn btn-primary 0612345678", "lessons": "x"},
    {"props": {"classNames": ["row", "col-06 12 34"], "lessons": 3}},
])
def test_class_names_are_not_secret_names(red, doc: dict) -> None:  # noqa: ANN001
    line = json.dumps(doc).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line
