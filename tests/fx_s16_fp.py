"""Generator of the high-entropy but harmless text that fills coding sessions (s16 false-positive
hunt): lockfiles and checksums, git and gpg output, code artefacts (source maps, minified JS/CSS,
notebooks with images, SVG, hex dumps), ids of every kind in logs, cloud and cluster output, cache
paths and base64 images. None of it holds a secret or a person: every byte the redactor changes in
these texts is a false positive, except the spans a family names as `pii` (a project address in a
signing key's uid, which the e-mail rules take on purpose).

`samples(seed)` gives (family, text, pii); `carriers(text)` puts a text where each harness keeps
tool output and file reads (Claude Code tool_result / text block / numbered Read / Bash input / image
block, Codex function_call_output, pi toolResult, OpenCode tool state, Cursor tool-result, DeepSeek
tool/result, a notebook read). Formats follow the tools' own output; the few real values (npm
integrity strings and PyPI sha256 of packages fetched once while writing this) are marked as such.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import struct
import uuid
import zlib

Sample = tuple[str, str, list[str]]

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
B32_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
NANOID = "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict"

# Real values: `npm install --ignore-scripts is-number left-pad ms nanoid` (package-lock.json) and
# `pip download --no-deps six idna` + `pip hash` (Dec 2026)
REAL_NPM = {
    "is-number": ("7.0.0", "sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng=="),
    "left-pad": ("1.3.0", "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQGinBN9yTQT3bFlCBy/aVx2HrNcqQGsdot8ghrjyrvMCoEA=="),
    "ms": ("2.1.3", "sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA=="),
    "nanoid": ("5.1.16", "sha512-kVrnsrJqMR8+oLJnGEmSWw9BivK5mt7H3FZatVRjrc5wGqFYuBxX1yG7+A7Gi5AefkX6t/oCkizcQgpu0cY1dQ=="),
}
REAL_PYPI = {
    "six-1.17.0-py2.py3-none-any.whl": "4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274",
    "idna-3.20-py3-none-any.whl": "ab7ae7122974553370f0bdb919e1a960b2cd1bc1ef0276416d896db81c14582c",
}
NPM_NAMES = ("react", "lodash", "@babel/core", "@types/node", "chalk", "debug", "semver", "tslib", "zod",
             "@esbuild/linux-x64", "postcss", "picocolors", "undici-types", "ansi-styles", "supports-color")
GO_MODS = ("github.com/stretchr/testify", "golang.org/x/sys", "github.com/google/uuid", "gopkg.in/yaml.v3",
           "github.com/spf13/cobra", "go.uber.org/zap", "google.golang.org/protobuf", "github.com/davecgh/go-spew")
CRATES = ("serde", "serde_json", "tokio", "anyhow", "syn", "quote", "proc-macro2", "libc", "regex", "memchr")
PYPKGS = ("requests", "urllib3", "certifi", "charset-normalizer", "idna", "numpy", "packaging", "pydantic-core")
GEMS = ("rake", "rack", "nokogiri", "actionpack", "concurrent-ruby", "i18n", "minitest", "zeitwerk")


class Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def raw(self, n: int) -> bytes:
        return bytes(self.r.getrandbits(8) for _ in range(n))

    def hex(self, n: int) -> str:
        return self.raw((n + 1) // 2).hex()[:n]

    def b64(self, nbytes: int) -> str:
        return base64.b64encode(self.raw(nbytes)).decode()

    def s(self, alphabet: str, n: int) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def ver(self) -> str:
        return f"{self.r.randint(0, 9)}.{self.r.randint(0, 40)}.{self.r.randint(0, 30)}"

    def uuid4(self) -> str:
        return str(uuid.UUID(bytes=self.raw(16), version=4))


def _snowflake(g: Gen, epoch: int = 1288834974657) -> int:
    """A Snowflake id (X/Twitter epoch by default, Discord's when given): ms since the epoch, then 22 bits."""
    return (g.r.randint(1_700_000_000_000, 1_760_000_000_000) - epoch) << 22 | g.r.getrandbits(22)


def _png(g: Gen, w: int = 24, h: int = 16) -> bytes:
    """A real PNG (RGB, random pixels): what a matplotlib output or a screenshot is made of."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + g.raw(w * 3) for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _jpeg(g: Gen) -> bytes:
    """A JPEG's shape: SOI, JFIF APP0, a quantisation table, scan data, EOI."""
    return (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
            + b"\xff\xdb\x00\x43\x00" + g.raw(64) + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00"
            + g.raw(700).replace(b"\xff", b"\xff\x00") + b"\xff\xd9")


def _gif(g: Gen) -> bytes:
    return b"GIF89a\x10\x00\x10\x00\xf0\x00\x00" + g.raw(6) + b"!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x10\x00\x10\x00\x00\x02" + g.raw(200) + b"\x00;"


def _webp(g: Gen) -> bytes:
    body = b"VP8 " + struct.pack("<I", 300) + g.raw(300)
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body


def _avif(g: Gen) -> bytes:
    return (struct.pack(">I", 28) + b"ftypavif\x00\x00\x00\x00avifmif1miaf" + struct.pack(">I", 8 + 400) + b"mdat"
            + g.raw(400))


def _svg(g: Gen) -> str:
    pts = " ".join(f"L{g.r.uniform(0, 400):.3f},{g.r.uniform(0, 300):.3f}" for _ in range(30))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300">'
            f'<path fill="#{g.hex(6)}" stroke="#{g.hex(3)}" d="M10,10 {pts} Z"/></svg>')


_VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _vlq(n: int) -> str:
    v = (-n << 1) | 1 if n < 0 else n << 1
    out = ""
    while True:
        d = v & 31
        v >>= 5
        out += _VLQ[d | 32 if v else d]
        if not v:
            return out


def _mappings(g: Gen, lines: int) -> str:
    out = []
    for _ in range(lines):
        segs = [_vlq(g.r.randint(0, 40)) + _vlq(0) + _vlq(g.r.randint(-3, 5)) + _vlq(g.r.randint(-30, 30))
                + (_vlq(g.r.randint(0, 20)) if g.r.random() < 0.4 else "") for _ in range(g.r.randint(3, 25))]
        out.append(",".join(segs))
    return ";".join(out)


def samples(seed: int = 16) -> list[Sample]:  # noqa: C901, PLR0915
    g = Gen(seed)
    out: list[Sample] = []

    def add(family: str, text: str, *pii: str) -> None:
        out.append((family, text, list(pii)))

    sha1 = [g.hex(40) for _ in range(12)]

    # ---------------------------------------------------------------- lockfiles
    pkgs = {}
    for name in NPM_NAMES:
        v = g.ver()
        pkgs[f"node_modules/{name}"] = {
            "version": v, "resolved": f"https://registry.npmjs.org/{name}/-/{name.split('/')[-1]}-{v}.tgz",
            "integrity": "sha512-" + g.b64(64), "dev": True, "license": "MIT"}
    for name, (v, integ) in REAL_NPM.items():
        pkgs[f"node_modules/{name}"] = {"version": v, "resolved": f"https://registry.npmjs.org/{name}/-/{name}-{v}.tgz",
                                        "integrity": integ, "license": "MIT"}
    add("npm-package-lock", json.dumps({"name": "webapp", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
                                        "packages": {"": {"name": "webapp", "version": "1.0.0"}, **pkgs}}, indent=2) + "\n")
    deps = {n: {"version": g.ver(), "resolved": f"https://registry.npmjs.org/{n}/-/{n.split('/')[-1]}-1.0.0.tgz",
                "integrity": "sha1-" + g.b64(20)} for n in NPM_NAMES[:6]}
    add("npm-shrinkwrap-v1", json.dumps({"name": "cli", "lockfileVersion": 1, "requires": True, "dependencies": deps}, indent=2))
    add("yarn-lock-v1", "# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n\n\n" + "".join(
        f'"{n}@^{v}":\n  version "{v}"\n  resolved "https://registry.yarnpkg.com/{n}/-/{n.split("/")[-1]}-{v}.tgz#{g.hex(40)}"\n'
        f'  integrity sha512-{g.b64(64)}\n  dependencies:\n    ms "2.1.2"\n\n' for n, v in ((n, g.ver()) for n in NPM_NAMES)))
    add("yarn-berry-lock", '__metadata:\n  version: 8\n  cacheKey: 10c0\n\n' + "".join(
        f'"{n}@npm:^{v}":\n  version: {v}\n  resolution: "{n}@npm:{v}"\n  checksum: 10c0/{g.hex(128)}\n  languageName: node\n'
        f'  linkType: hard\n\n' for n, v in ((n, g.ver()) for n in NPM_NAMES[:8])))
    add("pnpm-lock", "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n\npackages:\n\n" + "".join(
        f"  {n}@{v}:\n    resolution: {{integrity: sha512-{g.b64(64)}}}\n    engines: {{node: '>=12'}}\n\n"
        for n, v in ((n, g.ver()) for n in NPM_NAMES)) + "  ms@2.1.3:\n    resolution: {tarball: https://codeload.github.com/vercel/ms/tar.gz/"
        + sha1[0] + "}\n")
    add("go-sum", "".join(f"{m} v{v} h1:{g.b64(32)}\n{m} v{v}/go.mod h1:{g.b64(32)}\n"
                          for m, v in ((m, g.ver()) for m in GO_MODS))
        + f"golang.org/x/net v0.0.0-20231010170311-{g.hex(12)} h1:{g.b64(32)}\n")
    add("cargo-lock", "# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 3\n\n"
        + "".join(f'[[package]]\nname = "{c}"\nversion = "{g.ver()}"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n'
                  f'checksum = "{g.hex(64)}"\ndependencies = [\n "memchr",\n]\n\n' for c in CRATES)
        + f'[[package]]\nname = "tree-sitter"\nversion = "0.20.10"\nsource = "git+https://github.com/tree-sitter/tree-sitter?rev={sha1[1][:7]}#{sha1[1]}"\n')
    add("poetry-lock", "".join(
        f'[[package]]\nname = "{p}"\nversion = "{g.ver()}"\ndescription = "x"\noptional = false\npython-versions = ">=3.8"\nfiles = [\n'
        f'    {{file = "{p.replace("-", "_")}-1.0-py3-none-any.whl", hash = "sha256:{g.hex(64)}"}},\n'
        f'    {{file = "{p.replace("-", "_")}-1.0.tar.gz", hash = "sha256:{g.hex(64)}"}},\n]\n\n' for p in PYPKGS)
        + f'[metadata]\nlock-version = "2.0"\npython-versions = "^3.11"\ncontent-hash = "{g.hex(64)}"\n')
    add("uv-lock", "version = 1\nrequires-python = \">=3.11\"\n\n" + "".join(
        f'[[package]]\nname = "{p}"\nversion = "1.2.3"\nsource = {{ registry = "https://pypi.org/simple" }}\n'
        f'sdist = {{ url = "https://files.pythonhosted.org/packages/{g.hex(2)}/{g.hex(2)}/{g.hex(60)}/{p}-1.2.3.tar.gz", '
        f'hash = "sha256:{g.hex(64)}", size = {g.r.randint(10000, 900000)}, upload-time = "2026-03-01T12:00:00Z" }}\n'
        f'wheels = [\n    {{ url = "https://files.pythonhosted.org/packages/{g.hex(2)}/{g.hex(2)}/{g.hex(60)}/{p}-1.2.3-py3-none-any.whl", '
        f'hash = "sha256:{g.hex(64)}", size = 4242 }},\n]\n\n' for p in PYPKGS))
    add("pip-hashes", "# This file is autogenerated by pip-compile with Python 3.11\n" + "".join(
        f"{n.split('-')[0]}=={n.split('-')[1]} \\\n    --hash=sha256:{h}\n" for n, h in REAL_PYPI.items()) + "".join(
        f"{p}==1.0 \\\n    --hash=sha256:{g.hex(64)} \\\n    --hash=sha256:{g.hex(64)}\n    # via -r requirements.in\n"
        for p in PYPKGS) + "$ pip hash dist/six-1.17.0-py2.py3-none-any.whl\ndist/six-1.17.0-py2.py3-none-any.whl:\n"
        f"--hash=sha256:{REAL_PYPI['six-1.17.0-py2.py3-none-any.whl']}\n")
    add("gemfile-lock", f"GIT\n  remote: https://github.com/rails/rails.git\n  revision: {sha1[2]}\n  branch: main\n  specs:\n"
        "    rails (7.2.0.alpha)\n\nGEM\n  remote: https://rubygems.org/\n  specs:\n"
        + "".join(f"    {m} ({g.ver()})\n" for m in GEMS) + "\nCHECKSUMS\n"
        + "".join(f"  {m} ({g.ver()}) sha256={g.hex(64)}\n" for m in GEMS) + "\nBUNDLED WITH\n   2.5.6\n")
    add("composer-lock", json.dumps({
        "_readme": ["This file locks the dependencies of your project to a known state"],
        "content-hash": g.hex(32), "packages": [
            {"name": f"vendor{i}/pkg", "version": "v1.2.3",
             "source": {"type": "git", "url": f"https://github.com/vendor{i}/pkg.git", "reference": g.hex(40)},
             "dist": {"type": "zip", "url": f"https://api.github.com/repos/vendor{i}/pkg/zipball/{g.hex(40)}",
                      "reference": g.hex(40), "shasum": ""}, "time": "2026-01-02T03:04:05+00:00"} for i in range(4)]},
        indent=4))
    add("flake-lock", json.dumps({"nodes": {
        "nixpkgs": {"locked": {"lastModified": 1733000000, "narHash": "sha256-" + g.b64(32), "owner": "NixOS",
                               "repo": "nixpkgs", "rev": g.hex(40), "type": "github"},
                    "original": {"owner": "NixOS", "ref": "nixos-unstable", "repo": "nixpkgs", "type": "github"}},
        "flake-utils": {"locked": {"lastModified": 1731533236, "narHash": "sha256-" + g.b64(32), "owner": "numtide",
                                   "repo": "flake-utils", "rev": g.hex(40), "type": "github"}},
        "root": {"inputs": {"nixpkgs": "nixpkgs", "flake-utils": "flake-utils"}}}, "root": "root", "version": 7}, indent=2))
    add("nix-store-paths", "".join(f"/nix/store/{g.s('0123456789abcdfghijklmnpqrsvwxyz', 32)}-{p}-{g.ver()}\n"
                                   for p in ("glibc", "openssl", "python3", "nodejs", "zlib"))
        + f"these 3 paths will be fetched (12.3 MiB download):\n  /nix/store/{g.s('0123456789abcdfghijklmnpqrsvwxyz', 32)}-curl-8.6.0-bin\n")

    # ---------------------------------------------------------------- digests and checksums
    dg = [g.hex(64) for _ in range(6)]
    add("docker-digests", f"FROM node:20-alpine@sha256:{dg[0]} AS build\nFROM gcr.io/distroless/nodejs20-debian12@sha256:{dg[1]}\n"
        f"$ docker pull python:3.11-slim\n3.11-slim: Pulling from library/python\n{g.hex(12)}: Pull complete\n"
        f"{g.hex(12)}: Pull complete\n{g.hex(12)}: Already exists\nDigest: sha256:{dg[2]}\n"
        "Status: Downloaded newer image for python:3.11-slim\n"
        "$ docker images --digests\nREPOSITORY   TAG       DIGEST                                                                    IMAGE ID       CREATED       SIZE\n"
        f"python       3.11-slim sha256:{dg[3]}   {g.hex(12)}   2 weeks ago   131MB\n"
        f"$ docker ps\nCONTAINER ID   IMAGE          COMMAND                  CREATED       STATUS       PORTS     NAMES\n"
        f"{g.hex(12)}   api:latest     \"docker-entrypoint.s…\"   3 hours ago   Up 3 hours   3000/tcp  api-1\n"
        f"$ docker build .\n#5 [2/4] RUN npm ci\n#5 sha256:{dg[4]} 1.2s done\n => => writing image sha256:{dg[5]}\n"
        f"$ docker inspect --format '{{{{.Id}}}}' api\nsha256:{g.hex(64)}\n")
    add("sri-attributes", f'<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.2/dist/js/bootstrap.bundle.min.js" '
        f'integrity="sha384-{g.b64(48)}" crossorigin="anonymous"></script>\n'
        f'<link rel="stylesheet" href="https://unpkg.com/leaflet@1.9.4/dist/leaflet.css" integrity="sha256-{g.b64(32)}" crossorigin="">\n'
        f'<script src="/app.js" integrity="sha512-{g.b64(64)} sha384-{g.b64(48)}"></script>\n')
    add("checksum-lines", "$ sha256sum dist/*\n" + "".join(f"{g.hex(64)}  dist/app-{i}.tar.gz\n" for i in range(4))
        + "$ shasum -a 1 build.zip\n" + f"{g.hex(40)}  build.zip\n$ md5sum *.iso\n{g.hex(32)}  ubuntu.iso\n"
        + f"$ b2sum x.bin\n{g.hex(128)}  x.bin\n$ shasum -a 512 -b f.bin\n{g.hex(128)} *f.bin\n"
        + f"$ openssl dgst -sha256 f.bin\nSHA2-256(f.bin)= {g.hex(64)}\n$ cksum f.bin\n{g.r.randint(10**8, 4 * 10**9)} 1048576 f.bin\n"
        + f"SHA256 (release.tar.gz) = {g.hex(64)}\n$ certutil -hashfile a.exe SHA256\nSHA256 hash of a.exe:\n{g.hex(64)}\n"
        + f"$ sha256sum -c SHA256SUMS\napp.tar.gz: OK\n$ base64 hash: {base64.b64encode(hashlib.sha256(b'x').digest()).decode()}\n")

    # ---------------------------------------------------------------- git
    log = "".join(f"commit {h}\nMerge: {h[:7]} {sha1[(i + 1) % 12][:7]}\nDate:   Mon Nov 30 10:0{i}:00 2026 +0000\n\n    "
                  f"Bump deps ({h[:10]})\n\n" for i, h in enumerate(sha1[:4]))
    add("git-log", log + "$ git log --oneline -5\n" + "".join(f"{h[:7]} (HEAD -> main) fix: ship it\n" for h in sha1[4:9])
        + f"$ git log --pretty=format:'%H %h %T' -1\n{sha1[0]} {sha1[0][:7]} {sha1[1]}\n")
    add("git-show-stat", f"commit {sha1[3]} (HEAD -> main, origin/main)\nDate:   Mon Nov 30 10:00:00 2026 +0000\n\n    Refactor\n\n"
        f" src/a.py | 4 ++--\n 1 file changed, 2 insertions(+), 2 deletions(-)\n\ndiff --git a/src/a.py b/src/a.py\n"
        f"index {g.hex(7)}..{g.hex(7)} 100644\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1,3 +1,3 @@\n-x = 1\n+x = 2\n"
        f"diff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..{g.hex(7)}\nBinary files /dev/null and b/logo.png differ\n")
    add("git-rev-parse-reflog", f"$ git rev-parse HEAD HEAD~1 origin/main\n{sha1[5]}\n{sha1[6]}\n{sha1[7]}\n"
        f"$ git reflog -4\n{sha1[5][:7]} HEAD@{{0}}: commit: fix\n{sha1[6][:7]} HEAD@{{1}}: rebase (finish): returning to refs/heads/main\n"
        f"{sha1[7][:7]} HEAD@{{2}}: checkout: moving from {sha1[8]} to main\n$ git stash list\nstash@{{0}}: WIP on main: {sha1[9][:7]} fix\n"
        f"$ git describe --tags\nv1.4.2-17-g{sha1[5][:12]}\n$ git ls-remote origin\n{sha1[10]}\tHEAD\n{sha1[10]}\trefs/heads/main\n"
        f"{sha1[11]}\trefs/pull/42/head\n$ git bisect good\nBisecting: 3 revisions left to test after this (roughly 2 steps)\n"
        f"[{sha1[4]}] Add cache\n$ git submodule status\n {sha1[3]} vendor/lib (v2.1.0-3-g{sha1[3][:7]})\n"
        f"$ git fsck\ndangling commit {sha1[2]}\n$ git cherry-pick {sha1[1][:12]}\n[main {g.hex(7)}] fix\n")
    add("git-ls-tree-cat-file", "$ git ls-tree HEAD\n" + "".join(
        f"{m} {t} {g.hex(40)}\t{n}\n" for m, t, n in (("100644", "blob", ".gitignore"), ("040000", "tree", "src"),
                                                       ("100755", "blob", "run.sh"), ("160000", "commit", "vendor/lib")))
        + f"$ git cat-file -p HEAD^{{tree}}\n100644 blob {g.hex(40)}\tREADME.md\n040000 tree {g.hex(40)}\tdocs\n"
        + f"$ git cat-file -p HEAD\ntree {g.hex(40)}\nparent {g.hex(40)}\n\nRelease\n$ git cat-file -t {g.hex(40)}\ntree\n"
        + f"$ git verify-pack -v .git/objects/pack/pack-{g.hex(40)}.idx | head -2\n{g.hex(40)} commit 245 160 12\n"
        + f"{g.hex(40)} blob   1204 512 172 1 {g.hex(40)}\n$ git count-objects -v\ncount: 12\n"
        + f"$ git hash-object README.md\n{g.hex(40)}\n$ git rev-parse --show-object-format\nsha256\n{g.hex(64)}\n")
    fpr = g.hex(40).upper()
    sub = g.hex(40).upper()
    uid = "<ftpmaster@debian.org>"
    add("gpg-list-keys", f"$ gpg --list-keys\n/root/.gnupg/pubring.kbx\n------------------------\npub   rsa4096 2023-01-02 [SC] [expires: 2031-01-01]\n"
        f"      {fpr}\nuid           [ unknown] Debian Archive Automatic Signing Key (12/bookworm) {uid}\n"
        f"sub   rsa4096 2023-01-02 [S] [expires: 2031-01-01]\n$ gpg --fingerprint --keyid-format long\n"
        f"pub   ed25519/{fpr[-16:]} 2024-05-01 [SC]\n      Key fingerprint = {' '.join(fpr[i:i + 4] for i in range(0, 20, 4))}  "
        f"{' '.join(fpr[i:i + 4] for i in range(20, 40, 4))}\nsub   cv25519/{sub[-16:]} 2024-05-01 [E]\n"
        f"$ gpg --with-colons --list-keys\npub:-:4096:1:{fpr[-16:]}:1672617600:1924992000::-:::scSC::::::23::0:\nfpr:::::::::{fpr}:\n"
        f"$ gpg --verify SHA256SUMS.gpg\ngpg: Signature made Mon Nov 30 10:00:00 2026 UTC\ngpg:                using RSA key {fpr}\n"
        f"$ apt-key list\n/etc/apt/trusted.gpg.d/docker.gpg\n pub   rsa4096 2017-02-22 [SCEA]\n      {' '.join(fpr[i:i + 4] for i in range(0, 40, 4))}\n"
        f"$ curl -fsSL https://download.docker.com/linux/ubuntu/gpg | gpg --dearmor -o /etc/apt/keyrings/docker.gpg\n"
        f"$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 SHA256:{g.b64(32).rstrip('=')} (ED25519)\n"
        f"The key fingerprint is:\nSHA256:{g.b64(32).rstrip('=')} deploy key\n"
        f"ED25519 key fingerprint is SHA256:{g.b64(32).rstrip('=')}.\n", uid)

    # ---------------------------------------------------------------- code artefacts
    add("source-map", json.dumps({"version": 3, "file": "main.3f9a1c2b.js", "sources": ["webpack://app/./src/index.tsx", "webpack://app/./src/App.tsx"],
                                  "sourcesContent": ["import React from 'react';\n"], "names": ["React", "App", "useState", "e", "t", "n"],
                                  "mappings": _mappings(g, 60), "sourceRoot": ""}))
    add("source-map-inline", f"!function(e){{var t={{}};e.exports=t}}();\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,"
        + base64.b64encode(json.dumps({"version": 3, "sources": ["a.ts"], "names": [], "mappings": _mappings(g, 12)}).encode()).decode() + "\n")
    chunks = {str(g.r.randint(10, 999)): g.hex(20) for _ in range(12)}
    add("minified-js", '(()=>{"use strict";var e,r,t,o={},n={};function a(e){var r=n[e];if(void 0!==r)return r.exports;'
        'var t=n[e]={id:e,loaded:!1,exports:{}};return o[e].call(t.exports,t,t.exports,a),t.loaded=!0,t.exports}'
        f'a.u=e=>"static/js/"+e+"."+{json.dumps(chunks, separators=(",", ":"))}[e]+".chunk.js",'
        f'a.miniCssF=e=>"static/css/"+e+"."+{{179:"{g.hex(8)}",592:"{g.hex(8)}"}}[e]+".css";'
        f'const k="{g.s(ALNUM, 64)}".split(""),s=[{",".join(str(g.r.randint(0, 2**31)) for _ in range(24))}];'
        f'var I="{g.b64(120)}";'
        f'function x(e){{return e.replace(/[^a-zA-Z0-9+/=]/g,"")}}var Q="0x{g.hex(64)}",O=atob("{g.b64(48)}");'
        f'e.exports={{_k:"{g.s(ALNUM + "_$", 40)}"}};}})();\n'
        # Bootstrap 5's minified event names
        'const NAME$5="scrollspy",DATA_KEY$2="bs.scrollspy",EVENT_KEY$2=`.${DATA_KEY$2}`,DATA_API_KEY=".data-api",'
        'EVENT_ACTIVATE=`activate${EVENT_KEY$2}`,EVENT_CLICK=`click${EVENT_KEY$2}`;\n')
    add("minified-css", ":root{" + ";".join(f"--c-{i}:#{g.hex(6)}" for i in range(20)) + "}"
        + "".join(f".css-{g.s('abcdefghijklmnopqrstuvwxyz0123456789', 6)}{{color:#{g.hex(6)};background:#{g.hex(3)}"
                  f";border-color:#{g.hex(8)}}}" for _ in range(20))
        + f"@font-face{{font-family:x;src:url(data:font/woff2;base64,{g.b64(300)}) format(\"woff2\")}}"
        + f".logo{{background:url(data:image/svg+xml;base64,{base64.b64encode(_svg(g).encode()).decode()})}}"
        + f".i{{background-image:url(\"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'%3E%3Cpath d='M0 0h{g.r.randint(1, 99)}v9z'/%3E%3C/svg%3E\")}}\n")
    add("webpack-output", "asset " + "\nasset ".join(
        f"static/js/{n}.{g.hex(20)}.js {g.r.randint(1, 400)} KiB [emitted] [immutable] [minimized] (name: {n})"
        for n in ("main", "vendors", "runtime")) + f"\nwebpack 5.89.0 compiled successfully in 4123 ms\nHash: {g.hex(20)}\n"
        + "File sizes after gzip:\n\n" + "".join(f"  {g.r.randint(10, 90)}.{g.r.randint(1, 99)} kB  build/static/js/{n}.{g.hex(8)}.chunk.js\n"
                                                  for n in (g.r.randint(100, 999) for _ in range(4)))
        + f"  vite v5.0.0 building for production...\n  dist/assets/index-{g.s(ALNUM + '_-', 8)}.js   142.13 kB\n"
        f"  dist/assets/index-{g.s(ALNUM + '_-', 8)}.css   8.31 kB\n  .next/static/chunks/pages/_app-{g.hex(16)}.js\n"
        f"  .next/static/{g.s(ALNUM + '_-', 21)}/_buildManifest.js\n")
    png = base64.b64encode(_png(g)).decode()
    jpg = base64.b64encode(_jpeg(g)).decode()
    nb = {"cells": [
        {"cell_type": "code", "execution_count": 3, "id": g.hex(8), "metadata": {}, "source": ["plt.plot(x, y)\n", "plt.show()"],
         "outputs": [{"output_type": "display_data", "metadata": {"needs_background": "light"},
                      "data": {"image/png": png, "text/plain": ["<Figure size 640x480 with 1 Axes>"]}}]},
        {"cell_type": "code", "execution_count": 4, "id": g.uuid4(), "metadata": {}, "source": ["Image('a.jpg')"],
         "outputs": [{"output_type": "execute_result", "execution_count": 4, "metadata": {},
                      "data": {"image/jpeg": jpg[:76 * 8] and "\n".join(jpg[i:i + 76] for i in range(0, len(jpg), 76)),
                               "text/plain": ["<IPython.core.display.Image object>"]}}]},
        {"cell_type": "code", "execution_count": 5, "id": g.hex(8), "metadata": {}, "source": ["display(SVG(s))"],
         "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"image/svg+xml": [_svg(g)], "text/plain": ["<SVG>"]}}]},
        {"cell_type": "code", "execution_count": 6, "id": g.hex(8), "metadata": {"scrolled": True},
         "source": ["df.head()"], "outputs": [{"output_type": "execute_result", "execution_count": 6, "metadata": {}, "data": {
             "application/vnd.jupyter.widget-view+json": {"model_id": g.hex(32), "version_major": 2, "version_minor": 0},
             "text/plain": ["   id                         hash\n0   1  " + g.hex(32)]}}]}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}, "nbformat": 4,
        "nbformat_minor": 5}
    add("ipynb-images", json.dumps(nb, indent=1))
    add("svg-path-data", f'<svg viewBox="0 0 24 24"><path d="M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2zm-2 15l-5-5 '
        f'1.41-1.41L10 14.17l7.59-7.59L19 8l-9 9z"/><path d="{" ".join(f"M{g.r.randint(0, 999)}.{g.r.randint(0, 99)} {g.r.randint(0, 999)}c" + ",".join(f"{g.r.uniform(-9, 9):.2f}" for _ in range(6)) for _ in range(20))}"/>'
        f'<linearGradient id="a{g.hex(6)}"><stop stop-color="#{g.hex(6)}" offset=".5"/></linearGradient>'
        f'<use href="#{g.s(ALNUM, 10)}"/><clipPath id="clip0_{g.r.randint(100, 9999)}_{g.r.randint(100, 9999)}"/></svg>\n')
    add("css-hex-colours", "".join(f".btn-{i} {{ color: #{g.hex(6)}; background: #{g.hex(3).upper()}; border: 1px solid #{g.hex(8)}; }}\n"
                                   for i in range(12)) + f"$primary: #{g.hex(6).upper()};\nconst theme = {{ bg: '#{g.hex(6)}', fg: 0x{g.hex(6)} }};\n")
    desc = (b"\n\x0bhello.proto\x12\x08helloworld\"\x1c\n\x0cHelloRequest\x12\x0c\n\x04name\x18\x01 \x01(\t2I\n\x07Greeter\x12>\n"
            b"\x08SayHello\x12\x18.helloworld.HelloRequest\x1a\x16.helloworld.HelloReply\"\x00" + g.raw(40) + b"b\x06proto3")
    esc = "".join(chr(b) if 32 <= b < 127 and b not in (39, 92) else f"\\x{b:02x}" for b in desc)
    add("protobuf-text", "$ protoc --decode_raw < msg.bin\n1: \"hello\"\n2 {\n  1: 1733000000\n  2: 0x" + g.hex(16) + "\n}\n3: \""
        + "".join(f"\\{b:03o}" for b in g.raw(24)) + "\"\n"
        + f"# hello_pb2.py\nDESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'{esc}')\n"
        + "$ grpcurl -plaintext localhost:50051 describe helloworld.Greeter\nhelloworld.Greeter is a service:\nservice Greeter {\n"
        + "  rpc SayHello ( .helloworld.HelloRequest ) returns ( .helloworld.HelloReply );\n}\n"
        + f"file_descriptor_set {{ file {{ name: \"a.proto\" options {{ go_package: \"x\" }} }} }}\nbytes_field: \"{g.b64(24)}\"\n")
    blob = g.raw(96)
    xxd = "".join(f"{i:08x}: " + " ".join(blob[i + j:i + j + 2].hex() for j in range(0, 16, 2)) + "  "
                  + "".join(chr(c) if 32 <= c < 127 else "." for c in blob[i:i + 16]) + "\n" for i in range(0, 96, 16))
    hexc = "".join(f"{i:08x}  " + " ".join(f"{c:02x}" for c in blob[i:i + 8]) + "  " + " ".join(f"{c:02x}" for c in blob[i + 8:i + 16])
                   + "  |" + "".join(chr(c) if 32 <= c < 127 else "." for c in blob[i:i + 16]) + "|\n" for i in range(0, 96, 16))
    od = "".join(f"{i:07o} " + " ".join(f"{int.from_bytes(blob[i + j:i + j + 2], 'little'):06o}" for j in range(0, 16, 2)) + "\n"
                 for i in range(0, 96, 16))
    pyrepr = "".join("\\x%02x" % c for c in blob[:40])
    symtab = b"".join(struct.pack("<IHHQQ", g.r.randint(1, 9999), 0x12, g.r.randint(1, 30),
                                  int(f"{g.r.randint(1, 9)}{g.r.randint(0, 9999):04d}", 16), 0x08) for _ in range(48))
    odx = "".join(f"{i:07o} " + " ".join(f"{int.from_bytes(symtab[i + j:i + j + 2], 'little'):04x}" for j in range(0, 16, 2)) + "\n"
                  for i in range(0, len(symtab), 16))
    xxds = "".join(f"{i:08x}: " + " ".join(symtab[i + j:i + j + 2].hex() for j in range(0, 16, 2)) + "  "
                   + "".join(chr(c) if 32 <= c < 127 else "." for c in symtab[i:i + 16]) + "\n" for i in range(0, len(symtab), 16))
    add("hex-dumps", f"$ xxd logo.bin | head\n{xxd}$ hexdump -C logo.bin | head\n{hexc}$ od logo.bin | head\n{od}"
        f"$ od -x --endian=little .dynsym.bin\n{odx}$ xxd .dynsym.bin\n{xxds}$ hexdump .dynsym.bin\n{odx}"
        f"$ xxd -p key.der\n{blob[:30].hex()}\n{blob[30:60].hex()}\n$ python -c 'print(data)'\nb'{pyrepr}'\n")

    # ---------------------------------------------------------------- ids in logs
    ulid = g.s("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)
    ksuid = g.s(ALNUM, 27)
    add("ids-in-logs", "".join(
        f"2026-11-30T10:00:0{i}.{g.r.randint(100, 999)}Z INFO request_id={g.uuid4()} trace_id={g.hex(32)} span_id={g.hex(16)} "
        f"ulid={g.s(B32_CROCKFORD, 26)} ksuid={g.s(ALNUM, 27)} nanoid={g.s(NANOID, 21)} oid={g.hex(24)} "
        f"snowflake={_snowflake(g)} cuid=c{g.s('abcdefghijklmnopqrstuvwxyz0123456789', 24)}\n" for i in range(6))
        + f'{{"level":"info","msg":"job done","jobId":"{ulid}","eventId":"{ksuid}","_id":{{"$oid":"{g.hex(24)}"}},'
        f'"correlationId":"{g.uuid4().upper()}","sessionId":"{g.s(ALNUM, 32)}","etag":"\\"{g.hex(32)}\\"","x-request-id":"{g.s(ALNUM, 20)}"}}\n'
        f"traceparent: 00-{g.hex(32)}-{g.hex(16)}-01\nObjectId(\"{g.hex(24)}\")\nSentry event id: {g.hex(32)}\n"
        f"Stripe idempotency key: {g.uuid4()}\nDiscord message {_snowflake(g, 1420070400000)}\n"
        f"cf-ray: {g.hex(16)}-FRA\nx-vercel-id: fra1::iad1::{g.s('abcdefghijklmnopqrstuvwxyz0123456789', 5)}-{g.r.randint(10**12, 10**13)}-{g.hex(12)}\n")
    add("k8s-manifest", f"apiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: \"2026-11-30T10:00:00Z\"\n"
        f"  generateName: api-7d4f8b9c6d-\n  labels:\n    app: api\n    pod-template-hash: 7d4f8b9c6d\n  name: api-7d4f8b9c6d-x2k9p\n"
        f"  namespace: default\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: api-7d4f8b9c6d\n"
        f"    uid: {g.uuid4()}\n  resourceVersion: \"{g.r.randint(10**5, 10**8)}\"\n  uid: {g.uuid4()}\n  annotations:\n"
        f"    kubectl.kubernetes.io/restartedAt: \"2026-11-30T09:59:00Z\"\n    checksum/config: {g.hex(64)}\n"
        f"spec:\n  containers:\n  - image: ghcr.io/acme/api@sha256:{g.hex(64)}\n    name: api\n"
        f"status:\n  containerStatuses:\n  - containerID: containerd://{g.hex(64)}\n    image: ghcr.io/acme/api:1.4.2\n"
        f"    imageID: ghcr.io/acme/api@sha256:{g.hex(64)}\n  podIP: 10.244.1.17\n"
        f"$ kubectl get pods\nNAME                   READY   STATUS    RESTARTS   AGE\napi-7d4f8b9c6d-x2k9p   1/1     Running   0          3h\n"
        f"api-7d4f8b9c6d-{g.s('bcdfghjklmnpqrstvwxz2456789', 5)}   1/1     Running   0          3h\n"
        f"$ kubectl get secret api-tls -o jsonpath='{{.metadata.uid}}'\n{g.uuid4()}\n"
        f"$ helm list\nNAME\tNAMESPACE\tREVISION\tUPDATED\tSTATUS\tCHART\napi\tdefault\t12\t2026-11-30\tdeployed\tapi-1.4.2\n")
    acct = str(g.r.randint(10**11, 10**12 - 1))
    add("terraform-plan", "Terraform will perform the following actions:\n\n  # aws_instance.web will be updated in-place\n"
        f"  ~ resource \"aws_instance\" \"web\" {{\n        id                     = \"i-{g.hex(17)}\"\n"
        f"      ~ ami                    = \"ami-{g.hex(17)}\" -> \"ami-{g.hex(17)}\"\n        arn                    = \"arn:aws:ec2:us-east-1:{acct}:instance/i-{g.hex(17)}\"\n"
        f"        subnet_id              = \"subnet-{g.hex(17)}\"\n        vpc_security_group_ids = [\"sg-{g.hex(17)}\"]\n"
        f"        primary_network_interface_id = \"eni-{g.hex(17)}\"\n        root_block_device {{ volume_id = \"vol-{g.hex(17)}\" }}\n    }}\n\n"
        f"  # aws_s3_bucket.assets must be replaced\n-/+ resource \"aws_s3_bucket\" \"assets\" {{\n      ~ id = \"assets-{g.hex(8)}\" -> (known after apply)\n"
        f"      ~ hosted_zone_id = \"Z3AQBSTGFYJSTF\"\n      ~ bucket_regional_domain_name = \"assets-{g.hex(8)}.s3.us-east-1.amazonaws.com\"\n    }}\n"
        f"  + resource \"google_compute_instance\" \"vm\" {{ + instance_id = \"{g.r.randint(10**18, 9 * 10**18)}\" }}\n"
        f"  + resource \"azurerm_resource_group\" \"rg\" {{ + id = \"/subscriptions/{g.uuid4()}/resourceGroups/rg-app\" }}\n"
        f"aws_lambda_function.fn: Modifications complete after 3s [id=fn-{g.hex(8)}]\nsource_code_hash = \"{g.b64(32)}\"\n"
        f"Plan: 1 to add, 1 to change, 1 to destroy.\nterraform.tfstate lineage = \"{g.uuid4()}\"\n"
        f"module.vpc.aws_route_table.private[0]: Refreshing state... [id=rtb-{g.hex(17)}]\n")
    add("aws-arns-request-ids", f"arn:aws:iam::{acct}:role/service-role/lambda-exec-{g.hex(8)}\narn:aws:lambda:us-east-1:{acct}:function:api:$LATEST\n"
        f"arn:aws:s3:::assets-bucket/uploads/{g.hex(32)}.png\narn:aws:sns:eu-west-1:{acct}:alerts:{g.uuid4()}\n"
        f"arn:aws:ecs:us-east-1:{acct}:task/prod/{g.hex(32)}\narn:aws:acm:us-east-1:{acct}:certificate/{g.uuid4()}\n"
        f"arn:aws:kms:us-east-1:{acct}:key/mrk-{g.hex(32)}\narn:aws:ecr:us-east-1:{acct}:repository/api\n"
        f"START RequestId: {g.uuid4()} Version: $LATEST\nEND RequestId: {g.uuid4()}\n"
        f"REPORT RequestId: {g.uuid4()}\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 128 MB\tMax Memory Used: 71 MB\n"
        f"XRAY TraceId: 1-{g.hex(8)}-{g.hex(24)}\tSegmentId: {g.hex(16)}\tSampled: true\n"
        f"x-amz-request-id: {g.hex(16).upper()}\nx-amz-id-2: {g.b64(57)}\nx-amz-cf-id: {g.s(ALNUM + '_-', 56)}==\n"
        f"An error occurred (AccessDenied) when calling the GetObject operation: Access Denied (Request ID: {g.hex(16).upper()})\n"
        f"{acct}.dkr.ecr.us-east-1.amazonaws.com/api@sha256:{g.hex(64)}\n"
        f'{{"ETag": "\\"{g.hex(32)}-{g.r.randint(2, 40)}\\"", "VersionId": "{g.s(ALNUM + "._", 32)}"}}\n'
        f"CloudFront distribution E{g.s('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 13)} cache invalidation I{g.s('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 13)}\n"
        f"cloudformation stack id: arn:aws:cloudformation:us-east-1:{acct}:stack/app/{g.uuid4()}\n")
    add("bucket-urls", f"upload: dist/app.js to s3://assets-bucket/static/{g.hex(40)}/app.js\n"
        f"https://assets-bucket.s3.amazonaws.com/uploads/{g.hex(2)}/{g.hex(2)}/{g.hex(64)}.webp\n"
        f"https://storage.googleapis.com/artifacts-acme/cas/{g.hex(64)}\ngs://builds-acme/{g.uuid4()}/output.tar.gz\n"
        f"https://objects.githubusercontent.com/github-production-release-asset-2e65be/{g.r.randint(10**8, 10**9)}/{g.uuid4()}\n"
        f"https://codeload.github.com/acme/api/tar.gz/{g.hex(40)}\nhttps://github.com/acme/api/commit/{g.hex(40)}\n"
        f"https://github.com/acme/api/blob/{g.hex(40)}/src/main.py#L10-L20\nhttps://gist.github.com/acme/{g.hex(32)}\n"
        f"https://cdn.example.net/_next/image?url=%2Fimg%2F{g.hex(16)}.png&w=640&q=75\n"
        f"https://i.imgur.com/{g.s(ALNUM, 7)}.png\nhttps://pbs.twimg.com/media/{g.s(ALNUM + '_-', 15)}?format=jpg\n"
        f"https://www.youtube.com/watch?v={g.s(ALNUM + '_-', 11)}\nhttps://files.pythonhosted.org/packages/{g.hex(2)}/{g.hex(2)}/{g.hex(60)}/pkg-1.0.tar.gz\n"
        f"https://registry.npmjs.org/react/-/react-18.2.0.tgz#{g.hex(40)}\n")
    add("cache-paths", f"~/.cache/pip/http-v2/{'/'.join(g.hex(1) for _ in range(5))}/{g.hex(51)}\n"
        f"~/.cache/pip/wheels/{g.hex(2)}/{g.hex(2)}/{g.hex(60)}/pkg-1.0-py3-none-any.whl\n"
        f"node_modules/.cache/babel-loader/{g.hex(64)}.json\nnode_modules/.cache/webpack/default-development/{g.r.randint(0, 20)}.pack\n"
        f"node_modules/.vite/deps/chunk-{g.s(ALNUM, 8).upper()}.js?v={g.hex(8)}\n"
        f"~/.cache/bazel/_bazel_root/{g.hex(32)}/execroot/_main/bazel-out/k8-fastbuild/bin/app\n"
        f"~/.gradle/caches/modules-2/files-2.1/com.google.guava/guava/32.1.2-jre/{g.hex(40)}/guava-32.1.2-jre.jar\n"
        f"~/.m2/repository/org/slf4j/slf4j-api/2.0.9/slf4j-api-2.0.9.jar.sha1\n~/.cargo/registry/src/index.crates.io-{g.hex(16)}/serde-1.0.193/\n"
        f"~/.npm/_cacache/content-v2/sha512/{g.hex(2)}/{g.hex(2)}/{g.hex(124)}\n~/.npm/_cacache/index-v5/{g.hex(2)}/{g.hex(2)}/{g.hex(60)}\n"
        f"~/go/pkg/mod/cache/download/github.com/google/uuid/@v/v1.6.0.ziphash\n~/.cache/go-build/{g.hex(2)}/{g.hex(64)}-d\n"
        f"~/.cache/huggingface/hub/models--gpt2/snapshots/{g.hex(40)}/config.json\n~/.cache/pre-commit/repo{g.s('abcdefghijklmnopqrstuvwxyz0123456789_', 8)}/\n"
        f".git/objects/{g.hex(2)}/{g.hex(38)}\n.pytest_cache/v/cache/nodeids\n__pycache__/main.cpython-311.pyc\n"
        f"~/.cache/ms-playwright/chromium-{g.r.randint(1000, 1200)}/chrome-linux/chrome\n/tmp/tmp{g.s('abcdefghijklmnopqrstuvwxyz0123456789_', 8)}/\n"
        f"~/Library/Caches/com.apple.dt.Xcode/DerivedData/App-{g.s('abcdefghijklmnopqrstuvwxyz', 28)}/Build\n"
        f"~/.docker/buildx/refs/default/default/{g.s('abcdefghijklmnopqrstuvwxyz0123456789', 25)}\n")
    gif = base64.b64encode(_gif(g)).decode()
    webp = base64.b64encode(_webp(g)).decode()
    avif = base64.b64encode(_avif(g)).decode()
    svg64 = base64.b64encode(_svg(g).encode()).decode()
    add("data-uris", f'<img src="data:image/png;base64,{png}">\n<img src="data:image/jpeg;base64,{jpg}" alt="x">\n'
        f'background: url("data:image/gif;base64,{gif}");\n<img src="data:image/webp;base64,{webp}">\n'
        f'<img src="data:image/avif;base64,{avif}">\n<img src="data:image/svg+xml;base64,{svg64}">\n'
        f'<img src="data:image/svg+xml;utf8,{_svg(g)}">\n![chart](data:image/png;base64,{png})\n')
    add("base64-image-bare", f"$ base64 -w0 screenshot.png\n{png}\n$ base64 photo.jpg\n"
        + "\n".join(jpg[i:i + 76] for i in range(0, len(jpg), 76)) + f"\n$ base64 -w0 anim.gif\n{gif}\n$ base64 -w0 a.webp\n{webp}\n"
        + f"$ base64 -w0 a.avif\n{avif}\n")
    # ---------------------------------------------------------------- more lockfiles and manifests
    nix32 = "0123456789abcdfghijklmnpqrsvwxyz"
    add("more-lockfiles",
        f'# bun.lock\n    "ms": ["ms@2.1.3", "", {{}}, "sha512-{g.b64(64)}"],\n'
        f'# deno.lock\n  "remote": {{\n    "https://deno.land/std@0.200.0/path/mod.ts": "{g.hex(64)}",\n'
        f'    "https://deno.land/std@0.200.0/fs/mod.ts": "{g.hex(64)}"\n  }},\n  "npm": {{ "ms@2.1.3": {{ "integrity": "sha512-{g.b64(64)}" }} }}\n'
        f'# mix.lock\n  "jason": {{:hex, :jason, "1.4.1", "{g.hex(64)}", [:mix], [{{:decimal, "~> 1.0 or ~> 2.0", [hex: :decimal, repo: "hexpm", optional: true]}}], "hexpm", "{g.hex(64)}"}},\n'
        f'# pubspec.lock\n  http:\n    dependency: "direct main"\n    description:\n      name: http\n      sha256: "{g.hex(64)}"\n      url: "https://pub.dev"\n    source: hosted\n'
        f'# packages.lock.json\n      "Newtonsoft.Json": {{ "type": "Direct", "requested": "[13.0.3, )", "resolved": "13.0.3", "contentHash": "{g.b64(64)}" }}\n'
        f'# Package.resolved\n      "location" : "https://github.com/apple/swift-argument-parser",\n      "state" : {{ "revision" : "{g.hex(40)}", "version" : "1.3.0" }}\n'
        f'# .cargo-checksum.json\n{{"files":{{"Cargo.toml":"{g.hex(64)}","src/lib.rs":"{g.hex(64)}"}},"package":"{g.hex(64)}"}}\n'
        f'# go mod download -json\n{{"Path": "golang.org/x/text", "Version": "v0.14.0", "Sum": "h1:{g.b64(32)}", "GoModSum": "h1:{g.b64(32)}"}}\n'
        f'# Chart.lock\ndependencies:\n- name: redis\n  repository: oci://registry-1.docker.io/bitnamicharts\n  version: 18.6.1\ndigest: sha256:{g.hex(64)}\ngenerated: "2026-11-30T10:00:00Z"\n'
        f'# .gitattributes LFS pointer\nversion https://git-lfs.github.com/spec/v1\noid sha256:{g.hex(64)}\nsize {g.r.randint(1000, 10**8)}\n'
        f'# Homebrew formula\n  url "https://github.com/x/y/archive/refs/tags/v1.2.tar.gz"\n  sha256 "{g.hex(64)}"\n'
        f'  bottle do\n    sha256 cellar: :any, arm64_sonoma: "{g.hex(64)}"\n    sha256 x86_64_linux: "{g.hex(64)}"\n  end\n'
        f'# gradle/verification-metadata.xml\n<component group="com.google.guava" name="guava" version="32.1.2-jre">\n'
        f'  <artifact name="guava-32.1.2-jre.jar"><sha256 value="{g.hex(64)}" origin="Generated by Gradle"/></artifact>\n</component>\n'
        f'# conda list --explicit\nhttps://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.0-py311h64a7726_0.conda#{g.hex(32)}\n'
        f'# conda-lock.yml\n    hash:\n      md5: {g.hex(32)}\n      sha256: {g.hex(64)}\n'
        f'# WORKSPACE\nhttp_archive(\n    name = "rules_go",\n    sha256 = "{g.hex(64)}",\n    urls = ["https://github.com/bazelbuild/rules_go/releases/download/v0.41.0/rules_go-v0.41.0.zip"],\n)\n'
        f'# flake.nix / default.nix\n  src = fetchFromGitHub {{ owner = "x"; repo = "y"; rev = "{g.hex(40)}"; hash = "sha256-{g.b64(32)}"; }};\n'
        f'  src = fetchurl {{ url = "mirror://gnu/hello/hello-2.12.tar.gz"; sha256 = "{g.s(nix32, 52)}"; }};\n'
        f'  vendorHash = "sha256-{g.b64(32)}";\n  cargoHash = "sha256-{g.b64(32)}";\n'
        f'# Debian Packages\nPackage: curl\nVersion: 8.5.0-2\nFilename: pool/main/c/curl/curl_8.5.0-2_amd64.deb\nSize: 315468\n'
        f'MD5sum: {g.hex(32)}\nSHA256: {g.hex(64)}\nDescription-md5: {g.hex(32)}\n')
    rec = "".join(f"six{'.py' if i == 0 else f'-1.17.0.dist-info/{n}'},sha256={base64.urlsafe_b64encode(g.raw(32)).decode().rstrip('=')},{g.r.randint(100, 40000)}\n"
                  for i, n in enumerate(("", "METADATA", "WHEEL", "top_level.txt", "LICENSE")))
    add("pip-install-record", "$ pip install ./six\nBuilding wheels for collected packages: six\n  Building wheel for six (pyproject.toml) ... done\n"
        f"  Created wheel for six: filename=six-1.17.0-py2.py3-none-any.whl size=11050 sha256={g.hex(64)}\n"
        f"  Stored in directory: /tmp/pip-ephem-wheel-cache-{g.s('abcdefghijklmnopqrstuvwxyz0123456789_', 8)}/wheels/{g.hex(2)}/{g.hex(2)}/{g.hex(60)}\n"
        f"Successfully installed six-1.17.0\n$ cat six-1.17.0.dist-info/RECORD\n{rec}six-1.17.0.dist-info/RECORD,,\n"
        f"  Downloading https://files.pythonhosted.org/packages/{g.hex(2)}/{g.hex(2)}/{g.hex(60)}/numpy-1.26.0.tar.gz (15.7 MB)\n"
        f"  Using cached numpy-1.26.0-cp311-cp311-manylinux_2_17_x86_64.whl.metadata (61 kB)\n")
    add("ci-logs", f"##[group]Run actions/checkout@{g.hex(40)}\nDownload action repository 'actions/checkout@v4' (SHA:{g.hex(40)})\n"
        f"Download action repository 'actions/setup-node@v4' (SHA:{g.hex(40)})\nCache restored from key: node-cache-Linux-x64-npm-{g.hex(64)}\n"
        f"Cache Size: ~42 MB (44040192 B)\nReceived 44040192 of 44040192 (100.0%), 41.9 MBs/sec\n"
        f"  GITHUB_SHA: {g.hex(40)}\n  GITHUB_RUN_ID: {g.r.randint(10**9, 10**10)}\n"
        f"  artifact-id: {g.r.randint(10**8, 10**9)}\n  artifact-digest: {g.hex(64)}\n"
        f"Pushing image ghcr.io/acme/api:sha-{g.hex(7)}\nsha-{g.hex(7)}: digest: sha256:{g.hex(64)} size: 2413\n"
        f"Job {g.uuid4()} completed with result: Succeeded\n"
        f"##[debug]Evaluating: format('{{0}}-{{1}}', runner.os, hashFiles('**/package-lock.json'))\n"
        f"##[debug]Result: 'Linux-{g.hex(64)}'\ncircleci: Restoring cache v1-deps-{g.s(ALNUM + '_-', 27)}=\n"
        f"buildkite: Uploading artifact {g.uuid4()} logs/build.log (2.1 KiB)\n")
    fpr2 = g.hex(40).upper()
    cert = base64.b64encode(b"0\x82\x03" + g.raw(700)).decode()
    pgp = base64.b64encode(b"\x99\x01\x8d\x04" + g.raw(400)).decode()
    add("public-keys-certs", "$ gpg --armor --export 0x" + fpr2[-16:] + "\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
        + "\n".join(pgp[i:i + 64] for i in range(0, len(pgp), 64)) + f"\n={g.b64(3)}\n-----END PGP PUBLIC KEY BLOCK-----\n"
        + "$ openssl s_client -connect example.org:443 -showcerts </dev/null\n-----BEGIN CERTIFICATE-----\n"
        + "\n".join(cert[i:i + 64] for i in range(0, len(cert), 64)) + "\n-----END CERTIFICATE-----\n"
        + f"$ ssh-keyscan github.com\ngithub.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.b64(24)[:44]}\n"
        + f"github.com ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{g.b64(60)[:76]}\n"
        + f"|1|{g.b64(20)}|{g.b64(20)} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.b64(24)[:44]}\n"
        + f"$ openssl x509 -noout -fingerprint -sha256 -in cert.pem\nsha256 Fingerprint={':'.join(g.hex(2).upper() for _ in range(32))}\n"
        + f"        Serial Number:\n            {':'.join(g.hex(2) for _ in range(16))}\n"
        + f"            X509v3 Subject Key Identifier: \n                {':'.join(g.hex(2).upper() for _ in range(20))}\n"
        + f"$ age-keygen -y key.txt\nage1{g.s('qpzry9x8gf2tvdw0s3jn54khce6mua7l', 58)}\n"
        + f"$ minisign -Vm f.tar.gz -P RWQ{g.b64(39)[:53]}\n")
    add("numeric-ids", f"torch.manual_seed({g.r.randint(10**18, 9 * 10**18)})\nnp.random.seed({g.r.randint(10**15, 9 * 10**15)})\n"
        f"random seed: {g.r.randint(10**15, 9 * 10**15)}\n"
        f'{{"instance_id": "{g.r.randint(10**18, 9 * 10**18)}", "project_number": {g.r.randint(10**11, 10**12)}}}\n'
        f"  id: '{g.r.randint(10**18, 9 * 10**18)}'\n  targetId: {g.r.randint(10**18, 9 * 10**18)}\n"
        f"inode={g.r.randint(10**15, 9 * 10**15)} dev=2049\n  st_ino: {g.r.randint(10**15, 9 * 10**15)}\n"
        f"x-datadog-trace-id: {g.r.randint(10**18, 9 * 10**18)}\nx-datadog-parent-id: {g.r.randint(10**18, 9 * 10**18)}\n"
        f"Tweet https://x.com/acme/status/1{g.r.randint(10**17, 9 * 10**17)}\nSteam id 7656119{g.r.randint(10**9, 10**10 - 1)}\n"
        f"nonce: {g.r.randint(10**15, 9 * 10**15)}\nhash={g.r.randint(10**15, 9 * 10**15)}\n")
    add("more-code-artefacts",
        f'{{"src/main.ts": {{"file": "assets/main-{g.hex(8)}.js", "css": ["assets/main-{g.hex(8)}.css"], "isEntry": true}}}}\n'
        f'<script nonce="{g.b64(16)}">window.__NEXT_DATA__={{"buildId":"{g.s(ALNUM + "_-", 21)}"}}</script>\n'
        f'Content-Security-Policy: script-src \'sha256-{g.b64(32)}\' \'nonce-{g.b64(16)}\'\n'
        f'const wasm = "AGFzbQEAAAAB{g.b64(180)}";\n'
        f'"private": "eyJzY2hlbWFfdmVyc2lvbiI6IjEifQ==",\n'
        f'  "lottie": {{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":512,"h":512,"nm":"x","layers":[{{"ks":{{"o":{{"a":0,"k":100}}}}}}]}}\n'
        f"  static const uint8_t kTable[] = {{{', '.join(f'0x{b:02x}' for b in g.raw(48))}}};\n"
        f"const char *blob = \"{''.join(chr(92) + 'x' + f'{b:02x}' for b in g.raw(40))}\";\n"
        f'emoji: "\\ud83d\\ude00", escaped: "{"".join(chr(92) + "u" + g.hex(4) for _ in range(8))}"\n'
        f"__webpack_require__.p + \"{g.hex(20)}.worker.js\"\n"
        f"//# debugId={g.uuid4()}\n"
        f'"sourceMappingURL":"main.{g.hex(8)}.js.map","version":"{g.hex(7)}"\n')
    # ---------------------------------------------------------------- signatures, registries, more ids
    sig = base64.b64encode(b"\x88\x75\x04\x00\x16\x0a\x00\x1d\x16\x21\x04" + g.raw(110)).decode()
    sshsig = base64.b64encode(b"SSHSIG\x00\x00\x00\x01\x00\x00\x003\x00\x00\x00\x0bssh-ed25519" + g.raw(150)).decode()
    add("signed-commits", f"$ git cat-file -p HEAD\ntree {g.hex(40)}\nparent {g.hex(40)}\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n"
        + "".join(f" {sig[i:i + 64]}\n" for i in range(0, len(sig), 64)) + f" ={g.b64(3)}\n -----END PGP SIGNATURE-----\n\nRelease 1.2\n"
        + "$ git cat-file -p v1.2^{commit}\ngpgsig -----BEGIN SSH SIGNATURE-----\n"
        + "".join(f" {sshsig[i:i + 70]}\n" for i in range(0, len(sshsig), 70)) + " -----END SSH SIGNATURE-----\n"
        + f"$ git log --show-signature -1\ncommit {g.hex(40)}\ngpg: Signature made Mon Nov 30 10:00:00 2026 UTC\n"
        + f"gpg:                using EDDSA key {g.hex(40).upper()}\ngpg: Good signature from \"GitHub <noreply@github.com>\" [unknown]\n"
        + f"Primary key fingerprint: {' '.join(g.hex(4).upper() for _ in range(10))}\n"
        + f"$ cosign verify ghcr.io/acme/api@sha256:{g.hex(64)}\n"
        + json.dumps([{"critical": {"identity": {"docker-reference": "ghcr.io/acme/api"}, "image": {"docker-manifest-digest": "sha256:" + g.hex(64)},
                                    "type": "cosign container image signature"}, "optional": {"Bundle": {"SignedEntryTimestamp": g.b64(70),
                       "Payload": {"body": g.b64(200), "integratedTime": 1733000000, "logIndex": 51234567, "logID": g.hex(64)}}}}]) + "\n")
    add("npm-packument", json.dumps({"name": "ms", "dist-tags": {"latest": "2.1.3"}, "versions": {"2.1.3": {"dist": {
        "integrity": REAL_NPM["ms"][1], "shasum": g.hex(40), "tarball": "https://registry.npmjs.org/ms/-/ms-2.1.3.tgz", "fileCount": 4,
        "unpackedSize": 6721, "signatures": [{"keyid": "SHA256:jl3bwswu80PjjokCgh0o2w5c2U4LhQAE57gj9cz1kzA", "sig": "MEUCIQ" + g.b64(66)}],
        "npm-signature": "-----BEGIN PGP SIGNATURE-----\r\nVersion: OpenPGP.js v3.0.4\r\nComment: https://openpgpjs.org\r\n\r\n"
                         + "\r\n".join(sig[i:i + 64] for i in range(0, len(sig), 64)) + "\r\n=" + g.b64(3) + "\r\n-----END PGP SIGNATURE-----\r\n"},
        "_npmUser": {"name": "vercel-release-bot"}, "gitHead": g.hex(40), "_nodeVersion": "20.9.0"}},
        "_rev": f"{g.r.randint(100, 999)}-{g.hex(32)}", "_id": "ms"}, indent=2)
        + '\n{"key":"make-fetch-happen:request-cache:https://registry.npmjs.org/ms/-/ms-2.1.3.tgz","integrity":"' + REAL_NPM["ms"][1]
        + f'","time":1733000000123,"size":6842,"metadata":{{"url":"https://registry.npmjs.org/ms/-/ms-2.1.3.tgz","reqHeaders":{{}},'
        f'"resHeaders":{{"cache-control":"public, must-revalidate, max-age=31557600","etag":"\\"{g.hex(32)}\\"","last-modified":"Wed, 01 Feb 2023 00:00:00 GMT"}}}}}}\n')
    add("terraform-lock-hcl", '# This file is maintained automatically by "terraform init".\n\nprovider "registry.terraform.io/hashicorp/aws" {\n'
        '  version     = "5.31.0"\n  constraints = "~> 5.0"\n  hashes = [\n' + "".join(f'    "h1:{g.b64(32)}",\n' for _ in range(2))
        + "".join(f'    "zh:{g.hex(64)}",\n' for _ in range(6)) + "  ]\n}\n")
    add("os-packages", "$ apk update\nfetch https://dl-cdn.alpinelinux.org/alpine/v3.19/main/x86_64/APKINDEX.tar.gz\n"
        f"$ tar -xzOf APKINDEX.tar.gz APKINDEX | head\nC:Q1{g.b64(20)}\nP:musl\nV:1.2.4_git20230717-r4\nA:x86_64\nS:383152\nI:622592\n"
        f"$ sudo apt-get update\nErr:3 https://download.docker.com/linux/ubuntu jammy InRelease\n  The following signatures couldn't be verified because the public key is not available: NO_PUBKEY {g.hex(16).upper()}\n"
        f"W: GPG error: https://packages.cloud.google.com/apt cloud-sdk InRelease: NO_PUBKEY {g.hex(16).upper()}\n"
        f"$ rpm -qi bash | grep Signature\nSignature   : RSA/SHA256, Tue 14 Nov 2026 10:00:00 AM UTC, Key ID {g.hex(16)}\n"
        f"$ rpm -K pkg.rpm\npkg.rpm: digests signatures OK\n$ dnf install x\nImporting GPG key 0x{g.hex(8).upper()}:\n"
        f" Fingerprint: {' '.join(g.hex(4).upper() for _ in range(10))}\n$ pacman-key --list-sigs\npub   rsa4096 2011-09-23 [SC]\n      {g.hex(40).upper()}\n"
        f"$ brew install jq\n==> Downloading https://ghcr.io/v2/homebrew/core/jq/blobs/sha256:{g.hex(64)}\n"
        f"Already downloaded: ~/Library/Caches/Homebrew/downloads/{g.hex(64)}--jq--1.7.1.arm64_sonoma.bottle.tar.gz\n")
    add("service-ids", f"customer cus_{g.s(ALNUM, 14)} paid with pi_3{g.s(ALNUM, 23)} (charge ch_3{g.s(ALNUM, 23)}), "
        f"event evt_1{g.s(ALNUM, 23)}, price price_1{g.s(ALNUM, 23)}, sub_1{g.s(ALNUM, 23)}, in_1{g.s(ALNUM, 23)}, "
        f"pm_1{g.s(ALNUM, 23)}, prod_{g.s(ALNUM, 14)}, seti_1{g.s(ALNUM, 23)}\n"
        f'{{"data": {{"repository": {{"id": "R_kgDO{g.s(ALNUM + "_-", 6)}", "pullRequest": {{"id": "PR_kwDO{g.s(ALNUM + "_-", 14)}", '
        f'"node_id": "MDExOlB1bGxSZXF1ZXN0{g.s(ALNUM, 12)}", "author": {{"id": "MDQ6VXNlcjE{g.s(ALNUM, 4)}"}}}}, "issue": {{"id": "I_kwDO{g.s(ALNUM + "_-", 14)}"}}}}}}}}\n'
        f"slack: channel C{g.s('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 10)} user U{g.s('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 10)} team T{g.s('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 8)} ts {g.r.randint(1700000000, 1760000000)}.{g.r.randint(100000, 999999)}\n"
        f"firebase push id -N{g.s(ALNUM + '_-', 18)}\nvercel: dpl_{g.s(ALNUM, 28)} https://webapp-{g.s('abcdefghijklmnopqrstuvwxyz0123456789', 9)}-acme.vercel.app\n"
        f"netlify deploy {g.hex(24)} https://{g.hex(24)}--site.netlify.app\n"
        f"https://docs.google.com/spreadsheets/d/1{g.s(ALNUM + '_-', 43)}/edit#gid=0\nhttps://drive.google.com/file/d/1{g.s(ALNUM + '_-', 32)}/view\n"
        f"https://www.figma.com/file/{g.s(ALNUM, 22)}/Design-System?node-id=12-345\nhttps://res.cloudinary.com/demo/image/upload/v{g.r.randint(10**9, 2 * 10**9)}/sample.jpg\n"
        f"https://images.unsplash.com/photo-{g.r.randint(10**12, 2 * 10**12)}-{g.hex(12)}?w=800\nhttps://gradle.com/s/{g.s('abcdefghijklmnopqrstuvwxyz0123456789', 13)}\n"
        f"openai: file-{g.s(ALNUM, 24)} batch_{g.hex(32)} asst_{g.s(ALNUM, 24)} ft:gpt-4o-mini-2024-07-18:acme::{g.s(ALNUM, 8)}\n"
        f"linear: https://linear.app/acme/issue/ENG-1234/fix-flaky-test\nsentry: https://acme.sentry.io/issues/{g.r.randint(10**9, 10**10)}/?project={g.r.randint(10**6, 10**7)}\n")
    add("build-artefacts", f"$ cargo build\n   Compiling serde v1.0.193\n     Running `rustc --crate-name serde ... -C metadata={g.hex(16)} -C extra-filename=-{g.hex(16)} "
        f"--out-dir /srv/app/target/debug/deps -L dependency=/srv/app/target/debug/deps --extern serde_derive=/srv/app/target/debug/deps/libserde_derive-{g.hex(16)}.so`\n"
        f"target/debug/.fingerprint/serde-{g.hex(16)}/lib-serde.json\n$ go version -m ./bin/api\n./bin/api: go1.22.0\n\tpath\tgithub.com/acme/api\n"
        f"\tdep\tgithub.com/google/uuid\tv1.6.0\th1:{g.b64(32)}\n\tbuild\tvcs.revision={g.hex(40)}\n\tbuild\tvcs.time=2026-11-30T10:00:00Z\n"
        f"$ go tool buildid ./bin/api\n{g.s(ALNUM + '_-', 20)}/{g.s(ALNUM + '_-', 20)}/{g.s(ALNUM + '_-', 20)}/{g.s(ALNUM + '_-', 20)}\n"
        + json.dumps({"hash": g.hex(20), "fullhash": g.hex(20), "assetsByChunkName": {"main": [f"main.{g.hex(20)}.js"]},
                      "chunks": [{"id": 179, "hash": g.hex(20), "contentHash": {"javascript": g.hex(20)}, "files": [f"179.{g.hex(8)}.js"]}]})
        + "\nself.__precacheManifest = " + json.dumps([{"revision": g.hex(32), "url": "/index.html"}, {"revision": None, "url": f"/static/js/main.{g.hex(8)}.js"}])
        + f"\nTraceback (most recent call last):\n  File \"/srv/app/main.py\", line 3, in <module>\nTypeError: <__main__.Job object at 0x{g.hex(12)}> is not JSON serializable\n"
        f"<function <lambda> at 0x7f{g.hex(10)}>\nSegmentation fault at 0x0000{g.hex(12)}\n  #0 0x{g.hex(16)} in main (/srv/app/a.out+0x{g.hex(5)})\n")
    add("aws-describe", json.dumps({"Reservations": [{"Instances": [{"InstanceId": "i-" + g.hex(17), "ImageId": "ami-" + g.hex(17),
        "KeyName": "prod-bastion-2024", "SubnetId": "subnet-" + g.hex(17), "VpcId": "vpc-" + g.hex(17),
        "IamInstanceProfile": {"Arn": f"arn:aws:iam::{acct}:instance-profile/web", "Id": "AIPA" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 17)},
        "BlockDeviceMappings": [{"DeviceName": "/dev/xvda", "Ebs": {"VolumeId": "vol-" + g.hex(17), "Status": "attached"}}],
        "NetworkInterfaces": [{"NetworkInterfaceId": "eni-" + g.hex(17),
                               "OwnerId": acct, "PrivateDnsName": "ip-10-0-1-17.ec2.internal"}],
        "SecurityGroups": [{"GroupId": "sg-" + g.hex(17), "GroupName": "web"}], "ClientToken": g.uuid4(),
        "CapacityReservationSpecification": {"CapacityReservationPreference": "open"}}]}],
        "KeyPairs": [{"KeyPairId": "key-" + g.hex(17), "KeyFingerprint": ":".join(g.hex(2) for _ in range(20)), "KeyName": "deploy"}],
        "KeyMetadata": {"KeyId": g.uuid4(), "Arn": f"arn:aws:kms:us-east-1:{acct}:key/{g.uuid4()}", "KeyUsage": "ENCRYPT_DECRYPT"},
        "SecretList": [{"ARN": f"arn:aws:secretsmanager:us-east-1:{acct}:secret:prod/db-{g.s(ALNUM, 6)}", "Name": "prod/db",
                        "SecretVersionsToStages": {g.uuid4(): ["AWSCURRENT"]}}]}, indent=2))
    add("http-headers", f"HTTP/2 200\netag: W/\"{g.hex(2)}-{g.s(ALNUM + '/+', 27)}\"\nx-goog-hash: crc32c={g.b64(4)}\nx-goog-hash: md5={g.b64(16)}\n"
        f"x-goog-generation: {g.r.randint(10**15, 2 * 10**15)}\ndigest: sha-256={g.b64(32)}\ncontent-md5: {g.b64(16)}\n"
        f"x-amz-version-id: {g.s(ALNUM + '._', 32)}\nx-amz-server-side-encryption: AES256\nx-cache: Hit from cloudfront\n"
        f"via: 1.1 {g.hex(32)}.cloudfront.net (CloudFront)\nx-amz-cf-pop: FRA56-P4\nx-github-request-id: {g.hex(4).upper()}:{g.hex(5).upper()}:{g.hex(7).upper()}:{g.hex(7).upper()}:{g.hex(8).upper()}\n"
        f"x-served-by: cache-fra-etou8220043-FRA\nx-fastly-request-id: {g.hex(40)}\nx-request-id: {g.uuid4()}\n"
        f"strict-transport-security: max-age=31536000\nreport-to: {{\"group\":\"cf-nel\",\"endpoints\":[{{\"url\":\"https://a.nel.cloudflare.com/report/v4?s={g.s(ALNUM + '%', 120)}\"}}]}}\n")
    # ---------------------------------------------------------------- public keys, signatures of requests, inspect output
    ca = base64.b64encode(("-----BEGIN CERTIFICATE-----\n" + "\n".join(cert[i:i + 64] for i in range(0, len(cert), 64))
                           + "\n-----END CERTIFICATE-----\n").encode()).decode()
    add("kubeconfig-public", f"$ kubectl config view --raw --minify\napiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: {ca}\n"
        f"    server: https://{g.hex(32).upper()}.gr7.us-east-1.eks.amazonaws.com\n  name: arn:aws:eks:us-east-1:{acct}:cluster/prod\n"
        "contexts:\n- context:\n    cluster: prod\n  name: prod\ncurrent-context: prod\nkind: Config\n"
        f"$ kubectl describe pod api-7d4f8b9c6d-x2k9p | tail -4\n    Container ID:   containerd://{g.hex(64)}\n"
        f"    Image ID:       ghcr.io/acme/api@sha256:{g.hex(64)}\n  Normal  Pulled  3m  kubelet  Successfully pulled image \"ghcr.io/acme/api:1.4.2\" in 1.2s\n")
    jwks = {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": g.hex(40),
                      "n": base64.urlsafe_b64encode(g.raw(256)).decode().rstrip("="), "e": "AQAB"},
                     {"kty": "EC", "crv": "P-256", "kid": g.s(ALNUM + "_-", 43),
                      "x": base64.urlsafe_b64encode(g.raw(32)).decode().rstrip("="), "y": base64.urlsafe_b64encode(g.raw(32)).decode().rstrip("=")}]}
    add("jwks-and-request-signatures", "$ curl -s https://login.example.com/.well-known/jwks.json\n" + json.dumps(jwks) + "\n"
        f"X-Hub-Signature-256: sha256={g.hex(64)}\nX-GitHub-Delivery: {g.uuid4()}\nX-GitHub-Hook-ID: {g.r.randint(10**8, 10**9)}\n"
        f"Stripe-Signature: t={g.r.randint(1700000000, 1760000000)},v1={g.hex(64)},v0={g.hex(64)}\n"
        f"X-Slack-Signature: v0={g.hex(64)}\nX-Slack-Request-Timestamp: {g.r.randint(1700000000, 1760000000)}\n"
        f"GET /authorize?response_type=code&client_id=webapp&code_challenge={base64.urlsafe_b64encode(g.raw(32)).decode().rstrip('=')}"
        f"&code_challenge_method=S256&state={g.s(ALNUM, 16)}&nonce={g.s(ALNUM, 16)}&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fcallback\n"
        f"x-amz-content-sha256: {g.hex(64)}\nx-amz-date: 20261130T100000Z\n")
    add("docker-inspect", json.dumps([{"Id": "sha256:" + g.hex(64), "RepoTags": ["python:3.11-slim"],
        "RepoDigests": [f"python@sha256:{g.hex(64)}"], "Parent": "", "Created": "2026-11-20T10:00:00.123456789Z",
        "Config": {"Env": ["PATH=/usr/local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8",
                           f"GPG_KEY={g.hex(40).upper()}", "PYTHON_VERSION=3.11.9", f"PYTHON_SHA256={g.hex(64)}"],
                   "Cmd": ["python3"], "Image": "sha256:" + g.hex(64)},
        "GraphDriver": {"Data": {"LowerDir": ":".join(f"/var/lib/docker/overlay2/{g.hex(64)}/diff" for _ in range(3)),
                                 "MergedDir": f"/var/lib/docker/overlay2/{g.hex(64)}/merged"}, "Name": "overlay2"},
        "RootFS": {"Type": "layers", "Layers": ["sha256:" + g.hex(64) for _ in range(4)]},
        "Metadata": {"LastTagTime": "0001-01-01T00:00:00Z"}}], indent=4))
    add("more-tool-output", f"$ ssh -v git@github.com\ndebug1: Server host key: ssh-ed25519 SHA256:{g.b64(32).rstrip('=')}\n"
        f"debug1: Will attempt key: /root/.ssh/id_ed25519 ED25519 SHA256:{g.b64(32).rstrip('=')} explicit\n"
        f"debug1: Offering public key: /root/.ssh/id_ed25519 ED25519 SHA256:{g.b64(32).rstrip('=')} explicit\n"
        f"$ npm publish --dry-run\nnpm notice package: webapp@1.0.0\nnpm notice shasum:        {g.hex(40)}\n"
        f"npm notice integrity:     sha512-{g.b64(64)[:13]}[...]{g.b64(64)[-14:]}\nnpm notice total files:   12\n"
        f"$ pip freeze\nrequests==2.31.0\nmylib @ git+https://github.com/acme/mylib@{g.hex(40)}\nsix @ file:///tmp/build/six-1.17.0-py2.py3-none-any.whl#sha256={REAL_PYPI['six-1.17.0-py2.py3-none-any.whl']}\n"
        f"$ go run .\npanic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x{g.hex(6)}]\n\n"
        f"goroutine 1 [running]:\nmain.(*Server).handle(0xc000{g.hex(6)}, {{0x{g.hex(6)}, 0xc000{g.hex(6)}}})\n\t/srv/app/main.go:42 +0x{g.hex(2)}\n"
        f"$ next build\n  ○ /                                     5.2 kB         89.1 kB\n  First Load JS shared by all            84.2 kB\n"
        f"    ├ chunks/framework-{g.hex(16)}.js    45.2 kB\n    ├ chunks/main-{g.hex(16)}.js         31.7 kB\n"
        f"    └ chunks/pages/_app-{g.hex(16)}.js     7.2 kB\n  /_next/static/chunks/app/page-{g.hex(16)}.js\n"
        f"$ git lfs ls-files\n{g.hex(10)} * assets/logo.psd\n{g.hex(10)} - assets/hero.mp4\n"
        + json.dumps({"state": {g.hex(32): {"model_module": "@jupyter-widgets/controls", "model_name": "FloatProgressModel",
                                            "state": {"bar_style": "success", "max": 100, "value": 100, "layout": f"IPY_MODEL_{g.hex(32)}"}}},
                      "version_major": 2, "version_minor": 0}) + "\n")
    return out


def image_block(g: Gen) -> bytes:
    """A Claude Code user record holding a screenshot as an image block (Read of a .png)."""
    png = base64.b64encode(_png(g, 40, 30)).decode()
    return json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01Xy", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]}]},
        "toolUseResult": {"type": "image", "file": {"base64": png, "type": "image/png", "originalSize": 4321}}}).encode()


def carriers(text: str) -> dict[str, bytes]:
    """The text where each harness keeps tool output and file reads."""
    numbered = "\n".join(f"{i:>6}\u2192{ln}" for i, ln in enumerate(text.split("\n"), 1))
    recs = {
        "cc-tool_result": {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Ab", "content": text}]}},
        "cc-read-numbered": {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Ab", "content": [{"type": "text", "text": numbered}]}]},
            "toolUseResult": {"type": "text", "file": {"filePath": "lock", "content": text, "numLines": text.count("\n")}}},
        "cc-tool_use": {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01Ab", "name": "Write", "input": {"file_path": "out.txt", "content": text}}]}},
        "codex-fco": {"timestamp": "2026-11-30T10:00:00.000Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_1",
            "output": json.dumps({"output": text, "metadata": {"exit_code": 0, "duration_seconds": 0.1}})}},
        "pi-toolResult": {"type": "message", "id": "c3d4e5f6", "parentId": "b2c3d4e5", "timestamp": "2026-11-30T10:00:04.000Z",
                          "message": {"role": "toolResult", "toolCallId": "call_1", "toolName": "bash",
                                      "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 1767261604000}},
        "opencode-tool": {"type": "tool", "id": "call_read1", "name": "read", "executed": True,
                          "state": {"status": "completed", "input": {"path": "lock"}, "content": [{"type": "text", "text": text}]}},
        "cursor-tool-result": {"role": "tool", "id": "tc1", "content": [{"type": "tool-result", "toolCallId": "tc1",
                               "toolName": "Shell", "result": text}]},
        "deepseek-tool-result": {"type": "tool/result", "payload": {"turn": 1, "step": 1, "message": {
            "id": "m-t1", "role": "user", "source": {"kind": "tool", "callId": "call_1"},
            "content": [{"type": "tool-result", "toolCallId": "call_1", "content": [{"type": "text", "text": text}]}]}}},
    }
    return {k: json.dumps(v).encode() for k, v in recs.items()}
