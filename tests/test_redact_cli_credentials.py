"""Credentials in command lines, config files and diffs that an audit found leaking: each one is
planted with a freshly generated value in a realistic snippet, redacted by the built-in packs,
and must be gone while the text around it stays."""

from __future__ import annotations

import json
import math
import random
import secrets
import string
import uuid
from collections import Counter
from typing import Callable

import pytest

from archiver.redact.engine import Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import RuntimeTerms, load_rules

RNG = random.Random(secrets.randbits(64))
ALNUM = string.ascii_letters + string.digits


def _entropy(s: str) -> float:
    return -sum(n / len(s) * math.log2(n / len(s)) for n in Counter(s).values())


def password(n: int = 0) -> str:
    """A password as people pick them: letters, digits and a few symbols, alphanumeric at both ends."""
    n = n or RNG.randint(10, 20)
    while True:
        mid = "".join(RNG.choice(ALNUM + "-_@%+!") for _ in range(n - 2))
        pw = RNG.choice(ALNUM) + mid + RNG.choice(ALNUM)
        if any(c.isdigit() for c in pw) and any(c.isalpha() for c in pw) and _entropy(pw) >= 3.0:
            return pw


def hexkey(n: int) -> str:
    while True:
        h = "".join(RNG.choice("0123456789abcdef") for _ in range(n))
        if _entropy(h) >= 3.3 and any(c.isalpha() for c in h):
            return h


def passphrase() -> str:
    words = ["correct", "horse", "battery", "staple", "orange", "violin", "tundra", "quartz", "maple"]
    return " ".join(RNG.sample(words, 3)) + f" {RNG.randint(10, 99)}"


def npm_token() -> str:
    return RNG.choice([str(uuid.UUID(int=RNG.getrandbits(128), version=4)),
                       "".join(RNG.choice(ALNUM) for _ in range(RNG.randint(24, 40)))])


@pytest.fixture(scope="module")
def engine() -> Engine:
    rules = load_rules(["builtin:secrets", "builtin:pii", "builtin:paths"], RuntimeTerms())
    return Engine(rules, Pseudonymizer(b"cli-credentials-test-key-0123456789"))


# (case id, template with {s} where the secret goes, secret generator)
CASES: list[tuple[str, str, Callable[[], str]]] = [
    ("mongosh-p", 'mongosh "mongodb://db.internal:27017/app" -u admin -p {s} --authenticationDatabase admin', password),
    ("mongo-p-quoted", "mongo --host db.internal -u root -p '{s}' app", password),
    ("yarn-config-set", "yarn config set npmAuthToken {s}", npm_token),
    ("npm-config-set-space", "npm config set //registry.npmjs.org/:_authToken {s}", npm_token),
    ("pnpm-config-set-quoted", 'pnpm config set "//npm.pkg.github.com/:_authToken" "{s}"', npm_token),
    ("nmcli-wifi-connect", "sudo nmcli dev wifi connect HomeNet-5G password {s}", password),
    ("nmcli-wifi-sec-psk", "nmcli connection modify HomeNet wifi-sec.psk '{s}'", password),
    ("nmcli-802-11-psk", "nmcli con add type wifi ifname wlan0 con-name Home ssid Home "
                         "802-11-wireless-security.key-mgmt wpa-psk 802-11-wireless-security.psk {s}", password),
    ("nmcli-passphrase-spaces", 'nmcli dev wifi connect "Home Net" password "{s}"', passphrase),
    ("wpa-supplicant-quoted", 'ctrl_interface=/run/wpa_supplicant\nnetwork={{\n\tssid="HomeNet"\n\tpsk="{s}"\n\tkey_mgmt=WPA-PSK\n}}\n',
     passphrase),
    ("wpa-supplicant-hex", 'network={{\n\tssid="HomeNet"\n\tpsk={s}\n}}\n', lambda: hexkey(64)),
    ("wpa-passphrase-output", '$ wpa_passphrase HomeNet\nnetwork={{\n\tssid="HomeNet"\n\t#psk="{s}"\n\tpsk=' + "{h}" + '\n}}\n',
     password),
    ("hostapd", "interface=wlan0\nssid=HomeNet\nwpa=2\nwpa_passphrase={s}\nwpa_key_mgmt=WPA-PSK\n", passphrase),
    ("wpa-passphrase-cli", "wpa_passphrase HomeNet {s} | sudo tee -a /etc/wpa_supplicant/wpa_supplicant.conf", password),
    ("wpa-passphrase-cli-ssid-quoted", "sudo sh -c 'wpa_passphrase \"Home Net 5G\" {s} >> /etc/wpa_supplicant.conf'", password),
    ("wpa-passphrase-cli-quoted", "wpa_passphrase 'Cafe WiFi' '{s}' > /tmp/wpa.conf", passphrase),
    ("wpa-passphrase-cli-double-quoted", 'wpa_passphrase HomeNet "{s}"', passphrase),
    ("twilio-client-literal-sid", 'from twilio.rest import Client\nclient = Client("AC' + "{a}" + '", "{s}")\n', lambda: hexkey(32)),
    ("twilio-rest-client", "client = TwilioRestClient(account_sid, '{s}')", lambda: hexkey(32)),
    ("twilio-node", "const client = require('twilio')(process.env.TWILIO_SID, '{s}');", lambda: hexkey(32)),
    ("netrc-diff-multiline", "diff --git a/.netrc b/.netrc\n--- a/.netrc\n+++ b/.netrc\n@@ -0,0 +1,3 @@\n"
                             "+machine api.example.com\n+  login bob\n+  password {s}\n", password),
    ("netrc-diff-removed", "@@ -1,3 +0,0 @@\n-machine git.example.com\n-\tlogin ci\n-\tpassword {s}\n", password),
    ("netrc-diff-password-first", "+machine ftp.example.com\n+  password {s}\n+  login bob\n", password),
    # a hunk without its `machine` line: the password line alone, as git shows a change to it
    ("netrc-diff-no-machine-added", "diff --git a/.netrc b/.netrc\n--- a/.netrc\n+++ b/.netrc\n@@ -2,3 +2,3 @@\n"
                                    "   login bob\n-  password {h}\n+  password {s}\n", password),
    ("netrc-diff-no-machine-removed", "@@ -7 +7 @@ machine api.example.com\n-\tpassword {s}\n+\tpassword {a}\n", password),
    ("netrc-diff-no-machine-flush", "@@ -3 +3 @@\n-password {s}\n+password {a}\n", password),
    ("redis-conf", "# redis.conf\nbind 127.0.0.1\nrequirepass {s}\nappendonly yes\n", password),
    ("redis-config-set", 'redis-cli -h cache CONFIG SET masterauth "{s}"', password),
    ("redis-auth-prompt", "127.0.0.1:6379> AUTH default {s}\nOK\n127.0.0.1:6379> ping\nPONG", password),
    ("redis-acl-setuser", "127.0.0.1:6379> ACL SETUSER worker on >{s} ~jobs:* +@all\nOK", password),
    ("redis-users-acl", "# users.acl\nuser default off\nuser app on >{s} ~app:* &* +@all\n", password),
    ("vault-login-legacy", "vault login {s}", lambda: "s." + password(24).replace("-", "a").replace("_", "b")
     .replace("@", "c").replace("%", "d").replace("+", "e").replace("!", "f")),
    ("ldapsearch-w", 'ldapsearch -x -H ldaps://dc.corp -D "cn=admin,dc=corp" -w {s} -b "dc=corp" "(uid=bob)"', password),
    ("smbclient-U", "smbclient //fs.corp/share -U bob%{s} -c 'ls'", password),
]


@pytest.mark.parametrize("template,make", [(t, m) for _, t, m in CASES], ids=[c[0] for c in CASES])
def test_planted_credential_is_redacted_and_the_text_around_it_stays(engine: Engine, template: str,
                                                                     make: Callable[[], str]) -> None:
    secret, sid = make(), hexkey(32)
    text = template.format(s=secret, a=sid, h=hexkey(64))
    out = engine.redact(text, None)
    assert isinstance(out, str)
    assert secret not in out, f"{secret!r} survived in {out!r}"
    before, after = text.split(secret, 1)
    # only the value is replaced: what precedes it (command, flag, key) stays as it was
    # (the Twilio account SID before a token is replaced by its own rule)
    keep = before.rsplit(sid, 1)[-1][-12:]
    assert keep in out, f"{keep!r} lost in {out!r}"
    assert after.split("\n")[0][:8] in out


# Ordinary text the new rules must leave alone.
CLEAN = [
    "mongosh -u admin -p --authenticationDatabase admin",
    'mongosh "mongodb://localhost:27017" -u admin -p "$MONGO_PASSWORD"',
    "docker run -d -p 27017:27017 --name mongo mongo:7",
    "yarn config get npmAuthToken",
    'npmAuthToken: "${NPM_TOKEN}"',
    "nmcli dev wifi connect HomeNet --ask",
    "nmcli -s con show HomeNet | grep 802-11-wireless-security.psk",
    "key_mgmt=WPA-PSK\nproto=RSN\npairwise=CCMP",
    "The psk is derived from the passphrase and the SSID with PBKDF2.",
    "wpa_passphrase=${WIFI_PASSPHRASE}",
    "wpa_passphrase HomeNet",
    "wpa_passphrase HomeNet < /tmp/psk.txt",
    'wpa_passphrase "$SSID" "$PSK" >> /etc/wpa_supplicant.conf',
    "usage: wpa_passphrase <ssid> [passphrase]",
    "Client(account_sid, auth_token)",
    "client = Client(os.environ['TWILIO_ACCOUNT_SID'], os.environ['TWILIO_AUTH_TOKEN'])",
    "Topics: machine learning\n- login page\n- password reset flow",
    "Changes:\n- login page\n- password manager\n+ password strength\n",
    "@@ -1,3 +1,3 @@ type User struct {\n \tname     string\n-\tpassword string\n+\tpassword []byte\n",
    "@@ -4 +4 @@ model User {\n-  password  String\n+  password  String?\n",
    "@@ -2 +2 @@\n-  password VARCHAR(64)\n+  password TEXT\n",
    "+  password $NETRC_PASSWORD\n-  password <NETRC_PASSWORD:1a2b3c4d>\n",
    "  -password string\n    \tthe password to use\n",
    "# requirepass foobared",
    "127.0.0.1:6379> AUTH\n(error) ERR wrong number of arguments for 'auth' command",
    "ldapsearch -x -W -D cn=admin,dc=corp -b dc=corp",
    "smbclient //fs.corp/share -U bob -c ls",
    "def connect(host: str, password: str, port: int = 5432) -> None:",
    "psql -h db -p 5432 -U app --password-file ~/.pgpass",
    "user default on nopass ~* &* +@all",
    "vault login -method=oidc role=dev",
]


@pytest.mark.parametrize("text", CLEAN)
def test_ordinary_text_is_left_alone(engine: Engine, text: str) -> None:
    assert engine.scan(text) == [], [(m.rule_id, text[m.start:m.end]) for m in engine.scan(text)]


def test_a_wifi_passphrase_in_a_codex_shell_call_is_redacted() -> None:
    """Codex's shell tool: the command line is a JSON string inside the call's `arguments` string."""
    import json

    from archiver.redact.base import RedactionReport
    from archiver.redact.redactor import build_redactor

    red = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"cli-credentials-test-key-0123456789",
                         RuntimeTerms())
    pw, phrase = password(), passphrase()
    for cmd, secret in ((f"wpa_passphrase HomeNet {pw} | sudo tee -a /etc/wpa_supplicant.conf", pw),
                        (f"wpa_passphrase \"Home Net\" '{phrase}'", phrase)):
        args = json.dumps({"command": ["bash", "-lc", cmd], "workdir": "/tmp"})
        line = json.dumps({"timestamp": "2025-10-26T12:00:00.000Z", "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": "call_Xq3mY8bK2pL9vN4wR7tZ1sD6", "arguments": args}})
        report = RedactionReport()
        out = red.redact_jsonl_line(line.encode(), report)
        assert secret.encode() not in out and b"wpa_passphrase" in out and b"Home" in out
        assert "<WIFI_PASSWORD:" in json.loads(json.loads(out)["payload"]["arguments"])["command"][2]


def test_a_netrc_password_change_in_a_git_diff_tool_result_is_redacted() -> None:
    """`git diff ~/.netrc` in a Claude Code tool result, the hunk too short to show the machine line:
    the old and the new password are both replaced, the diff's other lines stay."""
    import json

    from archiver.redact.base import RedactionReport
    from archiver.redact.redactor import build_redactor

    red = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"cli-credentials-test-key-0123456789",
                         RuntimeTerms())
    old, new = password(), password()
    for body in (f"@@ -5,3 +5,3 @@\n   login deploy\n-  password {old}\n+  password {new}\n   account ops\n",
                 f"@@ -6 +6 @@ machine ci.example.com\n-\tpassword {old}\n+\tpassword {new}",
                 f"@@ -2 +2 @@\n-password {old}\n+password {new}"):
        diff = "diff --git a/.netrc b/.netrc\nindex 3b18e51..a9f3c2d 100600\n--- a/.netrc\n+++ b/.netrc\n" + body
        line = json.dumps({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9X", "content": diff}]}})
        out = json.loads(red.redact_jsonl_line(line.encode(), RedactionReport()))["message"]["content"][0]["content"]
        assert old not in out and new not in out, out
        # (`-password X` flush left is also a command-line flag: either label will do)
        assert out.count("PASSWORD:") == 2 and out.splitlines()[:5] == diff.splitlines()[:5], out


def test_a_netrc_edit_by_claude_code_hides_the_password_in_every_field() -> None:
    """An Edit of ~/.netrc with flush lines: the tool_use input holds only `password X` lines, the
    result's structuredPatch one diff line per string (`-password OLD`, `+password NEW`): each
    string's own start and end are the line's, and both passwords go everywhere."""
    import json

    from archiver.redact.base import RedactionReport
    from archiver.redact.redactor import build_redactor

    red = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"cli-credentials-test-key-0123456789",
                         RuntimeTerms())
    old, new = password(), password()
    before = f"machine api.example.com\nlogin deploy@example.com\npassword {old}\n"
    after = before.replace(old, new)
    use = {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9X", "name": "Edit",
         "input": {"file_path": "/srv/ci/.netrc", "old_string": f"password {old}", "new_string": f"password {new}"}}]}}
    result = {"type": "user", "toolUseResult": {
        "filePath": "/srv/ci/.netrc", "oldString": before, "newString": after,
        "structuredPatch": [{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3,
                             "lines": [" machine api.example.com", " login deploy@example.com",
                                       f"-password {old}", f"+password {new}"]}]}}
    for rec in (use, result):
        line = json.dumps(rec).encode()
        out = red.redact_jsonl_line(line, RedactionReport()).decode()
        assert old not in out and new not in out, out
        assert "NETRC_PASSWORD" in out or "PASSWORD:" in out
    patch = json.loads(red.redact_jsonl_line(json.dumps(result).encode(), RedactionReport()))
    lines = patch["toolUseResult"]["structuredPatch"][0]["lines"]
    assert lines[:2] == [" machine api.example.com", " login deploy@example.com"]
    assert lines[2].startswith("-password <") and lines[3].startswith("+password <"), lines


# Command lines recorded as argv lists (Codex `"command": [...]`, MCP server configs, subprocess
# calls): each item is its own JSON string; the list is also read as the shell line it stands for.
ARGV_CASES: list[tuple[str, list[str], Callable[[], str]]] = [
    ("wpa-passphrase", ["wpa_passphrase", "HomeNet", "{s}"], password),
    ("wpa-passphrase-path", ["/usr/sbin/wpa_passphrase", "Home Net 5G", "{s}"], password),
    ("wpa-passphrase-spaces", ["wpa_passphrase", "Cafe WiFi", "{s}"], passphrase),
    ("mysql-glued", ["mysql", "-h", "db", "-uroot", "-p{s}", "app"], password),
    ("mysqldump-glued", ["mysqldump", "-u", "admin", "-p{s}", "--all-databases"], password),
    ("sshpass", ["sshpass", "-p", "{s}", "ssh", "admin@10.0.0.7"], password),
    ("htpasswd-b", ["htpasswd", "-b", ".htpasswd", "admin", "{s}"], password),
    ("htpasswd-bc", ["htpasswd", "-bc", "/etc/nginx/.htpasswd", "admin", "{s}"], password),
    ("plink-pw", ["plink", "-ssh", "host", "-pw", "{s}"], password),
    ("cli-password-flag", ["mysqladmin", "--user=root", "--password", "{s}", "status"], password),
    ("keytool-storepass", ["keytool", "-list", "-keystore", "ks.jks", "-storepass", "{s}"], password),
    ("redis-cli-a", ["redis-cli", "-h", "cache", "-a", "{s}", "ping"], password),
    ("docker-login-p", ["docker", "login", "-u", "ci", "-p", "{s}", "registry.example.com"], password),
    ("curl-u", ["curl", "-u", "admin:{s}", "https://api.example.com"], password),
    ("ssh-keygen-N", ["ssh-keygen", "-t", "ed25519", "-N", "{s}", "-f", "/tmp/k"], password),
    ("sqlcmd-P", ["sqlcmd", "-S", "db", "-U", "sa", "-P", "{s}", "-Q", "select 1"], password),
    ("openssl-passout", ["openssl", "pkcs12", "-export", "-in", "c.pem", "-passout", "pass:{s}"], password),
    ("rabbitmqctl", ["rabbitmqctl", "add_user", "app", "{s}"], password),
    ("az-login", ["az", "login", "--service-principal", "-u", "http://app", "-p", "{s}"], password),
    ("poetry-http-basic", ["poetry", "config", "http-basic.private", "alice", "{s}"], password),
    ("ldapsearch-w", ["ldapsearch", "-x", "-D", "cn=admin,dc=corp", "-w", "{s}", "-b", "dc=corp"], password),
    ("smbclient-U", ["smbclient", "//fs.corp/share", "-U", "bob%{s}", "-c", "ls"], password),
    ("mongosh-p", ["mongosh", "mongodb://db:27017/app", "-u", "admin", "-p", "{s}"], password),
    ("sudo-wrapped", ["sudo", "-u", "svc", "sshpass", "-p", "{s}", "scp", "f", "host:"], password),
]


def _codex_call(argv: list[str]) -> bytes:
    args = json.dumps({"command": argv, "workdir": "/tmp", "timeout_ms": 10000})
    return json.dumps({"timestamp": "2025-10-26T12:00:00.000Z", "type": "response_item", "payload": {
        "type": "function_call", "name": "shell", "call_id": "call_Xq3mY8bK2pL9vN4wR7tZ1sD6",
        "arguments": args}}).encode()


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    from archiver.redact.redactor import build_redactor

    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"cli-credentials-test-key-0123456789",
                          RuntimeTerms())


@pytest.mark.parametrize("argv,make", [(a, m) for _, a, m in ARGV_CASES], ids=[c[0] for c in ARGV_CASES])
def test_a_credential_in_an_argv_list_is_redacted_and_the_other_items_stay(red, argv: list[str],
                                                                          make: Callable[[], str]) -> None:
    """The secret is an item (or part of one) of its own: only that item changes, the program, its
    flags and the SSID stay; as a list in a JSON document, inside Codex's `arguments` string, and in
    a batch of lines (the memo of short strings must not carry an item's result to another line)."""
    from archiver.redact.base import RedactionReport

    secret = make()
    items = [a.format(s=secret) for a in argv]
    at = next(k for k, a in enumerate(argv) if "{s}" in a)
    plain = json.dumps({"type": "tool_use", "input": {"command": items}}).encode()
    outs = [json.loads(red.redact_jsonl_line(plain, RedactionReport()))["input"]["command"],
            json.loads(json.loads(red.redact_jsonl_line(_codex_call(items), RedactionReport()))
                       ["payload"]["arguments"])["command"]]
    batch = red.redact_jsonl_lines([plain, json.dumps({"command": items[:at]}).encode(), plain], RedactionReport())
    outs += [json.loads(batch[0])["input"]["command"], json.loads(batch[2])["input"]["command"]]
    assert json.loads(batch[1]) == {"command": items[:at]}
    for out in outs:
        assert secret not in json.dumps(out), out
        assert len(out) == len(items) and out[:at] == items[:at] and out[at + 1:] == items[at + 1:], out
        prefix = argv[at].split("{s}")[0]
        assert out[at].startswith(prefix) and "PASSWORD:" in out[at], out


# argv lists the new reading must leave as they are (byte for byte)
ARGV_CLEAN = [
    ["wpa_passphrase", "HomeNet"],
    ["mysql", "-u", "root", "-p"],
    ["mysql", "-u", "root", "-p", "app"],
    ["docker", "run", "-p", "8080:80", "--name", "mysql", "mysql:8"],
    ["docker", "login", "--password-stdin", "ghcr.io"],
    ["psql", "--password", "-h", "db"],
    ["htpasswd", "-c", ".htpasswd", "admin"],
    ["ssh-keygen", "-t", "ed25519", "-N", "", "-f", "key"],
    ["sshpass", "-e", "ssh", "host"],
    ["sshpass", "-f", "/run/secrets/pw", "ssh", "host"],
    ["openssl", "enc", "-d", "-pass", "env:ENC_PW", "-in", "x.enc"],
    ["pass", "show", "github/token"],
    ["keytool", "-list", "-keystore", "ks.jks"],
    ["curl", "-u", "admin", "https://x"],
    ["git", "commit", "-m", "fix password reset for the login page"],
    ["git", "log", "--oneline", "-5", "3f786850e387550fdab836ed7e6dc881de23001b"],
    ["python", "-c", "print('password')"],
    ["node", "server.js", "--port", "3000", "--token-file", "/run/secrets/t"],
    ["ssh", "-J", "bastion", "host"],
    ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write"],
    ["username", "password", "email"],
    ["0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f", "3f786850e387550fdab836ed7e6dc881de23001b", "toolu_01A09q90qw90lq917835lq9X"],
    ["convert", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "out.png"],
    ["man", "openssl-passphrase-options"],
]


@pytest.mark.parametrize("argv", ARGV_CLEAN, ids=[" ".join(a)[:40] for a in ARGV_CLEAN])
def test_argv_lists_without_a_credential_stay(red, argv: list[str]) -> None:
    from archiver.redact.base import RedactionReport

    line = json.dumps({"type": "tool_use", "input": {"command": argv}}).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line
