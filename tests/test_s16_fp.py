"""s16 false-positive hunt: the high-entropy but harmless text of coding sessions (lockfiles,
checksums, git and gpg output, source maps, minified JS/CSS, notebooks with images, hex dumps, ids
in logs, cluster and cloud output, cache paths, base64 images; tests/fx_s16_fp.py) comes out of
the redactor byte for byte, as text and in every harness's tool-result carrier, and once through
the real CLI (sync to a file:// store, read back with `age` and `zstd`). Beside the shapes that
were redacted before (numbers in `od -x`/`xxd` dumps and keyed ids taken for cards, a minified
constant taken for an env secret), the real leaks of the same shapes still go."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, gone, kept, luhn_complete
from tests.fx_s16_fp import Gen, carriers, image_block, samples

KEY = b"s16-fp-test-key-0123456789abcdefgh"
SEEDS = (16, 2, 6)
CASES = [(seed, fam, text, pii) for seed in SEEDS for fam, text, pii in samples(seed)]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"])


def _same_but(out: str, text: str, pii: list[str]) -> None:
    """out is text, byte for byte, except where the family's pii stood."""
    if not pii:
        assert out == text
        return
    pattern = "(.*?)".join(re.escape(seg) for seg in re.split("|".join(map(re.escape, pii)), text))
    assert re.fullmatch(pattern, out, re.S), "bytes outside the pii changed"


@pytest.mark.parametrize("seed,family,text,pii", CASES, ids=[f"{s}-{f}" for s, f, _, _ in CASES])
def test_harmless_text_stays(red, seed: int, family: str, text: str, pii: list[str]) -> None:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text(text, report)
    _same_but(out, text, pii)
    if not pii:
        assert report.by_rule() == {}


def _strings(o: object, acc: list[str]) -> list[str]:
    if isinstance(o, str):
        acc.append(o)
    elif isinstance(o, dict):
        for v in o.values():
            _strings(v, acc)
    elif isinstance(o, list):
        for v in o:
            _strings(v, acc)
    return acc


@pytest.mark.parametrize("seed", SEEDS)
def test_harmless_text_stays_in_every_carrier(red, seed: int) -> None:  # noqa: ANN001
    bad = []
    for family, text, pii in samples(seed):
        for name, line in carriers(text).items():
            report = RedactionReport()
            out = red.redact_jsonl_line(line, report)
            if pii:
                # the strings that held no pii are untouched
                before = [s for s in _strings(json.loads(line), []) if not any(p in s for p in pii)]
                after = _strings(json.loads(out), [])
                if any(s not in after for s in before):
                    bad.append((family, name))
            elif out != line:
                bad.append((family, name, report.by_rule()))
    assert not bad


def test_an_image_block_stays(red) -> None:  # noqa: ANN001
    line = image_block(Gen(16))
    report = RedactionReport()
    assert red.redact_jsonl_line(line, report) == line
    assert report.by_rule() == {}


# --- card rules: `od -x` / `xxd` / `hexdump` lines (four-digit groups of a binary's small numbers)
DUMPS = [
    # lines of `od -x /bin/ls` and `xxd /bin/ls` as this machine printed them (found by the s16 hunt)
    "0024600 4348 0002 0000 0000 4380 0002 0000 0000\n",
    "0014020 6270 0000 0000 0000 32c0 0002 0000 0000\n",
    "0017660 3580 0002 0000 0000 0008 0000 0000 0000\n",
    "0025140 4448 0002 0000 0000 0008 0000 0000 0000\n",
    "00000ed0: 2600 0000 0000 0000 a502 0000 1100 1a00  &...............\n",
]


@pytest.mark.parametrize("text", DUMPS)
def test_a_hex_dump_line_holds_no_card(red, text: str) -> None:  # noqa: ANN001
    assert kept(red, "$ od -x /bin/ls | head\n" + text) == {}


# --- card rules: numbers keyed as an id, a seed, a hash, a nonce, an inode
IDS = [
    '{"instance_id": "4398259791907483370", "project_number": 216243393684}',
    '+ resource "google_compute_instance" "vm" { + instance_id = "6011102734646869588" }',
    "  id: '374047966697251'\n  targetId: 2223205552667869\n",
    "np.random.seed(4887623286012900)\ntorch.manual_seed(5105011980364947)\nrandom seed: 3530771516204665\n",
    "inode=30569913944110 dev=2049\n  st_ino: 6011969350492583\nnonce: 4887623286012900\n",
    "hash=-6212109906958483045 seed: -4398259791907483370\n",
    "x-datadog-trace-id: 4398259791907483370\nx-datadog-parent-id: 6212109906958483045\n",
]


@pytest.mark.parametrize("text", IDS)
def test_a_keyed_id_is_no_card(red, text: str) -> None:  # noqa: ANN001
    assert kept(red, text) == {}


@pytest.mark.parametrize("text,card,rule", [
    ("card: 4111 1111 1111 1111\n0024600 4348 0002 0000 0000 4380 0002 0000 0000\n", "4111 1111 1111 1111", "credit-card-visa"),
    ('{"card_number": "5105105105105100", "id": "4398259791907483370"}', "5105105105105100", "credit-card-mastercard"),
    ('{"paid": "4111111111111111"}', "4111111111111111", "credit-card-visa"),
    ("pay with 4012888888881881 exp 04/29 cvc 123, order id: 81", "4012888888881881", "credit-card-visa"),
    ("card 4111 1111 1111 1111 0425 123", "4111 1111 1111 1111", "credit-card-visa"),
    ("stripe test cards: 6011000990139424, 371449635398431", "6011000990139424", "credit-card-discover"),
    ("stripe test cards: 6011000990139424, 371449635398431", "371449635398431", "credit-card-amex"),
    (f"UnionPay {luhn_complete('620550000000000000')}", luhn_complete("620550000000000000"), "credit-card-unionpay"),
])
def test_a_card_beside_those_shapes_still_goes(red, text: str, card: str, rule: str) -> None:  # noqa: ANN001
    gone(red, text, card, rule)


# --- env-secret-assignment: Bootstrap's minified event namespace
def test_a_minified_event_namespace_is_no_env_secret(red) -> None:  # noqa: ANN001
    text = ('const NAME$5="scrollspy",DATA_KEY$2="bs.scrollspy",EVENT_KEY$2=`.${DATA_KEY$2}`,DATA_API_KEY=".data-api",'
            'EVENT_CLICK=`click${EVENT_KEY$2}`;')
    assert kept(red, text) == {}


@pytest.mark.parametrize("text,value", [
    ("DATA_API_KEY=Zq8.FAKE-data-api-key1", "Zq8.FAKE-data-api-key1"),
    ("export SESSION_SECRET=.Xk9FAKEsecretvalue", ".Xk9FAKEsecretvalue"),
    ("export SESSION_SECRET=.data-api-Xk9", ".data-api-Xk9"),
])
def test_an_env_secret_still_goes(red, text: str, value: str) -> None:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text(text, report)
    assert value not in out and out.startswith(text.split("=")[0] + "=")


# --- real secrets inside the same files still go
@pytest.mark.parametrize("text,value", [
    ('"node_modules/ms": {"resolved": "https://ci:Np4FAKEpassw0rd@npm.corp.example/ms/-/ms-2.1.3.tgz",\n'
     '  "integrity": "sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA=="}',
     "Np4FAKEpassw0rd"),
    ("//registry.npmjs.org/:_authToken=npm_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7\n", "npm_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7"),
    ("--index-url https://__token__:pypi-AgEIcHlwaS5vcmcFAKE0123456789abcdefghijklmnopqrstuvwx@upload.pypi.org/legacy/\n"
     "six==1.17.0 --hash=sha256:4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274\n",
     "pypi-AgEIcHlwaS5vcmcFAKE0123456789abcdefghijklmnopqrstuvwx"),
    ("$ git log -1 --format=%H\nc0ffee1234567890abcdef1234567890abcdef12\n"
     "remote: https://x-access-token:ghs_FAKE0123456789abcdefghijklmnopqrstu@github.com/acme/api.git\n",
     "ghs_FAKE0123456789abcdefghijklmnopqrstu"),
])
def test_a_secret_in_those_files_still_goes(red, text: str, value: str) -> None:  # noqa: ANN001
    out = red.redact_text(text, RedactionReport())
    assert value not in out
    assert "sha512-6FlzubTLZG3J2a" in out or "--hash=sha256:4721f391" in out or "c0ffee1234567890" in out or "registry" in out


# --- the real CLI on one Claude Code home: every text survives sync, age and zstd byte for byte
def test_sync_keeps_the_texts(tmp_path: Path) -> None:
    import random

    from archiver.demo.claude_sample import _Writer
    from tests.fx_s11_e2e import decrypt_all, setup

    s = setup(tmp_path, "claude-code")
    sid = "5a6b7c8d-1111-4222-8333-444455556666"
    w = _Writer(sid, "/srv/app", random.Random(16))
    w.conv("user", {"message": {"role": "user", "content": "Check the lockfiles and the build output."}})
    texts = [(f, t) for f, t, pii in samples(16) if not pii]
    for i, (family, text) in enumerate(texts):
        tid = f"toolu_01{i:04d}s16fp"
        w.conv("assistant", {"message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": f"cat {family}.txt"}}]}})
        w.conv("user", {"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": text}]}, "toolUseResult": {"stdout": text, "stderr": ""}})
    img = json.loads(image_block(Gen(16)))
    w.conv("user", {k: img[k] for k in ("message", "toolUseResult")})
    w.dump(s.home / ".claude" / "projects" / "-srv-app" / f"{sid}.jsonl")
    r = s.cli("sync", "--workers", "1")
    assert r.returncode == 0, r.stderr[-2000:]
    plain = decrypt_all(s)
    lines = [json.loads(ln) for data in plain.values() for ln in data.splitlines() if sid.encode() in ln]
    assert lines, "the session is not in the store"
    got = set()
    for rec in lines:
        got.update(_strings(rec, []))
    missing = [f for f, t in texts if t not in got]
    assert not missing
    assert img["toolUseResult"]["file"]["base64"] in got


# --- response headers and cloud output: a Fastly request id, a GitHub request id, AWS's ClientToken
HEADERS_KEPT = [
    "x-served-by: cache-fra-etou8220043-FRA\nx-fastly-request-id: ba9bd40b5e2f3011153c618d0a7e07bfb0d02834\n",
    "x-github-request-id: DC82:20330:049231E:1F65DB7:1F7B0823\n",
    '{"Instances": [{"InstanceId": "i-0a1b2c3d4e5f67890", "ClientToken": "3e50fa58-21ac-4087-8ea4-2950e0a381db"}]}',
    "    ClientToken: terraform-20261130100000123400000001\n",
]


@pytest.mark.parametrize("text", HEADERS_KEPT)
def test_a_request_id_or_client_token_stays(red, text: str) -> None:  # noqa: ANN001
    assert kept(red, text) == {}


@pytest.mark.parametrize("text,value,rule", [
    ("FASTLY_API_TOKEN=Xk9FAKEexample0123456789abcdefgh\n", "Xk9FAKEexample0123456789abcdefgh", "fastly-api-token"),
    ("$ cat ~/.pgpass\nDB01:5432:APP:ADMIN:7F3A9C2E\n", "7F3A9C2E", "pgpass-line"),
    ('{"client_token": "FAKEcl1entTok3nexample0123456789"}', "FAKEcl1entTok3nexample0123456789", "secret-assignment-quoted"),
])
def test_the_tokens_beside_them_still_go(red, text: str, value: str, rule: str) -> None:  # noqa: ANN001
    gone(red, text, value, rule)
