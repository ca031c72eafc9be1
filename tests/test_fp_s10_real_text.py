"""False positives found by running the redactor over this machine's real text (s10 hunt:
/usr/share/doc changelogs, man pages, site-packages' botocore data, icon metadata) and over
generated tool output (base64 of binaries): each case is the shape that was found, rebuilt here
with made-up values; beside each, the real leak of the same shape that must still go."""

from __future__ import annotations

import base64
import json
import random

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, gone, kept

KEY = b"fp-s10-real-text-test-key-0123456789"
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"])


# --- ipv4-address: 4-part versions of changelogs (Debian headers, release dates, product names)
VERSIONS = [
    "dpkg (1.16.0.3) unstable; urgency=medium\n\n  * Allow agents to work.\n",
    "libxi (2:1.4.99.1-1) experimental; urgency=low\n",
    "binutils (2.10.0.27-0.cvs20001011.1) unstable; urgency=low\n",
    "adwaita-icon-theme (3.16.2.1-2) unstable; urgency=medium\n",
    "  2015-07-29 (3.8.11.1)\n\n    1. Restore an undocumented side-effect\n",
    "<h3>2013-04-12 (3.7.16.2)</h3><p>",
    "    XFree86 4.3.99.16 Bring the tree up to date for the Cygwin folks\n",
    "    libXi 1.6.99.1\n\n    Signed-off-by: Someone\n",
    "    Requires xextproto 7.0.99.2\n",
    "It hasn't been used since libxcb 1.1.90.1, released in 2008.",
    "  * Incorporate changes in NMU 1.4.0.32 made by a maintainer",
    "ne fait rien (depuis dpkg 1.15.5.4). Cela indique",
    "* Upgrade to V8 5.0.71.57. (A Contributor)",
    'Revert "Released 3.6.11.1 including missing files"',
    "as well as in section 18.11.5.1 of volume 3 of the manual",
    "The fix also was put into Linux 2.6.24.5",
    "  * libxcb1 Breaks alsa-utils (<< 1.0.24.2-5) to avoid leaving it broken.",
    "  * Update Build-Dep on x11proto-core-dev to >= 6.8.99.8-1.\nBuild-Depends: x11proto-core-dev (>= 6.8.99.8-1)",
    "* `'x448'` (OID 1.3.101.111)",
]


@pytest.mark.parametrize("text", VERSIONS)
def test_a_four_part_version_is_no_ip_address(red, text: str) -> None:  # noqa: ANN001
    assert "ipv4-address" not in kept(red, text)


def test_a_changelog_in_a_json_string_keeps_its_versions(red) -> None:  # noqa: ANN001
    line = json.dumps({"type": "tool_result", "content": "".join(VERSIONS[:6])}).encode()
    report = RedactionReport()
    assert red.redact_jsonl_line(line, report) == line
    assert "ipv4-address" not in report.by_rule()


@pytest.mark.parametrize("text,ip", [
    ("PING example.com (93.184.216.34) 56(84) bytes of data.", "93.184.216.34"),
    ("* Connected to example.com (93.184.216.34) port 443 (#0)", "93.184.216.34"),
    ("2026-11-30 (81.2.69.160) logged in", "81.2.69.160"),
    ("Accepted publickey for deploy from 52.31.4.57 port 50122 ssh2", "52.31.4.57"),
    ("gcloud compute instances create vm1 --internal-ip=81.2.69.160 --zone=x", "81.2.69.160"),
    ("dpkg (1.16.0.3) unstable; urgency=medium\n  * Mirror: http://81.2.69.160/debian\n", "81.2.69.160"),
])
def test_an_address_beside_those_shapes_still_goes(red, text: str, ip: str) -> None:  # noqa: ANN001
    out = gone(red, text, ip, "ipv4-address")
    if text.startswith("dpkg"):
        assert out.startswith("dpkg (1.16.0.3) unstable;")


# --- secret-assignment-quoted: botocore paginators name fields, not tokens
@pytest.mark.parametrize("text", [
    '"input_token": "Marker",\n      "output_token": "CloudFrontOriginAccessIdentityList.NextMarker",',
    '"Query": {"input_token": "ExclusiveStartKey", "output_token": "LastEvaluatedKey"}',
    '"output_token": "StreamDescription.Shards[-1].ShardId"',
])
def test_a_paginator_field_name_stays(red, text: str) -> None:  # noqa: ANN001
    assert kept(red, text) == {}


def test_a_token_value_still_goes(red) -> None:  # noqa: ANN001
    gone(red, '{"refresh_token": "Rf7EXAMPLEfake0123456789abcdefghi"}', "Rf7EXAMPLEfake0123456789abcdefghi",
          "secret-assignment-quoted")


# --- ARNs: a Lambda resource pattern is no .pgpass line, a Secrets Manager ARN holds no secret value
@pytest.mark.parametrize("text", [
    '"Resource": "arn:aws:lambda:*:*:function:CodeDeployHook_*"',
    '"Resource": ["arn:aws:lambda:*:*:function:*DeepRacer*", "arn:aws:lambda:*:*:function:network-migration*"]',
    '"ARN": "arn:aws:secretsmanager:us-west-2:123456789012:secret:MyTestDatabaseSecret-a1b2c3",',
    '"Resource": "arn:aws:secretsmanager:*:*:secret:marketplace-deployment*!*",',
    '"Resource": ["arn:*:secretsmanager:*:*:secret:aws-datasync!*"],',
])
def test_an_arn_stays(red, text: str) -> None:  # noqa: ANN001
    found = kept(red, text)
    assert "pgpass-line" not in found and "secret-assignment-unquoted" not in found


def test_a_pgpass_line_and_an_unquoted_secret_still_go(red) -> None:  # noqa: ANN001
    gone(red, "$ cat ~/.pgpass\ndb.internal:5432:app:app_user:Hq7vT2mZp9Lx4RkW\n", "Hq7vT2mZp9Lx4RkW", "pgpass-line")
    gone(red, "arn:aws:iam::123456789012:role/x client_secret=Zk8EXAMPLEfake0123456789abcd",
          "Zk8EXAMPLEfake0123456789abcd", "secret-assignment-unquoted")


# --- phone-nanp: DFARS clause numbers of licence texts
@pytest.mark.parametrize("text", [
    'only "Restricted Rights" as defined in Clause\n252.227-7013 (c) (1) of DFARs.',
    "or DFARS 252.227-7014 (June 1995), as applicable.",
    "as set forth in DFARS 202.227-7015 Technical Data",
])
def test_a_dfars_clause_is_no_phone_number(red, text: str) -> None:  # noqa: ANN001
    assert "phone-nanp" not in kept(red, text)


def test_a_phone_number_still_goes(red) -> None:  # noqa: ANN001
    gone(red, "call 252.227.7013 or (412) 268-4387", "268-4387", "phone-nanp")
    gone(red, "call 252.227.7013 today", "252.227.7013", "phone-nanp")


# --- api-key-header: a CloudFormation resource type is no header
def test_a_cloudformation_type_is_no_api_key_header(red) -> None:  # noqa: ANN001
    assert kept(red, '{"AWS::Lightsail::StaticIp": "568b16eb2f6da8fe",\n "AWS::Location::APIKey": "4089715a7b0b3686"}') == {}
    gone(red, "curl -H 'X-API-Key: 4089715a7b0b3686c57e2e51' https://api.example.com",
          "4089715a7b0b3686c57e2e51", "api-key-header")


# --- cli-password-flag: roff font escapes, gpg's --passwd <user-id>, LLVM's -debug-pass
@pytest.mark.parametrize("text", [
    ".TP\n.B  --change-passphrase \\fIuser-id\\fR\n.TQ\n.B  --passwd \\fIuser-id\\fR\n",
    "gpg --passwd user-id",
    "// Whether or not -debug-pass has been specified. For use to check if it's",
])
def test_a_flag_placeholder_is_no_password(red, text: str) -> None:  # noqa: ANN001
    assert "cli-password-flag" not in kept(red, text)


def test_a_flag_password_still_goes(red) -> None:  # noqa: ANN001
    gone(red, "gpg --batch --passphrase Gp9-FAKE-pass1 -d x.gpg", "Gp9-FAKE-pass1", "cli-password-flag")


# --- macos-hostname: icon names
@pytest.mark.parametrize("text", [
    '<symbol id="device-imac" viewBox="0 0 24 24"><path d="M0 0h24v24H0z"/></symbol>',
    '{"name": "laptop-macbook", "aliases": ["computer-imac", "mdi-device-imac"]}',
])
def test_an_icon_name_is_no_hostname(red, text: str) -> None:  # noqa: ANN001
    assert "macos-hostname" not in kept(red, text)


def test_a_macos_hostname_still_goes(red) -> None:  # noqa: ANN001
    gone(red, "Last login: Mon from Carols-iMac-2.lan", "Carols", "macos-hostname")
    gone(red, "daves-macbook-pro:~ dave$ ls", "daves-macbook-pro", "macos-hostname")


# --- password-assignment-quoted: Material Design Icons metadata (icon names and SVG path data)
@pytest.mark.parametrize("text", [
    '{"form-textbox-password": "gesture-tap-button", "lock-reset": "shield-key-outline"}',
    '"form-textbox-password":"M17,7H22V17H17V19A1,1 0 0,0 18,20H20V22H17.5A2.5,2.5 0 0,1 15,19.5Z"',
])
def test_icon_metadata_is_no_password(red, text: str) -> None:  # noqa: ANN001
    assert "password-assignment-quoted" not in kept(red, text)


def test_a_kebab_password_still_goes(red) -> None:  # noqa: ANN001
    gone(red, '{"mysql-root-password": "correct-horse-battery-staple"}', "correct-horse-battery-staple",
          "password-assignment-quoted")


# --- facebook-access-token / yandex-oauth-token: the middle of a base64 run of a binary
def _b64_with(marker: str, seed: int, urlsafe: bool) -> str:
    """A base64 run as `base64 file.bin` prints it on one line, with `marker` glued into it."""
    r = random.Random(seed)
    data = bytes(r.getrandbits(8) for _ in range(600))
    enc = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()
    sep = "-" if urlsafe else "/"
    return enc[:200] + sep + marker + "".join(r.choice(_ALNUM) for _ in range(88)) + ("_" if urlsafe else "+") + enc[200:]


@pytest.mark.parametrize("seed", range(4))
def test_base64_of_a_binary_is_no_facebook_or_yandex_token(red, seed: int) -> None:  # noqa: ANN001
    for text in (_b64_with("EAAB", seed, False), _b64_with("y0_", seed, True)):
        found = kept(red, "$ base64 -w0 app.wasm\n" + text + "\n")
        assert "facebook-access-token" not in found and "yandex-oauth-token" not in found


def test_facebook_and_yandex_tokens_still_go(red) -> None:  # noqa: ANN001
    r = random.Random(7)
    fb = "EAAB" + "".join(r.choice(_ALNUM) for _ in range(100))
    ya = "y0_" + "".join(r.choice(_ALNUM) for _ in range(58))
    gone(red, f"curl 'https://graph.facebook.com/me?access_token={fb}&fields=id'", fb, "facebook-access-token")
    gone(red, f"export YANDEX_TOKEN={ya}\n", ya, "yandex-oauth-token")


# --- sshpass-password: a commit message listing the flag ("sshpass -p, htpasswd -b")
def test_a_listed_sshpass_flag_has_no_password(red) -> None:  # noqa: ANN001
    text = "Leak gaps: argv lists read as their shell line (wpa_passphrase, sshpass -p, htpasswd -b, curl -u)"
    assert "sshpass-password" not in kept(red, text)
    gone(red, "sshpass -p 'Zq9,FAKE;pw' ssh admin@host", "Zq9,FAKE", "sshpass-password")
