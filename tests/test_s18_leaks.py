"""s18 fresh-eyes leak audit of everything that leaves the machine, with canaries planted in every
place the six harnesses keep data (tests/fx_s18_leaks.py), synced by the real CLI in its own
process into moto's S3 server on 127.0.0.1 (--log-format json, --metrics-file).

As an attacker with the bucket and the logs (no identity): no canary, nor the username, in any
object key, stored body, S3 metadata, stdout/stderr or metrics file, in any encoding. As a reviewer
who decrypts (age and zstd CLIs, not this project's code): none in any manifest or object either,
nor in `ls`, `lineage`, `export`; while the words around them survive byte for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.fx_s11_e2e import Setup, decrypt_object
from tests.fx_s18_leaks import USER, Finder, Plan, build
from tests.fx_s3 import REGION, make_bucket, s3_client, s3_server, unique_bucket_name  # noqa: F401

HOST = f"box-of-{USER}"


class Run:
    def __init__(self, s: Setup, plan: Plan, bucket: str, endpoint: str) -> None:
        self.s, self.plan, self.bucket, self.endpoint = s, plan, bucket, endpoint
        self.finder = Finder(plan.needles + [("username", USER), ("host", HOST)])
        self.outputs: dict[str, str] = {}
        self.syncs: list[dict[str, Any]] = []

    @classmethod
    def start(cls, tmp_path_factory: pytest.TempPathFactory, endpoint: str, name: str,
              build: Callable[[Path], Any]) -> Any:
        """A private base folder, the home `build` plants, a fresh bucket on the loopback S3 and a
        config naming them (keys made by `archiver keygen`)."""
        base = tmp_path_factory.mktemp(name)
        base.chmod(0o700)
        s = Setup(base=base, home=base / USER)
        plan = build(s.home)
        bucket = unique_bucket_name()
        make_bucket(endpoint, bucket)
        _config(s, bucket, endpoint)
        return cls(s, plan, bucket, endpoint)

    def cli(self, name: str, *args: str) -> str:
        r = self.s.cli(*args)
        self.outputs[f"{name}:stdout"] = r.stdout
        self.outputs[f"{name}:stderr"] = r.stderr
        assert r.returncode in (0, 1), (args, r.returncode, r.stderr[-3000:])
        return r.stdout

    def objects(self) -> dict[str, bytes]:
        c = s3_client(self.endpoint)
        keys = [o["Key"] for page in c.get_paginator("list_objects_v2").paginate(Bucket=self.bucket)
                for o in page.get("Contents", ())]
        return {k: c.get_object(Bucket=self.bucket, Key=k)["Body"].read() for k in keys}

    def heads(self) -> dict[str, str]:
        c = s3_client(self.endpoint)
        out = {}
        for k in self.objects():
            h = c.head_object(Bucket=self.bucket, Key=k)
            out[k] = json.dumps({f: h.get(f) for f in ("Metadata", "ContentType", "ContentDisposition",
                                                       "ContentEncoding", "ContentLanguage", "CacheControl")})
            tags = c.get_object_tagging(Bucket=self.bucket, Key=k).get("TagSet", [])
            out[k] += json.dumps(tags)
        return out


def _config(s: Setup, bucket: str, endpoint: str) -> None:
    s.config.write_text("")
    s.cli("keygen", "--out", str(s.base / "keys"), expect=0)
    s.config.write_text(
        f'home = "{s.home}"\nhost = "{HOST}"\n'
        f'[redaction]\nteam_key_file = "{s.base / "keys" / "team.key"}"\nusernames = ["{USER}"]\n'
        f'[encryption]\nrecipients_file = "{s.base / "keys" / "recipient.txt"}"\n'
        f'[store]\nurl = "s3://{bucket}/team"\nendpoint_url = "{endpoint}"\nregion = "{REGION}"\n'
        f'[state]\ndir = "{s.base / "state"}"\n')


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, s3_server: str) -> Run:  # noqa: F811
    r = Run.start(tmp_path_factory, s3_server, "s18leaks", build)
    metrics = r.s.base / "metrics.prom"
    for i in (1, 2):  # the second run sees nothing new: its own log lines and metrics
        out = r.cli(f"sync{i}", "sync", "--json", "--log-format", "json", "--metrics-file", str(metrics))
        r.syncs.append(json.loads(out))
    r.outputs["metrics"] = metrics.read_text()
    return r


def _hits(finder: Finder, named: dict[str, bytes]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, data in named.items():
        found = sorted(f"{w} ({h}) at {data[max(0, i - 60):i + 40]!r}" for w, h, i in finder.where(data))
        found += [f"{w} (in the name)" for w, _ in finder.find(name.encode())]
        if found:
            out[name] = found
    return out


def test_the_bucket_keys_bodies_and_metadata_hold_no_canary(run: Run) -> None:
    objs = run.objects()
    assert any(k.startswith("team/snapshots/") for k in objs) and len(objs) > 20
    assert not _hits(run.finder, objs)
    assert not _hits(run.finder, {k: v.encode() for k, v in run.heads().items()})
    for k in objs:  # keys are ids, host pseudonyms and timestamps only
        assert re.fullmatch(r"team/(archiver\.json|objects/[0-9a-f]{2}/[0-9a-f]{64}|snapshots/[0-9a-f]{16}/[0-9A-Za-z:._-]+)", k), k


def test_logs_and_metrics_hold_no_canary(run: Run) -> None:
    assert run.outputs["sync1:stderr"].strip(), "the run logged nothing: the check would prove nothing"
    for line in run.outputs["sync1:stderr"].splitlines():
        json.loads(line)  # --log-format json: every stderr line is a record
    assert not _hits(run.finder, {k: v.encode() for k, v in run.outputs.items()})


@pytest.fixture(scope="module")
def plain(run: Run) -> dict[str, bytes]:
    return {k: decrypt_object(run.s.identity, v) for k, v in run.objects().items() if not k.endswith("archiver.json")}


def test_the_decrypted_archive_holds_no_canary(run: Run, plain: dict[str, bytes]) -> None:
    assert not _hits(run.finder, plain)


# what a canary paragraph must read like once redacted: every word around the secrets as planted
_SHAPE = re.compile(
    rb"keep-(\d{3})-alpha see \S+?/user-[0-9a-f]{4}/w\1/notes\.md mail <EMAIL:[0-9a-f]{8}> gh <GITHUB_TOKEN:[0-9a-f]{8}> "
    rb"aws <AWS_ACCESS_KEY:[0-9a-f]{8}> ant <ANTHROPIC_API_KEY:[0-9a-f]{8}> slack <SLACK_TOKEN:[0-9a-f]{8}> "
    rb"jwt <JWT:[0-9a-f]{8}> stripe <STRIPE_SECRET_KEY:[0-9a-f]{8}> hook https://hooks\.slack\.com/services/"
    rb"<SLACK_WEBHOOK:[0-9a-f]{8}> db postgres://app_rw:<DB_PASSWORD:[0-9a-f]{8}>@db0*\d+\.corp\.internal:5432/main ")


def _tags_found(run: Run, data: bytes) -> set[str]:
    by_n = {int(v[5:8]): t for t, v in run.plan.neighbours.items()}
    return {by_n[int(n)] for n in re.findall(rb"keep-(\d{3})-alpha", data)}


def test_the_words_around_each_canary_survive_byte_for_byte(run: Run, plain: dict[str, bytes]) -> None:
    data = b"\n".join(plain.values())
    alphas = [m.start() for m in re.finditer(rb"keep-\d{3}-alpha", data)]
    shaped = {m.start() for m in _SHAPE.finditer(data)}
    env_ok = re.findall(rb"GITHUB_TOKEN=<GITHUB_TOKEN:[0-9a-f]{8}>\\?n?\s*AWS_ACCESS_KEY_ID=<AWS_ACCESS_KEY:[0-9a-f]{8}>", data)
    assert alphas and env_ok
    # a paragraph planted with its PEM key in a JSON string reads `key\n-----BEGIN`, escaped
    bad = [data[a:a + 160] for a in alphas if a not in shaped and not data[a:a + 40].endswith(b" ")]
    assert not bad
    assert not [data[a:a + 400] for a in alphas if a not in shaped]
    assert data.count(b"-----BEGIN RSA PRIVATE KEY-----") == len(re.findall(rb"<PRIVATE_KEY:[0-9a-f]{8}>", data)) > 0
    found = _tags_found(run, data)
    for harness in ("cc:", "codex:", "cursor:", "oc:", "pi:", "ds:"):  # each harness's places reached the archive
        assert len([t for t in found if t.startswith(harness)]) >= 5, (harness, sorted(found))
    for tag in ("cc:tool-result-named-body", "cc:file-history-named-body", "cursor:blob-json", "cursor:blob-protobuf",
                "cc:torn-mid"):
        assert tag in found, tag


@pytest.fixture(scope="module")
def reviewer(run: Run) -> dict[str, str]:
    idf = ("--identity", str(run.s.identity))
    out = {"ls": run.cli("ls", "ls", *idf), "ls-json": run.cli("ls-json", "ls", "--json", *idf),
           "lineage": run.cli("lineage", "lineage", *idf), "lineage-json": run.cli("lineage-json", "lineage", "--json", *idf)}
    keys = [s["key"] for s in json.loads(out["ls-json"])["sessions"]] if isinstance(json.loads(out["ls-json"]), dict) \
        else [s["key"] for s in json.loads(out["ls-json"])]
    mains = {}
    for k in keys:
        mains.setdefault(k.split(":")[0], k) if "@" not in k else None
    for h, k in sorted(mains.items()):
        out[f"export-{h}"] = run.cli(f"export-{h}", "export", k, "--format", "md", "--with-family", *idf)
    out["export-html"] = run.cli("export-html", "export", mains["claude-code"], "--format", "html", *idf)
    return out


def test_what_a_reviewer_reads_holds_no_canary(run: Run, reviewer: dict[str, str]) -> None:
    assert len([k for k in reviewer if k.startswith("export-")]) == 7
    for k, text in reviewer.items():
        assert len(text) > 200, (k, text[:300])
    assert not _hits(run.finder, {k: v.encode() for k, v in reviewer.items()})
    assert not _hits(run.finder, {k: v.encode() for k, v in run.outputs.items()})  # their stderr too
    exported = "".join(v for k, v in reviewer.items() if k.startswith("export-")).encode()
    assert _SHAPE.search(exported) and len(_tags_found(run, exported)) >= 20


def test_the_state_dir_keeps_plaintext_only_where_docs_security_says(run: Run) -> None:
    """docs/SECURITY.md §2: the state is a 0700 local cache whose `artifacts` (native paths) and
    `discovery_cache` (titles, cwds read from the harness files) are plaintext metadata; what it
    keeps of the run's results (`sessions`, `runs`, ...) is redacted, and no temp file is left."""
    import sqlite3

    state = run.s.base / "state"
    assert sorted(p.name for p in state.iterdir()) == ["lock", "state.db", "tmp"]
    assert not [p for p in (state / "tmp").rglob("*") if not p.is_dir()]  # run folders removed
    assert (state.stat().st_mode & 0o777) == 0o700 and ((state / "state.db").stat().st_mode & 0o777) == 0o600
    con = sqlite3.connect(f"file:{state / 'state.db'}?mode=ro", uri=True)
    try:
        tables = {t: repr(con.execute(f'SELECT * FROM "{t}"').fetchall()).encode()
                  for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        con.close()
    local = {"artifacts", "discovery_cache"}
    assert local <= set(tables) and b"keep-" in tables["sessions"]
    assert not _hits(run.finder, {t: v for t, v in tables.items() if t not in local})
