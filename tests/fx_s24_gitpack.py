"""An OpenCode snapshot git dir built with the real `git` CLI the way OpenCode's snapshot code
(packages/opencode/src/snapshot/index.ts) builds one: `git init` with GIT_DIR and GIT_WORK_TREE,
`core.autocrlf false` (and the other settings it sets), then per snapshot `git add .` and
`git write-tree` (trees with no commit or ref: every object is unreachable), and its cleanup
`git gc --prune=7.days`, here with `--cruft` (the default from git 2.43 on; 2.39 needs the flag).
Variants repack everything into one pack with deep deltas, as offsets (OFS_DELTA) or as ids
(REF_DELTA, `repack.useDeltaBaseOffset=false`).

Every round edits the files, so later versions are stored as deltas: a `.env` with a GitHub
token and an AWS key id, a source file with an e-mail and a home path in it, a JSON config with
the token and the path, and a binary file (kept as it is by design, so it holds nothing planted).
One commit object (`git commit-tree`, the author's e-mail planted) is made too.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

USER = "zorbloff"
ROUNDS = 5
VARIANTS = ("cruft", "repack-ofs", "repack-ref")
GIT = shutil.which("git")


@dataclass
class Snapshot:
    git_dir: Path
    work: Path
    trees: list[str] = field(default_factory=list)
    commit: str = ""
    needles: list[str] = field(default_factory=list)  # nothing of these may be left in the archive

    def git(self, *args: str, stdin: bytes | None = None) -> bytes:
        return run_git(self.git_dir, self.work, *args, stdin=stdin)


def git_env(git_dir: Path, work: Path | None = None) -> dict[str, str]:
    """git with no user or system configuration, fixed dates, nothing of the test runner's."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(git_dir.parent), "LC_ALL": "C",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(git_dir.parent / "no-gitconfig"),
           "GIT_DIR": str(git_dir), "GIT_AUTHOR_DATE": "1767261600 +0000", "GIT_COMMITTER_DATE": "1767261600 +0000"}
    if work is not None:
        env["GIT_WORK_TREE"] = str(work)
    return env


def run_git(git_dir: Path, work: Path | None, *args: str, stdin: bytes | None = None,
            extra_env: dict[str, str] | None = None) -> bytes:
    env = {**git_env(git_dir, work), **(extra_env or {})}
    r = subprocess.run([GIT or "git", *args], env=env, input=stdin, capture_output=True, timeout=120,
                       cwd=str(work or git_dir.parent))
    assert r.returncode == 0, (args, r.stderr.decode(errors="replace")[-2000:])
    return r.stdout


def planted(i: int, user: str = USER) -> dict[str, str]:
    h = hashlib.sha256(f"s24-gitpack-{i}".encode()).hexdigest()
    alnum = "".join(c.upper() if int(c, 16) % 2 else c for c in h) + "Kq7Zx9"
    return {
        "ghp": "ghp_" + alnum[:36],
        "akia": "AKIA" + h[:16].upper().translate(str.maketrans("0189ABCDEF", "QRSTUVWXYZ")),
        "email": f"dev{i}.{user}@quuxmail.net",
        "path": f"/home/{user}/clients/w{i:02d}/notes.txt",
    }


def needles_of(p: dict[str, str]) -> list[str]:
    return [p["ghp"][4:], p["akia"], p["email"].split("@")[0], p["path"].rsplit("/", 2)[0]]


def _source(i: int, p: dict[str, str]) -> str:
    lines = [f"def handler_{k}(event):\n    return event.get('field_{k}', {k}) * 2\n\n" for k in range(120)]
    lines.insert(40, f"# maintainer: {p['email']}\n")
    lines.insert(80, f"LOG_FILE = '{p['path']}'\n")
    lines.insert(60 + i, f"ROUND = {i}  # edited in round {i}\n")
    return "".join(lines)


def build_snapshot(base: Path, variant: str, user: str = USER) -> Snapshot:
    """base/work (the project) and base/snapshot/<hash> (its snapshot git dir), packed by
    `variant` (VARIANTS)."""
    work = base / "work"
    git_dir = base / "snapshot" / hashlib.sha1(str(work).encode()).hexdigest()
    (work / "src").mkdir(parents=True)
    git_dir.parent.mkdir(parents=True)
    snap = Snapshot(git_dir=git_dir, work=work)
    run_git(git_dir, work, "init", "-q")
    for key, value in (("core.autocrlf", "false"), ("core.longpaths", "true"), ("core.symlinks", "true"),
                       ("core.fsmonitor", "false")):
        snap.git("config", key, value)
    rng = random.Random(24)
    (work / "logo.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + rng.randbytes(3000))
    last: dict[str, str] = {}
    for i in range(ROUNDS):
        p = last = planted(i, user)
        snap.needles += needles_of(p)
        (work / ".env").write_text(f"GITHUB_TOKEN={p['ghp']}\nAWS_ACCESS_KEY_ID={p['akia']}\nDEBUG=1\n")
        (work / "src" / "app.py").write_text(_source(i, p))
        (work / "config.json").write_text(f'{{"token": "{p["ghp"]}", "log": "{p["path"]}", "round": {i}}}\n')
        snap.git("add", ".")
        snap.trees.append(snap.git("write-tree").decode().strip())
    author = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": last["email"], "GIT_COMMITTER_NAME": "Dev",
              "GIT_COMMITTER_EMAIL": last["email"]}
    snap.commit = run_git(git_dir, work, "commit-tree", snap.trees[-1], "-m", f"snapshot by {last['email']}",
                          extra_env=author).decode().strip()
    snap.needles.append(USER)
    if variant == "cruft":
        snap.git("gc", "-q", "--cruft", "--prune=7.days")
    elif variant in ("repack-ofs", "repack-ref"):
        # everything packed first (repack -a -k keeps only what is already packed), then again
        # into one pack with deltas found anew
        snap.git("gc", "-q", "--cruft", "--prune=7.days")
        offsets = "true" if variant == "repack-ofs" else "false"
        snap.git("-c", f"repack.useDeltaBaseOffset={offsets}", "repack", "-q", "-a", "-d", "-f", "-k",
                 "--depth=50", "--window=50")
    else:
        raise ValueError(variant)
    return snap


def pack_contents(git_dir: Path, pack: Path) -> dict[str, tuple[str, bool]]:
    """{object id: (type, stored as a delta)} of a pack, as `git verify-pack -v` lists it."""
    out = run_git(git_dir, None, "verify-pack", "-v", str(pack.with_suffix(".idx"))).decode()
    objects = {}
    for line in out.splitlines():
        cols = line.split()
        if len(cols) >= 5 and len(cols[0]) == 40 and cols[1] in ("blob", "tree", "commit", "tag"):
            objects[cols[0]] = (cols[1], len(cols) >= 7)  # depth and base follow a delta's offsets
    return objects


def loose_objects(git_dir: Path) -> list[Path]:
    return sorted(p for p in (git_dir / "objects").glob("[0-9a-f][0-9a-f]/*") if p.is_file())
