"""`archiver demo`: the whole job on generated sample sessions against an S3
endpoint started on 127.0.0.1 (moto's server), then lineage, restore and verify."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def embedded_s3() -> Iterator[str]:
    """moto's S3 server on loopback; yields the endpoint URL."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


def make_sample_home(home: Path, user: str) -> dict[str, Any]:
    """One generated home with every harness's sample sessions."""
    from archiver.demo import (claude_sample, codex_sample, cursor_sample, deepseek_sample, opencode_sample,
                               pi_sample)

    return {
        "claude-code": claude_sample.make_claude_home(home, user),
        "codex": codex_sample.make_codex_home(home, user),
        "pi": pi_sample.make_pi_home(home, user),
        "deepseek-harness": deepseek_sample.make_deepseek_home(home, user),
        "cursor-agent": cursor_sample.make_cursor_home(home, user),
        "opencode": opencode_sample.make_opencode_home(home, user),
    }


def _run(argv: list[str]) -> tuple[int, str]:
    from archiver.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    return code, buf.getvalue()


def run_demo(keep: Path | None, log: Callable[[str], None]) -> dict[str, Any]:
    """The whole job in `keep`, or in a temp folder removed at the end (it holds the reviewer's
    identity and the plaintext sample home: nothing of it stays unless asked for)."""
    base = keep or Path(tempfile.mkdtemp(prefix="archiver-demo-"))
    base.mkdir(parents=True, exist_ok=True)
    os.chmod(base, 0o700)
    env_backup = dict(os.environ)
    out: dict[str, Any] = {"dir": str(base) if keep else None}
    try:
        home, keys, restored = base / "home", base / "keys", base / "restored"
        for d in (home, restored):
            shutil.rmtree(d, ignore_errors=True)
        made = make_sample_home(home, "alice")
        log(f"[1/7] sample sessions written under {home} ({', '.join(made)})")
        code, _ = _run(["keygen", "--out", str(keys), "--force", "--json"])
        log(f"[2/7] keys in {keys}: identity.txt (reviewer), recipient.txt + team.key (collector)")
        with embedded_s3() as endpoint:
            os.environ.update({"AWS_ACCESS_KEY_ID": "demo", "AWS_SECRET_ACCESS_KEY": "demo", "AWS_DEFAULT_REGION": "us-east-1"})
            import boto3

            boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket="archiver-demo")
            log(f"[3/7] S3 endpoint (moto) on {endpoint}, bucket archiver-demo")
            cfg = base / "config.toml"
            cfg.write_text(
                f'home = "{home}"\nhost = "demo-laptop"\n\n'
                f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["alice"]\n\n'
                f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n\n'
                f'[store]\nurl = "s3://archiver-demo/team"\nendpoint_url = "{endpoint}"\nregion = "us-east-1"\n\n'
                f'[state]\ndir = "{base / "state"}"\n'
            )
            c = ["--config", str(cfg)]
            idf = ["--identity", str(keys / "identity.txt")]
            code, text = _run(["sync", *c, "--json"])
            sync1 = json.loads(text)
            log(f"[4/7] sync: {sync1['sessions']} bytes={sync1['bytes']} redactions={sum(sync1['redactions'].values())}")
            code2, text = _run(["sync", *c, "--json"])
            sync2 = json.loads(text)
            log(f"      second sync (nothing changed): uploaded {sync2['bytes']['uploaded']} bytes, snapshot {sync2['snapshot']}")
            _, text = _run(["lineage", *c, *idf, "--json"])
            lineage = json.loads(text)
            log(f"[5/7] lineage: {len(lineage['nodes'])} sessions, {len(lineage['edges'])} edges")
            _, tree = _run(["lineage", *c, *idf])  # through `log`: with --json stdout holds one document
            log(tree.rstrip("\n"))
            code_r, text = _run(["restore", "--all", "--to", str(restored), *c, *idf, "--json"])
            rest = json.loads(text)
            log(f"[6/7] restored {len(rest['sessions'])} sessions, {len(rest['files'])} files into {restored}")
            code_v, text = _run(["verify", "--read-data", *c, *idf, "--json"])
            ver = json.loads(text)
            log(f"[7/7] verify --read-data: {ver['manifests']} manifests, {ver['objects_read']} objects read, ok={ver['ok']}")
            out.update(sync=sync1, resync=sync2, lineage=lineage, restore=rest, verify=ver,
                       ok=code in (0,) and code_r == 0 and code_v == 0 and ver["ok"])
            out["review_page"] = _run_export(c, idf, base, rest, log, kept=keep is not None)
    finally:
        os.environ.clear()
        os.environ.update(env_backup)
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return out


def _run_export(c: list[str], idf: list[str], base: Path, rest: dict[str, Any], log: Callable[[str], None],
                kept: bool) -> str | None:
    """A readable, self-contained HTML page of the main Claude session and its subagents: its path
    when the demo's folder is kept, else None (the page goes with the folder)."""
    mains = sorted(k for k in rest["sessions"] if k.startswith("claude-code:") and "@" not in k)
    if not mains:
        return None
    page = base / "review.html"
    code, _ = _run(["export", mains[0], "--format", "html", "--with-family", "--out", str(page), *c, *idf])
    if code != 0:
        log(f"      export failed (exit {code})")
        return None
    if not kept:
        log(f"      review page exported ({page.stat().st_size:,} bytes; `archiver demo --dir DIR` keeps it, "
            "with the home, keys and restore)")
        return None
    log(f"      review page (open in a browser): {page}")
    return str(page)
