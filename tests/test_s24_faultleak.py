"""Leak audit of the FAILURE paths, through the CLI as an operator runs it (`python -m archiver`
in a child): a HOME of all six harnesses (tests/fx_s24_faultleak.py) with needles in project
paths and in broken files, synced to a file:// store (`--json --log-format json --metrics-file`)
and to moto on 127.0.0.1 (human log lines), then `status`, `scan`, `doctor`, `ls`, `verify`,
`lineage` and `restore --all`. Every channel is collected: stdout and stderr of each command,
the metrics files, every file of the state dirs (state.db dumped table by table), every object
key and its user metadata, and the plaintext of every object (`age -d | zstd -d`).

Running as root, mode 000 does not stop a read: the sync then runs under `unshare -U` (a user
namespace without a uid mapping, as tests/test_disk_faults.py does), where it does; without
user namespaces those cases are left out of the home and `test_mode_000_cases_ran` skips.

Errors name the file by the path it is archived under (HOME-relative, redacted by the
collector's own rules: Claude's project key is rebuilt from the redacted cwd), never by its
absolute path.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.fx_s21_audit import HARNESS_VARS, unwrap
from tests.fx_s24_faultleak import MEDDLE_ENV, USER, Planted, build_home, needle_forms, reset_meddled
from tests.fx_s3 import REGION, make_bucket, s3_client, s3_server, unique_bucket_name  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
ROOT = os.geteuid() == 0
EXIT_OK, EXIT_PARTIAL = 0, 1  # DESIGN.md: 1 finished but some sessions failed (the rest archived)


def _unshare_ok() -> bool:
    try:
        return subprocess.run(["unshare", "-U", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


UNSHARE = ROOT and _unshare_ok()


@dataclass
class Store:
    name: str
    config: Path
    state: Path
    sync_code: int = -1
    sync_doc: dict[str, Any] = field(default_factory=dict)
    sync_stderr: str = ""
    ls: dict[str, Any] = field(default_factory=dict)


@dataclass
class Audit:
    planted: Planted
    base: Path
    identity: Path
    bucket: str
    stores: dict[str, Store] = field(default_factory=dict)
    channels: dict[str, str] = field(default_factory=dict)     # where -> text an operator or a bucket sees
    codes: dict[str, int] = field(default_factory=dict)        # command -> exit code
    plaintexts: dict[str, bytes] = field(default_factory=dict)  # bucket key -> decrypted payload
    by_design: dict[str, str] = field(default_factory=dict)     # local plaintext the docs allow (SECURITY.md §2)

    def cli(self, store: Store, *args: str, meddle: bool = False, unshared: bool = False) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in HARNESS_VARS}
        env["PYTHONPATH"] = str(REPO)
        env[MEDDLE_ENV] = json.dumps(self.planted.meddle if meddle else {})
        prefix = ["unshare", "-U"] if unshared and UNSHARE else []
        proc = subprocess.run([*prefix, sys.executable, "-m", "tests.fx_s24_faultleak", args[0], "--config",
                               str(store.config), *args[1:]], capture_output=True, text=True, env=env, cwd=REPO,
                              timeout=180)
        what = f"{store.name}: {' '.join(args)}"
        self.codes[what] = proc.returncode
        self.channels[f"{what} [stdout]"] = proc.stdout
        self.channels[f"{what} [stderr]"] = proc.stderr
        return proc


def _config(base: Path, name: str, store_lines: str) -> Store:
    keys = base / "keys"
    config = base / f"{name}.toml"
    config.write_text(
        f'home = "{base / "home"}"\nhost = "laptop-of-{USER}"\n'
        f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["{USER}"]\nnames = ["Quillfeather Dynamics"]\n'
        f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n'
        f"[store]\n{store_lines}\n"
        f'[state]\ndir = "{base / ("state-" + name)}"\n')
    return Store(name, config, base / f"state-{name}")


def _dump_state(state: Path) -> tuple[str, str]:
    """(what an operator may see, unredacted local metadata by design): state.db table by table,
    every other file of the state dir as text. SECURITY.md §2: the state holds native paths and
    discovery facts (titles, cwds) unredacted, never message content."""
    seen, local = [], []
    for f in sorted(p for p in state.rglob("*") if p.is_file()):
        if f.name.startswith("state.db"):
            continue
        seen.append(f"{f.relative_to(state)}: {f.read_bytes().decode('utf-8', 'replace')}")
    conn = sqlite3.connect(state / "state.db")
    try:
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            for row in conn.execute(f"SELECT * FROM {table}"):
                for col, value in zip(cols, row):
                    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                    if table == "discovery_cache" or (table == "artifacts" and col in ("logical_path",)):
                        local.append(f"{table}.{col}: {text}")
                    else:
                        seen.append(f"{table}.{col}: {text}")
    finally:
        conn.close()
    return "\n".join(seen), "\n".join(local)


def _read_store(a: Audit, store: Store) -> None:
    if store.name == "s3":
        client = s3_client(_endpoint(store))
        keys = [o["Key"] for page in client.get_paginator("list_objects_v2").paginate(Bucket=a.bucket)
                for o in page.get("Contents", ())]
        meta = {k: client.head_object(Bucket=a.bucket, Key=k).get("Metadata", {}) for k in keys}
        a.channels["s3: object keys and user metadata"] = json.dumps(meta, indent=0)
        for key in keys:
            blob = client.get_object(Bucket=a.bucket, Key=key)["Body"].read()
            a.plaintexts[key] = blob if key.endswith("archiver.json") else unwrap(blob, a.identity)
    else:
        root = a.base / "store"
        files = sorted(p for p in root.rglob("*") if p.is_file())
        a.channels["file: object keys and sidecar files"] = "\n".join(str(p.relative_to(root)) for p in files)
        for p in files:  # the objects are the bucket's, by id; the manifests are this store's own
            if "snapshots" in p.parts:
                a.plaintexts[f"file:{p.relative_to(root)}"] = unwrap(p.read_bytes(), a.identity)


def _endpoint(store: Store) -> str:
    return next(line.split('"')[1] for line in store.config.read_text().splitlines() if line.startswith("endpoint_url"))


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory, s3_server: str) -> Iterator[Audit]:  # noqa: F811
    base = tmp_path_factory.mktemp("s24fault")
    base.chmod(0o700)
    planted = build_home(base, UNSHARE)
    bucket = unique_bucket_name()
    make_bucket(s3_server, bucket)
    a = Audit(planted=planted, base=base, identity=base / "keys" / "identity.txt", bucket=bucket)
    (base / "store").mkdir()
    a.stores["file"] = _config(base, "file", f'url = "file://{base / "store"}"')
    a.stores["s3"] = _config(base, "s3", f'url = "s3://{bucket}/arch"\nendpoint_url = "{s3_server}"\nregion = "{REGION}"')
    assert a.cli(a.stores["file"], "keygen", "--out", str(base / "keys")).returncode == 0
    ident = ["--identity", str(a.identity)]

    for store, log in ((a.stores["file"], ["--json", "--log-format", "json"]), (a.stores["s3"], ["--log-format", "human"])):
        reset_meddled(planted)
        metrics = base / f"metrics-{store.name}.prom"
        proc = a.cli(store, "sync", "--workers", "1", *log, "--metrics-file", str(metrics), meddle=True, unshared=True)
        store.sync_code, store.sync_stderr = proc.returncode, proc.stderr
        if store.name == "file":
            store.sync_doc = json.loads(proc.stdout)
        a.channels[f"{store.name}: metrics file"] = metrics.read_text()
        reads = ((("status",), ("doctor", "--json"), ("verify", "--read-data", *ident), ("lineage", *ident), ("ls", *ident))
                 if store.name == "file" else (("status", "--json"), ("verify", *ident), ("lineage", "--json", *ident)))
        for args in reads:  # each command once over both stores: a child costs ~1 s here
            a.cli(store, *args)
        store.ls = json.loads(a.cli(store, "ls", "--json", *ident).stdout)
        seen, local = _dump_state(store.state)
        a.channels[f"{store.name}: state dir"] = seen
        a.by_design[f"{store.name}: state.db discovery cache and native paths"] = local
        _read_store(a, store)
    a.cli(a.stores["file"], "scan")
    a.by_design["scan --json (native paths of this machine, read nothing remote)"] = \
        a.cli(a.stores["file"], "scan", "--json").stdout
    a.channels.pop("file: scan --json [stdout]")
    a.cli(a.stores["s3"], "restore", "--all", "--to", str(base / "restored"), "--json", *ident)
    yield a
    client = s3_client(s3_server)
    for key in [k for k in a.plaintexts if not k.startswith("file:")]:
        client.delete_object(Bucket=bucket, Key=key)


def _hits(text: str) -> list[str]:
    low = text.lower()
    return [f for f in needle_forms() if f in low]


def _evidence(text: str, form: str) -> str:
    i = text.lower().find(form)
    return text[max(0, i - 120): i + len(form) + 40]


# ------------------------------------------------------------------ 1. no needle anywhere

def test_no_needle_in_any_channel(audit: Audit) -> None:
    found = {where: [_evidence(text, f) for f in _hits(text)][:2] for where, text in audit.channels.items() if _hits(text)}
    assert not found, json.dumps(found, indent=1)
    assert len(audit.channels) >= 30


def test_no_needle_in_the_plaintext_of_any_object(audit: Audit) -> None:
    found = {k: [_evidence(v.decode("utf-8", "replace"), f) for f in _hits(v.decode("utf-8", "replace"))][:2]
             for k, v in audit.plaintexts.items() if _hits(v.decode("utf-8", "replace"))}
    assert not found, json.dumps(found, indent=1)
    assert sum(1 for k in audit.plaintexts if "/objects/" in k) >= 80


def test_session_content_never_enters_the_local_state(audit: Audit) -> None:
    """The state may keep native paths and titles (SECURITY.md §2), never a line's content."""
    for where, text in audit.by_design.items():
        if where.startswith("scan"):
            continue
        assert "akiaj3qz7wxkpm2rtv4n" not in text.lower() and "not json:" not in text, where


def test_restored_files_hold_no_needle(audit: Audit) -> None:
    restored = [p for p in (audit.base / "restored").rglob("*") if p.is_file()]
    assert len(restored) >= 40
    leaked = [str(p.relative_to(audit.base)) for p in restored
              if _hits(p.read_bytes().decode("utf-8", "replace")) or _hits(str(p.relative_to(audit.base)))]
    assert not leaked, leaked


# ------------------------------------------------------------------ 2. one clear error per broken session

def _errors(audit: Audit) -> list[str]:
    return audit.stores["file"].sync_doc["errors"]


def _broken(audit: Audit, outcome: str) -> list[Any]:
    return [b for b in audit.planted.broken if b.outcome == outcome]


def test_each_failed_session_has_one_error_naming_its_file_and_reason(audit: Audit) -> None:
    errors = _errors(audit)
    failing = _broken(audit, "error")
    by_key = [b for b in failing if not b.key.endswith(":")]
    for b in by_key:
        mine = [e for e in errors if e.startswith(f"{b.key}: ")]
        assert len(mine) == 1, (b.name, errors)
        named = b.file.rsplit("/", 1)[-1]
        assert named in mine[0] and (b.reason or ":") in mine[0].lower(), (b.name, mine[0])
    # a broken store of sessions (an OpenCode channel database) is an error of the harness's host
    # session, naming the file: its sessions are not archived (none failed: none was found)
    stores = [b for b in failing if b.key.endswith(":")]
    for b in stores:
        mine = [e for e in errors if e.startswith(f"{b.key}@host: ") and b.file in e]
        assert len(mine) == 1, (b.name, errors)
    assert len(errors) == len(by_key) + len(stores), errors
    assert audit.stores["file"].sync_doc["sessions"]["failed"] == len(by_key)


def test_errors_name_the_home_relative_archived_path_never_an_absolute_one(audit: Audit) -> None:
    """A SnapshotError's message starts with the native absolute path: it was shown after the
    relative one (`<rel>: /abs/<rel>: reason`), and for Claude its project key kept the e-mail."""
    for e in _errors(audit):
        _, _, rest = e.partition(": ")
        assert rest.startswith("."), e
        assert str(audit.base) not in e and "/home/" not in e, e


def test_one_error_record_per_failed_session_in_each_log_format(audit: Audit) -> None:
    failed = [b.key for b in _broken(audit, "error") if not b.key.endswith(":")]
    records = [json.loads(line) for line in audit.stores["file"].sync_stderr.splitlines() if line.startswith("{")]
    assert len(records) == len(audit.stores["file"].sync_stderr.splitlines())  # every line is JSON
    errors = [r["msg"] for r in records if r["level"] == "error"]
    human = [line for line in audit.stores["s3"].sync_stderr.splitlines() if line.startswith("archiver: ")]
    for key in failed:
        assert sum(m.startswith(f"{key}: ") for m in errors) == 1, (key, errors)
        assert sum(line.startswith(f"archiver: {key}: ") for line in human) == 1, (key, human)


def test_warned_and_archived_breaks_are_named_in_the_session_warnings(audit: Audit) -> None:
    ls = {s["key"]: s for s in audit.stores["file"].ls["sessions"]}
    for b in _broken(audit, "warned"):
        warnings = ls[b.key]["warnings"] if b.key in ls else []
        assert any(b.file in w and b.reason in w for w in warnings), (b.name, warnings)
    for b in _broken(audit, "archived"):
        assert b.key in ls, b.name


def test_broken_databases_that_hold_no_known_session_are_named_on_the_host_session(audit: Audit) -> None:
    host = {s["key"]: s for s in audit.stores["file"].ls["sessions"]}["opencode:@host"]
    for b in [b for b in _broken(audit, "error") if b.key.endswith(":")]:
        assert sum(b.file in w for w in host["warnings"]) == 1, (b.name, host["warnings"])


def test_every_good_session_is_archived_in_both_stores(audit: Audit) -> None:
    for store in audit.stores.values():
        keys = {s["key"] for s in store.ls["sessions"]}
        assert audit.planted.good <= keys, (store.name, sorted(audit.planted.good - keys))
        assert len(keys) >= 50
    assert {s["key"] for s in audit.stores["file"].ls["sessions"]} == {s["key"] for s in audit.stores["s3"].ls["sessions"]}
    doc = audit.stores["file"].sync_doc["sessions"]
    assert doc["uploaded"] + doc["unchanged"] + doc["failed"] == doc["total"]


# ------------------------------------------------------------------ 3. exit codes (DESIGN.md)

def test_exit_codes(audit: Audit) -> None:
    assert {s.name: s.sync_code for s in audit.stores.values()} == {"file": EXIT_PARTIAL, "s3": EXIT_PARTIAL}
    others = {what: code for what, code in audit.codes.items() if " sync " not in f" {what.split(': ', 1)[1]} "}
    bad = {what: code for what, code in others.items() if code != EXIT_OK}
    assert not bad, bad


def test_mode_000_cases_ran(audit: Audit) -> None:
    if ROOT and not UNSHARE:
        pytest.skip("running as root without user namespaces: mode 000 cannot deny a read; those cases were left out")
    assert [b for b in audit.planted.broken if b.root_only]
