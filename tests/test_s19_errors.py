"""Every bad input gets a clear error: the exit code of the CLI contract (2 usage or config, 1 a
store that fails, 3 integrity), one stderr line naming the file (or object, key, option) and the
reason, no traceback, nothing secret. One table, run through cli.main in process (a few cases
through `python -m archiver` in a child, the real entry point), against one generated home synced
to a file:// store and a moto server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

from archiver.cli import main
from archiver.demo.claude_sample import FAKE_AWS_KEY, FAKE_EMAIL_LOCAL, FAKE_GITHUB_TOKEN, make_claude_home
from tests.fx_home import ISOLATED_ENV
from tests.fx_s3 import make_bucket, s3_server  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
USER = "zorblquux"
CANARY = "Quoxelbright"  # a value given in a bad setting: never echoed back
ROOT = os.geteuid() == 0  # root reads and writes through any mode bits


@dataclass
class World:
    base: Path
    port: int  # a loopback port nothing listens on
    endpoint: str
    forbidden: list[str] = field(default_factory=list)  # key material and session content

    def fill(self, text: str) -> str:
        return text.replace("{S}", str(self.base)).replace("{PORT}", str(self.port)).replace("{EP}", self.endpoint)


PACK = '''[pack]
name = "mine"
version = 1
'''
RULE = '''[[rules]]
id = "r1"
description = "x"
regex = "{regex}"
label = "SECRET"
confidence = "high"
positive = ["{pos}"]
negative = ["baz"]
{extra}'''


def _rule(regex: str = "zzqq[0-9]{4}", pos: str = "zzqq1234", extra: str = "") -> str:
    return RULE.replace("{regex}", regex).replace("{pos}", pos).replace("{extra}", extra)


def _config(w: World, name: str, *, store: str | None = None, recipients: str = "keys/recipient.txt",
            team_key: str = "keys/team.key", rules: list[str] | None = None, extra: str = "") -> None:
    b = w.base
    red = f'rules = {rules!r}\n'.replace("'", '"') if rules is not None else ""
    store_section = f'url = "file://{b}/store"\n' if store is None else store
    (b / name).write_text(
        f'home = "{b}/home"\nhost = "lap"\n{extra}'
        f'[redaction]\nteam_key_file = "{b}/{team_key}"\nusernames = ["{USER}"]\n{red}'
        f'[encryption]\nrecipients_file = "{b}/{recipients}"\n'
        f'[store]\n{store_section}[state]\ndir = "{b}/state"\n')


def _quiet_main(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, s3_server: str) -> Iterator[World]:  # noqa: F811
    base = tmp_path_factory.mktemp("s19err")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    w = World(base=base, port=port, endpoint=s3_server)
    with pytest.MonkeyPatch.context() as mp:
        for var in ISOLATED_ENV:
            mp.delenv(var, raising=False)
        sample = make_claude_home(base / "home", USER)
        for d in ("keys", "keys2"):
            assert _quiet_main(["keygen", "--out", str(base / d)]) == 0
        _config(w, "config.toml")
        assert _quiet_main(["sync", "--config", str(base / "config.toml"), "--workers", "1", "-q"]) == 0
        _inputs(w)
        w.forbidden = [FAKE_AWS_KEY, FAKE_GITHUB_TOKEN, FAKE_EMAIL_LOCAL, CANARY, *sample.secrets,
                       (base / "keys" / "team.key").read_text().strip(),
                       (base / "keys2" / "team.key").read_text().strip()]
        yield w


def _inputs(w: World) -> None:
    """The bad inputs the table names."""
    b = w.base
    (b / "bad.toml").write_text('home = "x"\n[store\nurl = 1\n')
    (b / "unk.toml").write_text('hme = "x"\n')
    (b / "typ.toml").write_text(f'[redaction]\nnames = "{CANARY} Zed"\n')
    (b / "cfgdir").mkdir()
    (b / "noread.toml").write_text("")
    (b / "noread.toml").chmod(0)
    _config(w, "ftp.toml", store='url = "ftp://host/p"\n')
    _config(w, "relurl.toml", store='url = "file://store"\n')
    _config(w, "nourl.toml", store="")
    (b / "empty.txt").write_text("")
    (b / "garb.txt").write_text("age1garbledxxxx\n")
    _config(w, "rmiss.toml", recipients="nofile.txt")
    _config(w, "remp.toml", recipients="empty.txt")
    _config(w, "rgarb.toml", recipients="garb.txt")
    _config(w, "rid.toml", recipients="keys/identity.txt")
    (b / "short.key").write_text("ab" * 10 + "\n")
    (b / "short.key").chmod(0o600)
    (b / "open.key").write_bytes((b / "keys" / "team.key").read_bytes())
    (b / "open.key").chmod(0o644)
    _config(w, "tshort.toml", team_key="short.key")
    _config(w, "tmiss.toml", team_key="nokey")
    _config(w, "tdir.toml", team_key="keys")
    _config(w, "topen.toml", team_key="open.key")
    (b / "afile").write_text("a file, not a folder\n")
    (b / "ro").mkdir()
    (b / "ro").chmod(0o500)
    for name, body in (("badre", _rule(regex="(?=zz)qq")), ("miss", _rule(pos="zzqq12")),
                       ("unkf", _rule(extra='colour = "red"\n')),
                       ("dup", _rule() + _rule(regex="zzqr[0-9]{4}", pos="zzqr1234"))):
        (b / f"{name}.pack.toml").write_text(PACK + body)
        _config(w, f"cfg-{name}.toml", rules=["builtin:secrets", f"{b}/{name}.pack.toml"])
    s3 = 'url = "s3://{bucket}/p"\nendpoint_url = "{ep}"\nregion = "us-east-1"\nmax_attempts = 1\n'
    make_bucket(w.endpoint, "s19-errors-auth")
    _config(w, "s3closed.toml", store=s3.format(bucket="s19-errors-x", ep=f"http://127.0.0.1:{w.port}"))
    _config(w, "s3nobucket.toml", store=s3.format(bucket="s19-errors-missing", ep=w.endpoint))
    _config(w, "s3auth.toml", store=s3.format(bucket="s19-errors-auth", ep=w.endpoint))
    _config(w, "fsfile.toml", store=f'url = "file://{b}/afile"\n')
    _config(w, "fsro.toml", store=f'url = "file://{b}/ro/store"\n')
    (b / "fake.db").write_bytes(b"SQLite format 3\x00" + b"not a database at all" * 8)
    (b / "bin.dat").write_bytes(bytes(range(256)) * 4 + FAKE_AWS_KEY.encode() + b"\x00\xff\xfe")


@dataclass
class Case:
    id: str
    argv: str  # {S}: the world's folder; the config is --config {S}/config.toml unless argv names one
    rc: int
    needles: tuple[str, ...]  # all of them in one stderr line
    env: dict[str, str] = field(default_factory=dict)
    proc: bool = False  # through `python -m archiver` in a child
    hook: str = ""
    skip_root: bool = False


I1 = "--identity {S}/keys/identity.txt"
I2 = "--identity {S}/keys2/identity.txt"
MAIN = "claude-code:"  # a prefix of every claude-code session: ambiguous

CASES = [
    # ---- config
    Case("config-missing", "ls --config {S}/nope.toml " + I1, 2, ("{S}/nope.toml", "config file not found")),
    Case("config-is-a-folder", "ls --config {S}/cfgdir " + I1, 2, ("{S}/cfgdir", "cannot read", "Is a directory")),
    Case("config-unreadable", "ls --config {S}/noread.toml " + I1, 2, ("{S}/noread.toml", "cannot read", "Permission denied"),
         skip_root=True),
    Case("config-bad-toml", "ls --config {S}/bad.toml", 2, ("{S}/bad.toml", "not valid TOML", "line 2")),
    Case("config-unknown-key", "ls --config {S}/unk.toml", 2, ("{S}/unk.toml", "hme: unknown key")),
    Case("config-wrong-type", "ls --config {S}/typ.toml", 2, ("{S}/typ.toml", "redaction.names", "valid list")),
    Case("env-bad-int", "ls " + I1, 2, ("ARCHIVER_* env", "store.max_concurrency", "valid integer"),
         env={"ARCHIVER_STORE__MAX_CONCURRENCY": f"lots{CANARY}"}),
    Case("env-bad-json", "scan", 2, ("ARCHIVER_REDACTION__NAMES", "must be JSON"),
         env={"ARCHIVER_REDACTION__NAMES": f"[{CANARY} Zed"}, proc=True),
    Case("env-bad-bool", "scan", 2, ("redaction.fail_closed", "valid boolean"),
         env={"ARCHIVER_REDACTION__FAIL_CLOSED": CANARY}),
    Case("store-unknown-scheme", "ls --config {S}/ftp.toml " + I1, 2, ("{S}/ftp.toml", "store.url", "s3:// or file://")),
    Case("store-relative-file-url", "ls --config {S}/relurl.toml " + I1, 2, ("file://store", "absolute path")),
    Case("store-url-unset", "ls --config {S}/nourl.toml " + I1, 2, ("store.url is not set",)),
    # ---- keys
    Case("recipients-missing", "sync --dry-run --config {S}/rmiss.toml", 2,
         ("encryption.recipients_file", "{S}/nofile.txt", "No such file")),
    Case("recipients-empty", "sync --dry-run --config {S}/remp.toml", 2, ("{S}/empty.txt", "no recipients")),
    Case("recipients-garbled", "sync --dry-run --config {S}/rgarb.toml", 2, ("{S}/garb.txt:1", "malformed age recipient")),
    Case("recipients-file-holds-identity", "sync --dry-run --config {S}/rid.toml", 2,
         ("{S}/keys/identity.txt", "an age identity (secret key), not a recipient", "age1")),
    Case("team-key-short", "sync --dry-run --config {S}/tshort.toml", 2, ("{S}/short.key", "at least 32")),
    Case("team-key-missing", "sync --dry-run --config {S}/tmiss.toml", 2, ("{S}/nokey", "No such file")),
    Case("team-key-unreadable", "sync --dry-run --config {S}/tdir.toml", 2, ("redaction.team_key_file", "{S}/keys", "Is a directory")),
    Case("team-key-0644-warns", "sync --dry-run -q --config {S}/topen.toml", 0, ("{S}/open.key", "mode 644", "chmod 600")),
    Case("team-key-env-garbled", "sync --dry-run", 2, ("ARCHIVER_TEAM_KEY", "not valid hex"),
         env={"ARCHIVER_TEAM_KEY": f"{CANARY}{CANARY}{CANARY}"}),
    Case("keygen-existing", "keygen --out {S}/keys", 2, ("{S}/keys/identity.txt", "already exists", "--force")),
    Case("keygen-into-a-file", "keygen --out {S}/afile", 2, ("{S}/afile", "Not a directory"), proc=True),
    Case("keygen-under-a-file", "keygen --out {S}/afile/sub", 2, ("{S}/afile/sub", "Not a directory")),
    Case("keygen-unwritable", "keygen --out {S}/ro/keys", 2, ("{S}/ro/keys", "Permission denied"), skip_root=True),
    # ---- rule packs
    Case("pack-bad-regex-sync", "sync --dry-run --config {S}/cfg-badre.toml", 2, ("{S}/badre.pack.toml", "'r1'", "RE2")),
    Case("pack-bad-regex-rules", "rules list --config {S}/cfg-badre.toml", 2, ("{S}/badre.pack.toml", "'r1'", "RE2")),
    Case("pack-positive-missed", "rules list --config {S}/cfg-miss.toml", 2,
         ("{S}/miss.pack.toml", "'r1'", "positive example 1 is not matched")),
    Case("pack-unknown-field", "sync --dry-run --config {S}/cfg-unkf.toml", 2, ("{S}/unkf.pack.toml", "'r1'", "unknown key 'colour'")),
    Case("pack-duplicate-id", "sync --dry-run --config {S}/cfg-dup.toml", 2, ("{S}/dup.pack.toml", "'r1'", "duplicate rule id")),
    # ---- store
    Case("store-closed-port", "ls --config {S}/s3closed.toml " + I1, 2,
         ("s3://s19-errors-x/p", "snapshots/", "127.0.0.1:{PORT}", "Could not connect")),
    Case("store-missing-bucket", "ls --config {S}/s3nobucket.toml " + I1, 2,
         ("s3://s19-errors-missing/p", "NoSuchBucket", "does not exist")),
    Case("store-missing-bucket-sync", "sync -q --config {S}/s3nobucket.toml", 1, ("s3://s19-errors-missing/p", "NoSuchBucket")),
    Case("store-wrong-credentials", "ls --config {S}/s3auth.toml " + I1, 2,
         ("s3://s19-errors-auth/p", "InvalidAccessKeyId", "403"), hook="moto_auth"),
    Case("store-path-is-a-file-sync", "sync -q --config {S}/fsfile.toml", 1, ("file://{S}/afile", "archiver.json", "Not a directory")),
    Case("store-path-is-a-file-ls", "ls --config {S}/fsfile.toml " + I1, 2, ("file://{S}/afile", "no archive")),
    Case("store-read-only-sync", "sync -q --config {S}/fsro.toml", 1, ("file://{S}/ro/store", "Permission denied"), skip_root=True),
    # ---- reviewer commands
    Case("ls-no-identity", "ls", 2, ("--identity FILE", "an identity is needed")),
    Case("restore-no-identity", "restore --all --to {S}/r-none", 2, ("--identity FILE", "an identity is needed")),
    Case("identity-is-a-recipient", "ls --identity {S}/keys/recipient.txt", 2, ("{S}/keys/recipient.txt:1", "an age recipient (public key), not an identity")),
    Case("identity-missing", "verify --identity {S}/nofile", 2, ("{S}/nofile", "cannot read identity", "No such file")),
    Case("ls-wrong-identity", "ls " + I2, 3, ("{S}/keys2/identity.txt", "matches none of the 1 manifest(s)")),
    Case("lineage-wrong-identity", "lineage " + I2, 3, ("{S}/keys2/identity.txt", "matches none")),
    Case("verify-wrong-identity", "verify " + I2, 3, ("{S}/keys2/identity.txt", "matches none")),
    Case("export-wrong-identity", "export claude-code:x " + I2, 3, ("{S}/keys2/identity.txt", "matches none")),
    Case("restore-wrong-identity", "restore --all --to {S}/r-wrong " + I2, 3, ("{S}/keys2/identity.txt", "matches none")),
    Case("restore-key-matches-nothing", "restore zzzz --to {S}/r-zzzz " + I1, 2, ("'zzzz'", "no session")),
    Case("lineage-key-matches-nothing", "lineage zzzz " + I1, 2, ("'zzzz'", "no session")),
    Case("export-key-ambiguous", f"export {MAIN} " + I1, 2, (f"'{MAIN}'", "ambiguous", "give more of the id")),
    Case("restore-to-a-file", "restore --all --to {S}/afile " + I1, 2, ("--to {S}/afile", "not a directory")),
    Case("restore-to-under-a-file", "restore --all --to {S}/afile/sub " + I1, 2, ("--to {S}/afile/sub", "Not a directory")),
    Case("restore-to-unwritable", "restore --all --to {S}/ro/r " + I1, 2, ("--to {S}/ro/r", "Permission denied"), skip_root=True),
    Case("ls-at-bad-date", "ls --at 2026-13-45 " + I1, 2, ("--at", "'2026-13-45'", "ISO 8601")),
    Case("restore-at-bad-date", "restore --all --to {S}/r-at --at yesterday " + I1, 2, ("--at", "'yesterday'")),
    Case("verify-at-bad-date", "verify --at notatime " + I1, 2, ("--at", "'notatime'")),
    Case("ls-since-bad-date", "ls --since notatime " + I1, 2, ("--since", "'notatime'")),
    Case("export-format-pdf", f"export {MAIN} --format pdf " + I1, 2, ("--format", "invalid choice: 'pdf'")),
    Case("export-out-under-a-file", f"export {MAIN} --out {{S}}/afile/x.md " + I1, 2,
         ("--out {S}/afile/x.md", "its folder is not a directory")),
    Case("export-out-no-folder", f"export {MAIN} --out {{S}}/nodir/x.md " + I1, 2, ("--out {S}/nodir/x.md", "does not exist")),
    Case("ls-unknown-harness", "ls --harness nope " + I1, 2, ("--harness", "'nope'", "known: claude-code")),
    Case("scan-unknown-harness", "scan --harness nope", 2, ("--harness", "'nope'", "known: claude-code")),
    Case("sync-unknown-harness", "sync --dry-run --harness nope", 2, ("--harness", "'nope'", "known: claude-code")),
    # ---- redact FILE
    Case("redact-missing-file", "redact {S}/nofile.txt", 2, ("{S}/nofile.txt", "not a file")),
    Case("redact-a-directory", "redact {S}/home", 2, ("{S}/home", "not a file")),
    Case("redact-not-sqlite", "redact {S}/fake.db", 2, ("{S}/fake.db", "cannot read it as sqlite", "not a database"), proc=True),
    Case("redact-binary-as-sqlite", "redact --format sqlite {S}/bin.dat", 2, ("{S}/bin.dat", "not a database")),
    Case("rules-test-not-sqlite", "rules test {S}/fake.db", 2, ("{S}/fake.db", "cannot read it as sqlite")),
    Case("rules-test-missing-file", "rules test {S}/nofile", 2, ("{S}/nofile", "not a file")),
]


def _argv(w: World, case: Case) -> list[str]:
    argv = shlex.split(w.fill(case.argv))
    if "--config" not in argv:
        argv += ["--config", str(w.base / "config.toml")]
    return argv


def run_cli(w: World, argv: list[str], env: dict[str, str], proc: bool,
            monkeypatch: pytest.MonkeyPatch) -> tuple[int, bytes, str]:
    """(exit code, stdout, stderr) of the CLI; an exception escaping main() in process counts as
    the traceback a user would have seen."""
    if proc:
        child = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVER_") and k not in ISOLATED_ENV}
        child.update(env, PYTHONPATH=str(REPO))
        r = subprocess.run([sys.executable, "-m", "archiver", *argv], capture_output=True, env=child, timeout=120)
        return r.returncode, r.stdout, r.stderr.decode(errors="replace")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    errs = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
        try:
            code = main(argv)
        except Exception as e:  # noqa: BLE001 - what would have been a traceback
            code = -1
            errs.write(f"Traceback (escaped main): {type(e).__name__}\n")
    out.flush()
    return code, out.buffer.getvalue(), errs.getvalue()  # type: ignore[attr-defined]


def _assert_clean(w: World, stderr: str) -> None:
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr[-3000:]
    for secret in w.forbidden:
        assert secret not in stderr, (secret[:6], stderr[-2000:])
    assert not re.search(r"AGE-SECRET-KEY-1[0-9A-Z]{20}", stderr), stderr[-2000:]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ISOLATED_ENV:
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=[pytest.mark.skipif(
    c.skip_root and ROOT, reason="root reads and writes through mode bits")] if c.skip_root else []) for c in CASES])
def test_bad_input_gets_a_clear_error(world: World, case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    if case.hook == "moto_auth":  # the server checks credentials: the dummy key is unknown to it
        from moto import settings as moto_settings

        monkeypatch.setattr(moto_settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
    code, _out, stderr = run_cli(world, _argv(world, case), case.env, case.proc, monkeypatch)
    assert code == case.rc, (case.id, code, stderr[-2000:])
    needles = [world.fill(n) for n in case.needles]
    lines = [ln for ln in stderr.splitlines() if all(n in ln for n in needles)]
    assert lines, (case.id, needles, stderr[-2000:])
    _assert_clean(world, stderr)


def test_keygen_never_overwrites_existing_keys(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = world.base / "keys"
    before = {p.name: p.read_bytes() for p in keys.iterdir()}
    code, _, stderr = run_cli(world, ["keygen", "--out", str(keys)], {}, False, monkeypatch)
    assert code == 2 and "already exists" in stderr
    assert {p.name: p.read_bytes() for p in keys.iterdir()} == before


def test_restore_into_a_folder_with_a_conflicting_file_keeps_it(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    target = world.base / "r-conflict"
    ident = ["--identity", str(world.base / "keys" / "identity.txt"), "--config", str(world.base / "config.toml")]
    assert run_cli(world, ["restore", "--all", "--to", str(target), *ident], {}, False, monkeypatch)[0] == 0
    victim = sorted(target.rglob("*.jsonl"))[0]
    victim.write_bytes(b"the reviewer's own notes\n")
    code, _, stderr = run_cli(world, ["restore", "--all", "--to", str(target), *ident], {}, False, monkeypatch)
    assert code == 3, stderr[-2000:]
    rel = victim.relative_to(target).as_posix()
    assert [ln for ln in stderr.splitlines() if "refused" in ln and rel in ln and "other content" in ln], stderr[-2000:]
    assert victim.read_bytes() == b"the reviewer's own notes\n"
    _assert_clean(world, stderr)


def test_redact_a_binary_file_redacts_it_as_text(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, stderr = run_cli(world, ["redact", str(world.base / "bin.dat"), "--config", str(world.base / "config.toml")],
                                {}, False, monkeypatch)
    assert code == 0, stderr[-2000:]
    assert FAKE_AWS_KEY.encode() not in out and out.startswith(bytes(range(256)))
    _assert_clean(world, stderr)


def test_a_bug_is_one_line_without_its_message_and_a_traceback_with_v(world: World,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import archiver.commands.redact as redact_cmd

    def boom(path: Path) -> Any:
        raise KeyError(f"{CANARY}-session-text")

    monkeypatch.setattr(redact_cmd, "guess_format", boom)
    argv = ["redact", str(world.base / "bin.dat"), "--config", str(world.base / "config.toml")]
    code, _, stderr = run_cli(world, argv, {}, False, monkeypatch)
    assert code == 1
    assert [ln for ln in stderr.splitlines()
            if ln.startswith("archiver: internal error: KeyError at archiver/commands/redact.py:") and "-v" in ln], stderr
    assert CANARY not in stderr and "Traceback" not in stderr
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(KeyError):
        main([*argv, "-v"])


def test_a_pi_only_setting_under_another_harness_is_refused(tmp_path: Path) -> None:
    """config.py's rule: a typo never silently. `session_dir` means something only for pi."""
    from archiver.config import ConfigError, load_settings

    cfg = tmp_path / "c.toml"
    cfg.write_text('[harnesses.codex]\nsession_dir = "/x"\n')
    with pytest.raises(ConfigError, match="codex: session_dir is a pi setting"):
        load_settings(cfg, required=True)
    cfg.write_text('[harnesses.pi]\nsession_dir = "/x"\n')
    assert str(load_settings(cfg, required=True).harnesses["pi"].session_dir) == "/x"
