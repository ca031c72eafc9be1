"""s25 recall sweep: credentials of many providers, made from their public formats (gitleaks'
and detect-secrets' rule sets, providers' documented token shapes) with a seeded RNG, planted
in the shapes a coding agent produces: `cat .env` read by Claude Code, `env` output in a Codex
function_call_output, an MCP JSON config, a diff adding the secret, a shell command line, YAML
and TOML config, a URL query string, and the same text inside pi and DeepSeek tool results
(record shapes from /work/shared/seeds/by-harness/*.json and 003_37255de69aaa2bf4.txt).

Data, not tests. `CREDS` is one list of `Cred`: a generator returns the value and its secret
cores (the random runs, none of which may survive redaction, not even 8 characters of one).
A `token` is one value under an environment name; a `file` is a whole credential file (a PEM
key, a kubeconfig, .netrc) whose text is read by a tool. No token literal of a provider sits
in the repository: every value is drawn at test time.

`NEGATIVES` are texts that hold no secret (git SHAs, UUIDs, lockfile integrity hashes, base64
PNG data, digests) in the same shapes; they must come out byte for byte."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

from tests.fx_s16_tokens import survivors as _survivors
# the alphabets and token makers s19's recall fixture already has
from tests.fx_s19_recall import (
    ALNUM, B32L, B64, HEX, HEXU, LOW, LOWNUM, NUM, UP, UPNUM, URLSAFE, Gen, Token, b64u, crc_tailed, draw,
)

LETTERS = string.ascii_letters
B32U = UP + "234567"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
PASSWORD = ALNUM + "!%*_-.~"
WINDOW = 8  # a surviving run of this many characters of a secret core counts as a leak


def parts(*spec: object) -> Gen:
    """A generator from literal strings and (alphabet, n) or (alphabet, lo, hi) draws; the cores
    are the drawn runs (adjacent ones joined) of WINDOW characters or more (a region digit or a
    two-character shard is no secret)."""
    def gen(rng: random.Random) -> Token:
        out, cores, run = [], [], ""
        for p in spec:
            if isinstance(p, str):
                out.append(p)
                if len(run) >= WINDOW:
                    cores.append(run)
                run = ""
                continue
            alphabet, *n = p  # type: ignore[misc]
            s = draw(rng, alphabet, n[0] if len(n) == 1 else rng.randint(n[0], n[1]))
            out.append(s)
            run += s
        if len(run) >= WINDOW:
            cores.append(run)
        return "".join(out), cores
    return gen


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def uuid_token(prefix: str = "", upper: bool = False) -> Gen:
    def gen(rng: random.Random) -> Token:
        u = uuid4(rng)
        u = u.upper() if upper else u
        return prefix + u, [u]
    return gen


def password(rng: random.Random) -> str:
    return draw(rng, ALNUM, 6) + draw(rng, "!*_-.~", 1) + draw(rng, PASSWORD, 11)


def jwt(claims: dict[str, object], alg: str = "HS256", sig_bytes: int = 32) -> Gen:
    def gen(rng: random.Random) -> Token:
        head = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
        body = dict(claims, iat=1767225600 + rng.randrange(10**6), jti=uuid4(rng))
        payload = b64u(json.dumps(body, separators=(",", ":")).encode())
        sig = b64u(rng.randbytes(sig_bytes))
        return f"{head}.{payload}.{sig}", [sig]
    return gen


def dsn(template: str) -> Gen:
    """A connection string with a random password at {pw}."""
    def gen(rng: random.Random) -> Token:
        pw = password(rng)
        return template.format(pw=pw, user="svc_" + draw(rng, LOW, 5)), [pw]
    return gen


def azure_account_key(rng: random.Random) -> str:
    return b64(rng.randbytes(64))


def azure_storage_conn(rng: random.Random) -> Token:
    key = azure_account_key(rng)
    return (f"DefaultEndpointsProtocol=https;AccountName=acmeprod{draw(rng, LOWNUM, 4)};AccountKey={key};"
            "EndpointSuffix=core.windows.net", [key[:-2]])


def azure_servicebus_conn(rng: random.Random) -> Token:
    key = b64(rng.randbytes(32))
    return (f"Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
            f"SharedAccessKey={key}", [key[:-1]])


def azure_sas_url(rng: random.Random) -> Token:
    sig = b64(rng.randbytes(32))
    return (f"https://acmeprod.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=sco&sp=rwdlacitfx"
            f"&se=2026-12-31T23:59:59Z&st=2026-01-01T00:00:00Z&spr=https&sig={quote(sig, safe='')}", [quote(sig, safe="")[:-3]])


def azure_devops_pat(rng: random.Random) -> Token:
    """The 84-character Azure DevOps PAT (2024, Microsoft's common annotated key): 52 base62,
    'JQQJ', 20 characters of version, date and provider data, the 'AZDO' signature, 4 base62."""
    head = draw(rng, ALNUM, 52)
    tail = rng.choice(("99", "77", "9D")) + "BAAC" + draw(rng, UPNUM, 14) + "AZDO" + draw(rng, ALNUM, 4)
    return head + "JQQJ" + tail, [head]


def discord_bot(rng: random.Random) -> Token:
    ident = b64u(str(rng.randrange(10**17, 10**19)).encode())
    tail = draw(rng, URLSAFE, 38)
    return f"{ident}.{draw(rng, URLSAFE, 6)}.{tail}", [tail]


def discord_webhook(rng: random.Random) -> Token:
    tok = draw(rng, URLSAFE, 68)
    return f"https://discord.com/api/webhooks/{rng.randrange(10**17, 10**19)}/{tok}", [tok]


def slack_webhook(rng: random.Random) -> Token:
    tail = draw(rng, ALNUM, 24)
    return (f"https://hooks.slack.com/services/T{draw(rng, UPNUM, 10)}/B{draw(rng, UPNUM, 10)}/{tail}", [tail])


def slack_workflow_webhook(rng: random.Random) -> Token:
    tail = draw(rng, HEX, 32)
    return (f"https://hooks.slack.com/triggers/T{draw(rng, UPNUM, 10)}/{rng.randrange(10**12, 10**13)}/{tail}", [tail])


def sentry_legacy_dsn(rng: random.Random) -> Token:
    secret = draw(rng, HEX, 32)
    return f"https://{draw(rng, HEX, 32)}:{secret}@o{rng.randrange(10**5, 10**6)}.ingest.sentry.io/{rng.randrange(10**6, 10**7)}", [secret]


def sentry_org_token(rng: random.Random) -> Token:
    payload = b64(json.dumps({"iat": 1767225600.1, "url": "https://sentry.io", "region_url": "https://us.sentry.io",
                              "org": "acme"}).encode()).rstrip("=")
    sig = draw(rng, B64, 43)
    return f"sntrys_{payload}_{sig}", [sig]


def atlassian_api_token(rng: random.Random) -> Token:
    body = draw(rng, URLSAFE, 170)
    return f"ATATT3xFfGF0{body}={draw(rng, HEXU, 8)}", [body]


def pypi_token(rng: random.Random) -> Token:
    ident = json.dumps({"version": 1, "permissions": "user"}).encode()
    blob = (b"\x02\x01\x08pypi.org\x02\x01" + bytes([len(ident)]) + ident + b"\x00\x02\x06\x20" + rng.randbytes(32))
    body = b64u(blob)
    return "pypi-" + body, [body[20:]]


def onepassword_sa(rng: random.Random) -> Token:
    inner = json.dumps({"signInAddress": "acme.1password.com", "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256",
                        "iterations": 650000, "salt": b64u(rng.randbytes(16))}, "email": f"{draw(rng, LOW, 10)}@1passwordserviceaccounts.com",
                        "srpX": rng.randbytes(32).hex(), "muk": {"alg": "A256GCM", "ext": True,
                        "k": b64u(rng.randbytes(32)), "key_ops": ["encrypt", "decrypt"], "kty": "oct", "kid": "mp"}}).encode()
    body = b64(inner).rstrip("=")
    return "ops_" + body, [body[-60:]]


def intercom_token(rng: random.Random) -> Token:
    raw = b64(f"tok:{uuid4(rng)}:1:0".encode())
    return raw, [raw[8:]]


def gcp_refresh(rng: random.Random) -> Token:
    body = draw(rng, URLSAFE, 97)
    return f"1//0{draw(rng, URLSAFE, 1)}{body}", [body]


def firebase_fcm_key(rng: random.Random) -> Token:
    body = draw(rng, URLSAFE, 140)
    return f"AAAA{draw(rng, URLSAFE, 7)}:APA91b{body}", [body]


def basic_auth(rng: random.Random) -> Token:
    pw = password(rng)
    enc = b64(f"deploy:{pw}".encode())
    return "Basic " + enc, [enc[8:]]


def jdbc_sqlserver(rng: random.Random) -> Token:
    pw = password(rng)
    return f"jdbc:sqlserver://sql.internal:1433;databaseName=orders;user=sa;password={pw};encrypt=true", [pw]


def pg_keyword_dsn(rng: random.Random) -> Token:
    pw = password(rng)
    return f"host=db.internal port=5432 dbname=orders user=app password={pw} sslmode=require", [pw]


def confluent_secret(rng: random.Random) -> Token:
    s = draw(rng, ALNUM + "+/", 64)
    return s, [s]


def braintree_access_token(rng: random.Random) -> Token:
    a, b = draw(rng, LOWNUM, 16), draw(rng, HEX, 32)
    return f"access_token$production${a}${b}", [b]


# --- credential files --------------------------------------------------------------------------


def _wrap(s: str, width: int) -> list[str]:
    return [s[i:i + width] for i in range(0, len(s), width)]


def pem_block(kind: str, rng: random.Random, n: int = 900, headers: str = "") -> tuple[str, list[str]]:
    der = b64(b"\x30\x82\x04\xa4\x02\x01\x00" + rng.randbytes(n))
    lines = _wrap(der, 64)
    return (f"-----BEGIN {kind}-----\n{headers}" + "\n".join(lines) + f"\n-----END {kind}-----\n", lines[1:-1])


def pem_file(kind: str, headers: str = "") -> Gen:
    return lambda rng: pem_block(kind, rng, headers=headers)


def openssh_key(rng: random.Random) -> Token:
    blob = b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01" + rng.randbytes(380)
    lines = _wrap(b64(blob), 70)
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END OPENSSH PRIVATE KEY-----\n", lines[2:-1]


def putty_key(rng: random.Random) -> Token:
    pub = _wrap(b64(b"\x00\x00\x00\x07ssh-rsa" + rng.randbytes(270)), 64)
    priv = _wrap(b64(rng.randbytes(700)), 64)
    text = ("PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: rsa-key-20260101\n"
            f"Public-Lines: {len(pub)}\n" + "\n".join(pub) + f"\nPrivate-Lines: {len(priv)}\n" + "\n".join(priv)
            + f"\nPrivate-MAC: {rng.randbytes(32).hex()}\n")
    return text, priv[:-1]


def pgp_private(rng: random.Random) -> Token:
    lines = _wrap(b64(b"\x95\x03\xc6\x04" + rng.randbytes(1200)), 64)
    crc = b64(rng.randbytes(3))
    return ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(lines) + f"\n={crc}\n-----END PGP PRIVATE KEY BLOCK-----\n",
            lines[1:-1])


def gcp_service_account(rng: random.Random) -> Token:
    key, lines = pem_block("PRIVATE KEY", rng, n=1200)
    kid = rng.randbytes(20).hex()
    doc = {"type": "service_account", "project_id": "acme-prod-42", "private_key_id": kid, "private_key": key,
           "client_email": "deployer@acme-prod-42.iam.gserviceaccount.com", "client_id": str(rng.randrange(10**20, 10**21)),
           "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token",
           "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
           "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/deployer%40acme-prod-42.iam.gserviceaccount.com",
           "universe_domain": "googleapis.com"}
    return json.dumps(doc, indent=2) + "\n", lines


def aws_credentials_file(rng: random.Random) -> Token:
    sk, tok_body = draw(rng, B64, 40), b64(rng.randbytes(300))
    kid = "ASIA" + draw(rng, B32U, 16)
    text = (f"[default]\naws_access_key_id = AKIA{draw(rng, B32U, 16)}\naws_secret_access_key = {draw(rng, B64, 40)}\n\n"
            f"[prod-sso]\naws_access_key_id = {kid}\naws_secret_access_key = {sk}\n"
            f"aws_session_token = IQoJb3JpZ2luX2VjE{tok_body}\nregion = eu-west-1\n")
    return text, [kid[4:], sk, tok_body[:200]]


def kubeconfig(rng: random.Random) -> Token:
    key_pem, _ = pem_block("RSA PRIVATE KEY", rng, n=600)
    key_data = b64(key_pem.encode())
    sa_tok, sa_cores = jwt({"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci",
                            "sub": "system:serviceaccount:ci:deployer"}, alg="RS256", sig_bytes=256)(rng)
    text = ("apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: "
            + b64(b"-----BEGIN CERTIFICATE-----\n" + rng.randbytes(300)) + "\n    server: https://10.0.0.1:6443\n  name: prod\n"
            "contexts:\n- context:\n    cluster: prod\n    user: admin\n  name: prod\ncurrent-context: prod\nusers:\n"
            f"- name: admin\n  user:\n    client-certificate-data: {b64(rng.randbytes(400))}\n    client-key-data: {key_data}\n"
            f"- name: deployer\n  user:\n    token: {sa_tok}\n")
    return text, [key_data[40:400], *sa_cores]


def k8s_secret_yaml(rng: random.Random) -> Token:
    pw = b64(password(rng).encode())
    key = b64(rng.randbytes(30))
    text = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: orders-db\n  namespace: prod\ntype: Opaque\ndata:\n"
            f"  DB_PASSWORD: {pw}\n  STRIPE_KEY: {key}\n")
    return text, [pw, key]


def htpasswd(rng: random.Random) -> Token:
    apr = draw(rng, "./" + ALNUM, 22)
    bcrypt = draw(rng, "./" + ALNUM, 53)
    sha = b64(rng.randbytes(20))
    text = (f"admin:$apr1${draw(rng, ALNUM, 8)}${apr}\nci:$2y$10${bcrypt}\nlegacy:{{SHA}}{sha}\n")
    return text, [apr, bcrypt, sha[:-1]]


def netrc(rng: random.Random) -> Token:
    a, b = password(rng), draw(rng, HEX, 8) + "-" + draw(rng, HEX, 4) + "-" + draw(rng, HEX, 4)
    text = (f"machine api.heroku.com\n  login ops@acme.dev\n  password {a}\nmachine git.heroku.com\n"
            f"  login ops@acme.dev\n  password {b}\n")
    return text, [a, b]


def pgpass(rng: random.Random) -> Token:
    a, b = password(rng).replace(":", "_"), password(rng).replace(":", "_")
    return f"db.internal:5432:orders:app:{a}\n*:*:*:replicator:{b}\n", [a, b]


def git_credentials(rng: random.Random) -> Token:
    gh, gh_cores = crc_tailed("ghp_")(rng)
    gl = draw(rng, URLSAFE, 20)
    pw = password(rng)
    text = (f"https://octo-dev:{gh}@github.com\nhttps://oauth2:glpat-{gl}@gitlab.acme.dev\n"
            f"https://deploy:{quote(pw, safe='')}@bitbucket.org\n")
    return text, [*gh_cores, gl, quote(pw, safe="")]


def npmrc(rng: random.Random) -> Token:
    tok, cores = crc_tailed("npm_")(rng)
    legacy = b64(f"ci:{password(rng)}".encode())
    text = (f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={tok}\n"
            f"//npm.acme.dev/:_auth={legacy}\nalways-auth=true\n")
    return text, [*cores, legacy[4:]]


def docker_config(rng: random.Random) -> Token:
    auth = b64(f"acmebot:{password(rng)}".encode())
    ghcr = b64(("octo-dev:" + crc_tailed("ghp_")(rng)[0]).encode())
    text = json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": auth},
                                 "ghcr.io": {"auth": ghcr}}, "credsStore": ""}, indent="\t") + "\n"
    return text, [auth[12:], ghcr[16:]]


def pypirc(rng: random.Random) -> Token:
    tok, cores = pypi_token(rng)
    pw = password(rng)
    text = (f"[distutils]\nindex-servers =\n    pypi\n    internal\n\n[pypi]\nusername = __token__\npassword = {tok}\n\n"
            f"[internal]\nrepository = https://pypi.acme.dev/\nusername = ci\npassword = {pw}\n")
    return text, [*cores, pw]


def wg_conf(rng: random.Random) -> Token:
    priv = b64(rng.randbytes(32))
    text = (f"[Interface]\nPrivateKey = {priv}\nAddress = 10.8.0.2/32\nDNS = 1.1.1.1\n\n[Peer]\n"
            f"PublicKey = {b64(rng.randbytes(32))}\nEndpoint = vpn.acme.dev:51820\nAllowedIPs = 0.0.0.0/0\n")
    return text, [priv[:-1]]


# --- the shapes a value is planted in -------------------------------------------------------------


@dataclass(frozen=True)
class Cred:
    name: str
    env: str
    gen: Gen
    kind: str = "token"      # "token": one value under `env`; "file": a whole credential file's text
    anchored: bool = False   # the value alone says what it is (a prefix, a fixed shape)
    shell: str = ""          # a command line that carries it ({v}); default: a Bearer header to curl
    url_param: str | None = "access_token"  # the query parameter a URL carries it in (None: no URL shape)
    source: str = ""


SESSION = "5b0e1c9a-3f52-4f7e-9a51-2d7c0d7c9e10"


def claude_tool_result(text: str, path: str = "/srv/app/.env") -> str:
    """A Claude Code user record answering a Read/Bash tool_use, with its toolUseResult sidecar."""
    return json.dumps({
        "parentUuid": "11111111-1111-4111-8111-111111111111", "isSidechain": False, "userType": "external",
        "cwd": "/srv/app", "sessionId": SESSION, "version": "2.1.310", "gitBranch": "main", "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": "toolu_01S25RecallCatEnv", "type": "tool_result",
                                                 "content": text, "is_error": False}]},
        "uuid": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f", "timestamp": "2026-03-02T10:11:12.345Z",
        "toolUseResult": {"type": "text", "file": {"filePath": path, "content": text, "numLines": text.count("\n"),
                                                   "startLine": 1, "totalLines": text.count("\n")}},
    })


def codex_output(text: str) -> str:
    return json.dumps({"timestamp": "2026-03-02T10:11:12.345Z", "type": "response_item", "payload": {
        "type": "function_call_output", "call_id": "call_s25recall",
        "output": f"Process exited with code 0\nWall time: 0.2 seconds\nOutput:\n{text}"}})


def pi_tool_result(text: str) -> str:
    return json.dumps({"type": "message", "id": "c3d4e5f6", "parentId": "b2c3d4e5", "timestamp": "2026-03-02T10:00:04.000Z",
                       "message": {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
                                   "content": [{"type": "text", "text": text}], "isError": False,
                                   "timestamp": 1772445604000}})


def pi_bash(command: str, output: str) -> str:
    return json.dumps({"type": "message", "id": "d4e5f6a7", "parentId": "c3d4e5f6", "timestamp": "2026-03-02T10:01:00.000Z",
                       "message": {"role": "bashExecution", "command": command, "output": output, "exitCode": 0,
                                   "cancelled": False, "truncated": False, "timestamp": 1772445660000}})


def deepseek_tool_result(text: str) -> str:
    return json.dumps({"type": "tool/result", "seq": 42, "time": 1772445660000, "surfaceOp": "append", "data": {
        "turn": 3, "step": 1, "message": {"id": "msg_s25", "role": "user", "source": {"kind": "tool", "callId": "call_7"},
                                          "content": [{"type": "tool-result", "toolCallId": "call_7", "isError": False,
                                                       "content": [{"type": "text", "text": text}]}]}}})


def _dotenv(c: Cred, v: str) -> str:
    return f"NODE_ENV=production\nPORT=3000\n{c.env}={v}\nLOG_LEVEL=info\n"


def _env_listing(c: Cred, v: str) -> str:
    return f"HOME=/home/dev\nLANG=C.UTF-8\n{c.env}={v}\nPATH=/usr/local/bin:/usr/bin:/bin\nSHLVL=1\n"


def _mcp_json(c: Cred, v: str) -> str:
    return json.dumps({"mcpServers": {"svc": {"command": "npx", "args": ["-y", "@acme/mcp-server"],
                                              "env": {c.env: v, "LOG_LEVEL": "info"}}}}, indent=2) + "\n"


def _diff(c: Cred, v: str) -> str:
    return ("diff --git a/config/.env.production b/config/.env.production\nindex 3f2a1b0..9c8d7e6 100644\n"
            "--- a/config/.env.production\n+++ b/config/.env.production\n@@ -1,3 +1,4 @@\n NODE_ENV=production\n"
            f" PORT=3000\n-{c.env}=\n+{c.env}={v}\n+LOG_LEVEL=info\n")


def _shell(c: Cred, v: str) -> str:
    cmd = c.shell or 'curl -sS https://api.example.com/v1/me -H "Authorization: Bearer {v}"'
    return "$ " + cmd.format(v=v) + "\n"


def _yaml(c: Cred, v: str) -> str:
    return f"services:\n  api:\n    image: acme/api:1.4.2\n    environment:\n      {c.env.lower()}: {v}\n      log_level: info\n"


def _toml(c: Cred, v: str) -> str:
    return f'[service]\nname = "api"\nregion = "eu-west-1"\n{c.env.lower()} = "{v}"\n'


def _export(c: Cred, v: str) -> str:
    return f'$ cat ~/.zshrc.local\nexport PATH="$HOME/.local/bin:$PATH"\nexport {c.env}="{v}"\n'


def _k8s_env(c: Cred, v: str) -> str:
    return (f"spec:\n  containers:\n  - name: api\n    image: acme/api:1.4.2\n    env:\n    - name: LOG_LEVEL\n"
            f"      value: info\n    - name: {c.env}\n      value: \"{v}\"\n")


def _compose_list(c: Cred, v: str) -> str:
    return f"services:\n  worker:\n    image: acme/worker:2.0\n    environment:\n      - LOG_LEVEL=info\n      - {c.env}={v}\n"


def _python(c: Cred, v: str) -> str:
    return f'import os\n\nos.environ.setdefault("{c.env}", "{v}")\nclient = make_client(timeout=30)\n'


def _url(c: Cred, v: str) -> str:
    return f"GET https://api.example.com/v2/items?region=eu&{c.url_param}={quote(v, safe='')}&page=2 -> 200\n"


def _prose(c: Cred, v: str) -> str:
    return f"Rotated it this morning; the new one is {v} so update the runner.\n"


def _argv(c: Cred, v: str) -> str:
    return f"$ ./scripts/bootstrap.sh --region eu-west-1 {v}\nbootstrapped 3 services\n"


# name -> (kind, builder, applies): kind "text" goes through redact_text, "jsonl" through redact_jsonl_line
TokenShape = tuple[str, Callable[[Cred, str], str], Callable[[Cred], bool]]
ALWAYS: Callable[[Cred], bool] = lambda c: True  # noqa: E731
TOKEN_SHAPES: dict[str, TokenShape] = {
    "dotenv": ("text", lambda c, v: "$ cat .env\n" + _dotenv(c, v), ALWAYS),
    "env": ("text", lambda c, v: "$ env\n" + _env_listing(c, v), ALWAYS),
    "json-config": ("text", _mcp_json, ALWAYS),
    "diff": ("text", _diff, ALWAYS),
    "shell": ("text", _shell, ALWAYS),
    "yaml": ("text", _yaml, ALWAYS),
    "toml": ("text", _toml, ALWAYS),
    "export": ("text", _export, ALWAYS),
    "k8s-env": ("text", _k8s_env, ALWAYS),
    "compose-list": ("text", _compose_list, ALWAYS),
    "python": ("text", _python, ALWAYS),
    "url": ("text", _url, lambda c: c.url_param is not None),
    "prose": ("text", _prose, lambda c: c.anchored),
    "argv": ("text", _argv, lambda c: c.anchored),
    "claude-cat-env": ("jsonl", lambda c, v: claude_tool_result(_dotenv(c, v)), ALWAYS),
    "codex-env": ("jsonl", lambda c, v: codex_output(_env_listing(c, v)), ALWAYS),
    "pi-read-yaml": ("jsonl", lambda c, v: pi_tool_result(_yaml(c, v)), ALWAYS),
    "pi-bash": ("jsonl", lambda c, v: pi_bash(_shell(c, v)[2:-1], '{"ok": true}'), ALWAYS),
    "deepseek-json": ("jsonl", lambda c, v: deepseek_tool_result(_mcp_json(c, v)), ALWAYS),
}


def _file_diff(text: str) -> str:
    lines = text.splitlines()
    return (f"diff --git a/secrets/cred b/secrets/cred\nnew file mode 100600\n--- /dev/null\n+++ b/secrets/cred\n"
            f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines))


FILE_SHAPES: dict[str, tuple[str, Callable[[str], str]]] = {
    "file": ("text", lambda t: t),
    "file-diff": ("text", _file_diff),
    "claude-read": ("jsonl", lambda t: claude_tool_result(t, "/srv/app/secrets/cred")),
    "codex-cat": ("jsonl", codex_output),
    "pi-read": ("jsonl", pi_tool_result),
    "deepseek-read": ("jsonl", deepseek_tool_result),
}


def planted(c: Cred, value: str) -> list[tuple[str, str, str]]:
    """(shape, kind, text) for every shape the credential is planted in."""
    if c.kind == "file":
        return [(name, kind, build(value)) for name, (kind, build) in FILE_SHAPES.items()]
    return [(name, kind, build(c, value)) for name, (kind, build, applies) in TOKEN_SHAPES.items() if applies(c)]


# --- the credentials ------------------------------------------------------------------------------

A = True  # anchored: the value alone says what it is
CREDS: list[Cred] = [
    # cloud
    Cred("aws-access-key-akia", "AWS_ACCESS_KEY_ID", parts("AKIA", (B32U, 16)), anchored=A, source="aws"),
    Cred("aws-access-key-asia", "AWS_ACCESS_KEY_ID", parts("ASIA", (B32U, 16)), anchored=A, source="aws sts"),
    Cred("aws-secret-access-key", "AWS_SECRET_ACCESS_KEY", parts((B64, 40)),
         shell="aws configure set aws_secret_access_key {v} --profile prod", source="aws"),
    Cred("aws-session-token", "AWS_SESSION_TOKEN", parts("IQoJb3JpZ2luX2VjE", (B64, 300, 600)), anchored=A, source="aws sts"),
    Cred("aws-credentials-file", "", aws_credentials_file, kind="file", source="aws cli"),
    Cred("gcp-api-key", "GOOGLE_API_KEY", parts("AIza", (URLSAFE, 35)), anchored=A, url_param="key", source="google"),
    Cred("gcp-service-account", "", gcp_service_account, kind="file", source="google iam"),
    Cred("gcp-oauth-client-secret", "GOOGLE_CLIENT_SECRET", parts("GOCSPX-", (URLSAFE, 28)), anchored=A, source="google"),
    Cred("gcp-refresh-token", "GOOGLE_REFRESH_TOKEN", gcp_refresh, source="google oauth"),
    Cred("gcp-access-token", "GOOGLE_ACCESS_TOKEN", parts("ya29.a0", (URLSAFE, 150, 200)), anchored=A, source="google oauth"),
    Cred("firebase-fcm-server-key", "FCM_SERVER_KEY", firebase_fcm_key, anchored=A, source="firebase"),
    Cred("azure-storage-account-key", "AZURE_STORAGE_KEY", lambda r: (lambda k: (k, [k[:-2]]))(azure_account_key(r)),
         shell="az storage blob list --account-name acmeprod --account-key {v}", source="azure"),
    Cred("azure-storage-connection-string", "AZURE_STORAGE_CONNECTION_STRING", azure_storage_conn, url_param=None, source="azure"),
    Cred("azure-servicebus-connection-string", "SERVICEBUS_CONNECTION", azure_servicebus_conn, url_param=None, source="azure"),
    Cred("azure-sas-url", "AZURE_BLOB_SAS_URL", azure_sas_url, url_param=None, shell="azcopy copy ./dump.sql '{v}'",
         source="azure"),
    Cred("azure-client-secret", "AZURE_CLIENT_SECRET", parts((URLSAFE, 3), "8Q~", (URLSAFE + "~.", 34)), anchored=A,
         shell="az login --service-principal -u 7f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f -p {v} --tenant acme.onmicrosoft.com",
         source="msft entra"),
    Cred("azure-devops-pat", "AZURE_DEVOPS_EXT_PAT", azure_devops_pat, anchored=A, source="msft azdo"),
    Cred("azure-devops-pat-legacy", "AZURE_DEVOPS_EXT_PAT", parts((B32L, 52)), source="msft azdo"),
    Cred("digitalocean-pat", "DIGITALOCEAN_ACCESS_TOKEN", parts("dop_v1_", (HEX, 64)), anchored=A, source="gitleaks"),
    Cred("digitalocean-oauth", "DIGITALOCEAN_TOKEN", parts("doo_v1_", (HEX, 64)), anchored=A, source="gitleaks"),
    Cred("digitalocean-refresh", "DO_REFRESH_TOKEN", parts("dor_v1_", (HEX, 64)), anchored=A, source="gitleaks"),
    Cred("linode-token", "LINODE_TOKEN", parts((HEX, 64)), source="linode cli"),
    Cred("hetzner-cloud-token", "HCLOUD_TOKEN", parts((ALNUM, 64)), source="hcloud cli"),
    Cred("scaleway-secret-key", "SCW_SECRET_KEY", uuid_token(), source="scaleway"),
    Cred("scaleway-access-key", "SCW_ACCESS_KEY", parts("SCW", (UPNUM, 17)), anchored=A, source="scaleway"),
    Cred("alibaba-access-key-id", "ALIBABA_CLOUD_ACCESS_KEY_ID", parts("LTAI", (ALNUM, 20)), anchored=A, source="gitleaks"),
    Cred("alibaba-access-key-secret", "ALIBABA_CLOUD_ACCESS_KEY_SECRET", parts((ALNUM, 30)), source="gitleaks"),
    Cred("ibm-cloud-api-key", "IBMCLOUD_API_KEY", parts((URLSAFE, 44)), shell="ibmcloud login --apikey {v} -r us-south",
         source="ibm"),
    Cred("oracle-customer-secret-key", "OCI_CUSTOMER_SECRET_KEY", parts((B64, 43), "="), source="oracle oci"),
    Cred("tencent-secret-key", "TENCENTCLOUD_SECRET_KEY", parts((ALNUM, 32)), source="tencent"),
    Cred("cloudflare-api-token", "CLOUDFLARE_API_TOKEN", parts((URLSAFE, 40)), source="cloudflare"),
    Cred("cloudflare-global-key", "CLOUDFLARE_API_KEY", parts((HEX, 37)),
         shell='curl https://api.cloudflare.com/client/v4/zones -H "X-Auth-Email: ops@acme.dev" -H "X-Auth-Key: {v}"',
         source="cloudflare"),
    Cred("vultr-api-key", "VULTR_API_KEY", parts((UPNUM, 36)), source="vultr"),
    # VCS and CI
    Cred("github-classic-pat", "GITHUB_TOKEN", crc_tailed("ghp_"), anchored=A, source="github"),
    Cred("github-oauth", "GH_TOKEN", crc_tailed("gho_"), anchored=A, source="github"),
    Cred("github-user-to-server", "GH_TOKEN", crc_tailed("ghu_"), anchored=A, source="github"),
    Cred("github-app-installation", "GITHUB_TOKEN", crc_tailed("ghs_"), anchored=A, source="github"),
    Cred("github-refresh", "GITHUB_REFRESH_TOKEN", crc_tailed("ghr_"), anchored=A, source="github"),
    Cred("github-fine-grained", "GITHUB_TOKEN", parts("github_pat_11", (UPNUM, 20), "_", (ALNUM, 59)), anchored=A,
         source="github"),
    *[Cred(f"gitlab-{p.strip('-_')}", "GITLAB_TOKEN", parts(p, (URLSAFE, n)), anchored=A, source="gitleaks gitlab")
      for p, n in [("glpat-", 20), ("gldt-", 20), ("glrt-", 20), ("glft-", 20), ("glimt-", 25), ("glagent-", 50),
                   ("gloas-", 64), ("glsoat-", 20), ("glffct-", 20), ("GR1348941", 20)]],
    Cred("gitlab-ptt", "GITLAB_TRIGGER_TOKEN", parts("glptt-", (HEX, 40)), anchored=A, source="gitleaks gitlab"),
    Cred("gitlab-cbt", "CI_JOB_TOKEN", parts("glcbt-", (HEX, 2), "_", (URLSAFE, 20)), anchored=A, source="gitleaks gitlab"),
    Cred("gitlab-pat-routable", "GITLAB_TOKEN", parts("glpat-", (URLSAFE, 27, 40), ".01", (LOWNUM, 7)), anchored=A,
         source="gitleaks gitlab"),
    Cred("gitlab-session-cookie", "GITLAB_SESSION", parts("_gitlab_session=", (HEX, 32)), url_param=None,
         shell="curl -b '{v}' https://gitlab.acme.dev/api/v4/user", source="gitleaks gitlab"),
    Cred("bitbucket-app-password", "BITBUCKET_APP_PASSWORD", parts("ATBB", (ALNUM, 32), (HEXU, 8)), anchored=A,
         source="atlassian"),
    Cred("bitbucket-repo-access-token", "BITBUCKET_ACCESS_TOKEN", parts("ATCTT3xFfGN0", (URLSAFE, 170), "=", (HEXU, 8)),
         anchored=A, source="atlassian"),
    Cred("circleci-pat", "CIRCLE_TOKEN", parts("CCIPAT_", (ALNUM, 22), "_", (HEX, 40)), anchored=A, source="circleci"),
    Cred("circleci-project-token", "CIRCLE_TOKEN", parts("CCIPRJ_", (ALNUM, 22), "_", (HEX, 40)), anchored=A, source="circleci"),
    Cred("circleci-legacy", "CIRCLECI_TOKEN", parts((HEX, 40)), source="circleci"),
    Cred("travis-token", "TRAVIS_API_TOKEN", parts((URLSAFE, 22)), source="gitleaks travis"),
    Cred("buildkite-user-token", "BUILDKITE_API_TOKEN", parts("bkua_", (HEX, 40)), anchored=A, source="buildkite"),
    Cred("buildkite-agent-token", "BUILDKITE_AGENT_TOKEN", parts((HEX, 50)), shell="buildkite-agent start --token {v}",
         source="buildkite"),
    Cred("drone-token", "DRONE_TOKEN", parts((ALNUM, 32)), source="gitleaks droneci"),
    Cred("jenkins-api-token", "JENKINS_API_TOKEN", parts("11", (HEX, 32)),
         shell="curl -u admin:{v} https://ci.acme.dev/job/deploy/build", source="jenkins"),
    Cred("sourcegraph-token", "SRC_ACCESS_TOKEN", parts("sgp_", (HEX, 16), "_", (HEX, 40)), anchored=A, source="sourcegraph"),
    # AI
    Cred("openai-project", "OPENAI_API_KEY", parts("sk-proj-", (URLSAFE, 74), "T3BlbkFJ", (URLSAFE, 74)), anchored=A,
         source="openai"),
    Cred("openai-svcacct", "OPENAI_API_KEY", parts("sk-svcacct-", (URLSAFE, 74), "T3BlbkFJ", (URLSAFE, 74)), anchored=A,
         source="openai"),
    Cred("openai-admin", "OPENAI_ADMIN_KEY", parts("sk-admin-", (URLSAFE, 58), "T3BlbkFJ", (URLSAFE, 58)), anchored=A,
         source="openai"),
    Cred("openai-legacy", "OPENAI_API_KEY", parts("sk-", (ALNUM, 20), "T3BlbkFJ", (ALNUM, 20)), anchored=A, source="openai"),
    Cred("anthropic-api", "ANTHROPIC_API_KEY", parts("sk-ant-api03-", (URLSAFE, 93), "AA"), anchored=A, source="anthropic"),
    Cred("anthropic-admin", "ANTHROPIC_ADMIN_KEY", parts("sk-ant-admin01-", (URLSAFE, 93), "AA"), anchored=A,
         source="anthropic"),
    Cred("anthropic-oauth", "CLAUDE_CODE_OAUTH_TOKEN", parts("sk-ant-oat01-", (URLSAFE, 93), "AA"), anchored=A,
         source="anthropic"),
    Cred("cohere-key", "CO_API_KEY", parts((ALNUM, 40)), source="gitleaks cohere"),
    Cred("huggingface-token", "HF_TOKEN", parts("hf_", (LETTERS, 34)), anchored=A, source="huggingface"),
    Cred("replicate-token", "REPLICATE_API_TOKEN", parts("r8_", (ALNUM, 37)), anchored=A, source="replicate"),
    Cred("groq-key", "GROQ_API_KEY", parts("gsk_", (ALNUM, 52)), anchored=A, source="groq"),
    Cred("perplexity-key", "PERPLEXITY_API_KEY", parts("pplx-", (ALNUM, 48)), anchored=A, source="perplexity"),
    Cred("mistral-key", "MISTRAL_API_KEY", parts((ALNUM, 32)), source="mistral"),
    Cred("deepseek-key", "DEEPSEEK_API_KEY", parts("sk-", (HEX, 32)), anchored=A, source="deepseek"),
    Cred("xai-key", "XAI_API_KEY", parts("xai-", (ALNUM, 80)), anchored=A, source="xai"),
    Cred("openrouter-key", "OPENROUTER_API_KEY", parts("sk-or-v1-", (HEX, 64)), anchored=A, source="openrouter"),
    Cred("together-legacy", "TOGETHER_API_KEY", parts((HEX, 64)), source="together"),
    Cred("together-v1", "TOGETHER_API_KEY", parts("tgp_v1_", (URLSAFE, 43)), anchored=A, source="together"),
    Cred("fireworks-key", "FIREWORKS_API_KEY", parts("fw_", (ALNUM, 24)), anchored=A, source="fireworks"),
    Cred("voyage-key", "VOYAGE_API_KEY", parts("pa-", (URLSAFE, 43)), source="voyage"),
    Cred("elevenlabs-key", "ELEVENLABS_API_KEY", parts("sk_", (HEX, 48)), anchored=A, source="elevenlabs"),
    Cred("pinecone-key", "PINECONE_API_KEY", parts("pcsk_", (ALNUM, 6), "_", (ALNUM, 63)), anchored=A, source="pinecone"),
    Cred("langsmith-key", "LANGSMITH_API_KEY", parts("lsv2_pt_", (HEX, 32), "_", (HEX, 10)), anchored=A, source="langsmith"),
    Cred("gemini-key", "GEMINI_API_KEY", parts("AIzaSy", (URLSAFE, 33)), anchored=A, url_param="key", source="google"),
    # payments
    Cred("stripe-live-secret", "STRIPE_SECRET_KEY", parts("sk_live_51", (ALNUM, 97)), anchored=A, source="stripe"),
    Cred("stripe-test-secret", "STRIPE_SECRET_KEY", parts("sk_test_51", (ALNUM, 97)), anchored=A, source="stripe"),
    Cred("stripe-restricted", "STRIPE_KEY", parts("rk_live_51", (ALNUM, 97)), anchored=A, source="stripe"),
    Cred("stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", parts("whsec_", (ALNUM, 32)), anchored=A, source="stripe"),
    Cred("square-access-token", "SQUARE_ACCESS_TOKEN", parts("EAAA", (URLSAFE, 60)), anchored=A, source="square"),
    Cred("square-legacy-token", "SQUARE_ACCESS_TOKEN", parts("sq0atp-", (URLSAFE, 22)), anchored=A, source="square"),
    Cred("square-oauth-secret", "SQUARE_APP_SECRET", parts("sq0csp-", (URLSAFE, 43)), anchored=A, source="square"),
    Cred("paypal-client-secret", "PAYPAL_CLIENT_SECRET", parts("E", (URLSAFE, 79)), source="paypal"),
    Cred("braintree-access-token", "BRAINTREE_ACCESS_TOKEN", braintree_access_token, anchored=A, source="braintree"),
    Cred("braintree-private-key", "BRAINTREE_PRIVATE_KEY", parts((HEX, 32)), source="braintree"),
    Cred("adyen-api-key", "ADYEN_API_KEY", parts("AQE", (LOWNUM, 6), ".", (URLSAFE, 60)), anchored=A, source="adyen"),
    Cred("adyen-hmac-key", "ADYEN_HMAC_KEY", parts((HEXU, 64)), source="adyen"),
    *[Cred(f"shopify-{p[:-1]}", "SHOPIFY_ACCESS_TOKEN", parts(p, (HEX, 32)), anchored=A, source="shopify")
      for p in ("shpat_", "shpss_", "shpca_", "shppa_")],
    Cred("razorpay-secret", "RAZORPAY_KEY_SECRET", parts((ALNUM, 24)), source="razorpay"),
    Cred("plaid-secret", "PLAID_SECRET", parts((HEX, 30)), url_param=None,
         shell="curl -X POST https://production.plaid.com/accounts/get -H 'Content-Type: application/json' "
               "-d '{{\"client_id\": \"5f0e1d2c3b4a596877a6b5c4\", \"secret\": \"{v}\"}}'", source="gitleaks plaid"),
    # comms
    Cred("slack-bot", "SLACK_BOT_TOKEN", parts("xoxb-", (NUM, 12), "-", (NUM, 13), "-", (ALNUM, 24)), anchored=A, source="slack"),
    Cred("slack-user", "SLACK_USER_TOKEN", parts("xoxp-", (NUM, 12), "-", (NUM, 12), "-", (NUM, 13), "-", (HEX, 32)),
         anchored=A, source="slack"),
    Cred("slack-config-access", "SLACK_CONFIG_TOKEN", parts("xoxe.xoxp-1-", (UPNUM, 164)), anchored=A, source="slack"),
    Cred("slack-config-refresh", "SLACK_CONFIG_REFRESH", parts("xoxe-1-", (UPNUM, 146)), anchored=A, source="slack"),
    Cred("slack-app-level", "SLACK_APP_TOKEN", parts("xapp-1-A", (UPNUM, 10), "-", (NUM, 13), "-", (HEX, 64)), anchored=A,
         source="slack"),
    Cred("slack-legacy-workspace", "SLACK_TOKEN", parts("xoxa-2-", (ALNUM, 40)), anchored=A, source="slack"),
    Cred("slack-webhook", "SLACK_WEBHOOK_URL", slack_webhook, anchored=A, url_param=None, source="slack"),
    Cred("slack-workflow-webhook", "SLACK_WEBHOOK_URL", slack_workflow_webhook, anchored=A, url_param=None, source="slack"),
    Cred("discord-bot-token", "DISCORD_TOKEN", discord_bot, anchored=A, source="discord"),
    Cred("discord-webhook", "DISCORD_WEBHOOK_URL", discord_webhook, anchored=A, url_param=None, source="discord"),
    Cred("telegram-bot-token", "TELEGRAM_BOT_TOKEN", parts((NUM, 10), ":AA", (URLSAFE, 33)), anchored=A, source="telegram"),
    Cred("twilio-api-key", "TWILIO_API_SECRET", parts("SK", (HEX, 32)), anchored=A, source="twilio"),
    Cred("twilio-auth-token", "TWILIO_AUTH_TOKEN", parts((HEX, 32)),
         shell="curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC0a1b2c3d4e5f60718293a4b5c6d7e8f9/Messages.json "
               "-u AC0a1b2c3d4e5f60718293a4b5c6d7e8f9:{v}", source="twilio"),
    Cred("sendgrid-key", "SENDGRID_API_KEY", parts("SG.", (URLSAFE, 22), ".", (URLSAFE, 43)), anchored=A, source="sendgrid"),
    Cred("mailgun-key", "MAILGUN_API_KEY", parts("key-", (HEX, 32)), anchored=A, source="mailgun"),
    Cred("mailgun-key-new", "MAILGUN_API_KEY", parts((HEX, 32), "-", (HEX, 8), "-", (HEX, 8)),
         shell="curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.acme.dev/messages", source="mailgun"),
    Cred("mailchimp-key", "MAILCHIMP_API_KEY", parts((HEX, 32), "-us", (NUM, 2)), anchored=A, source="mailchimp"),
    Cred("postmark-server-token", "POSTMARK_SERVER_TOKEN", uuid_token(),
         shell='curl https://api.postmarkapp.com/email -H "X-Postmark-Server-Token: {v}"', source="postmark"),
    Cred("teams-webhook", "TEAMS_WEBHOOK_URL", parts("https://acme.webhook.office.com/webhookb2/", (HEX, 8), "-", (HEX, 4), "-",
                                                     (HEX, 4), "-", (HEX, 4), "-", (HEX, 12), "@", (HEX, 8), "-", (HEX, 4),
                                                     "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 12), "/IncomingWebhook/",
                                                     (HEX, 32), "/", (HEX, 8), "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 4),
                                                     "-", (HEX, 12)), anchored=A, url_param=None, source="msft"),
    # SaaS and developer platforms
    Cred("atlassian-api-token", "JIRA_API_TOKEN", atlassian_api_token, anchored=A, source="atlassian"),
    Cred("notion-secret", "NOTION_TOKEN", parts("secret_", (ALNUM, 43)), anchored=A, source="notion"),
    Cred("notion-ntn", "NOTION_TOKEN", parts("ntn_", (NUM, 11), (ALNUM, 35)), anchored=A, source="notion"),
    Cred("linear-key", "LINEAR_API_KEY", parts("lin_api_", (ALNUM, 40)), anchored=A, source="linear"),
    Cred("airtable-pat", "AIRTABLE_TOKEN", parts("pat", (ALNUM, 14), ".", (HEX, 64)), anchored=A, source="airtable"),
    Cred("asana-pat", "ASANA_TOKEN", parts("2/", (NUM, 16), "/", (NUM, 16), ":", (HEX, 32)), anchored=A, source="asana"),
    Cred("figma-pat", "FIGMA_TOKEN", parts("figd_", (URLSAFE, 40)), anchored=A, source="figma"),
    Cred("sentry-org-token", "SENTRY_AUTH_TOKEN", sentry_org_token, anchored=A, source="sentry"),
    Cred("sentry-user-token", "SENTRY_AUTH_TOKEN", parts("sntryu_", (HEX, 64)), anchored=A, source="sentry"),
    Cred("sentry-legacy-dsn", "SENTRY_DSN", sentry_legacy_dsn, anchored=A, url_param=None, source="sentry"),
    Cred("datadog-api-key", "DD_API_KEY", parts((HEX, 32)), shell='curl https://api.datadoghq.com/api/v1/validate -H "DD-API-KEY: {v}"',
         source="datadog"),
    Cred("datadog-app-key", "DD_APP_KEY", parts((HEX, 40)),
         shell='curl https://api.datadoghq.com/api/v1/monitor -H "DD-APPLICATION-KEY: {v}"', source="datadog"),
    Cred("newrelic-user-key", "NEW_RELIC_API_KEY", parts("NRAK-", (UPNUM, 27)), anchored=A, source="newrelic"),
    Cred("newrelic-insert-key", "NEW_RELIC_INSERT_KEY", parts("NRII-", (URLSAFE, 32)), anchored=A, source="newrelic"),
    Cred("newrelic-license-key", "NEW_RELIC_LICENSE_KEY", parts((HEX, 36), "NRAL"), anchored=A, source="newrelic"),
    Cred("grafana-cloud-token", "GRAFANA_CLOUD_TOKEN", lambda r: (lambda b: ("glc_" + b, [b[:-2]]))(b64(json.dumps(
        {"o": str(r.randrange(10**5, 10**6)), "n": "stack-ci", "k": draw(r, ALNUM, 24), "m": {"r": "prod-eu-west-2"}}).encode())),
        anchored=A, source="grafana"),
    Cred("grafana-service-account", "GRAFANA_TOKEN", parts("glsa_", (ALNUM, 32), "_", (HEX, 8)), anchored=A, source="grafana"),
    Cred("pagerduty-token", "PAGERDUTY_TOKEN", parts((URLSAFE + "+", 20)),
         shell='curl https://api.pagerduty.com/incidents -H "Authorization: Token token={v}"', source="pagerduty"),
    Cred("pagerduty-user-token", "PAGERDUTY_USER_TOKEN", parts("u+", (URLSAFE, 18)), source="pagerduty"),
    Cred("okta-api-token", "OKTA_API_TOKEN", parts("00", (URLSAFE, 40)),
         shell='curl https://acme.okta.com/api/v1/users -H "Authorization: SSWS {v}"', source="okta"),
    Cred("auth0-client-secret", "AUTH0_CLIENT_SECRET", parts((URLSAFE, 64)), source="auth0"),
    *[Cred(f"doppler-{p.split('.')[1]}", "DOPPLER_TOKEN", parts(p, (ALNUM, 43)), anchored=A, source="doppler")
      for p in ("dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit.")],
    Cred("onepassword-service-account", "OP_SERVICE_ACCOUNT_TOKEN", onepassword_sa, anchored=A, source="1password"),
    Cred("vault-service-token", "VAULT_TOKEN", parts("hvs.CAESI", (URLSAFE, 90)), anchored=A, source="hashicorp"),
    Cred("vault-batch-token", "VAULT_TOKEN", parts("hvb.AAAAAQ", (URLSAFE, 150)), anchored=A, source="hashicorp"),
    Cred("vault-recovery-token", "VAULT_TOKEN", parts("hvr.", (URLSAFE, 24)), anchored=A, source="hashicorp"),
    Cred("vault-legacy-token", "VAULT_TOKEN", parts("s.", (ALNUM, 24)), url_param=None, shell="vault login {v}",
         source="hashicorp"),
    Cred("pulumi-token", "PULUMI_ACCESS_TOKEN", parts("pul-", (HEX, 40)), anchored=A, source="pulumi"),
    Cred("terraform-cloud-token", "TFE_TOKEN", parts((LOWNUM, 14), ".atlasv1.", (URLSAFE, 67)), anchored=A, source="hashicorp"),
    Cred("npm-token", "NPM_TOKEN", crc_tailed("npm_"), anchored=A, source="npm"),
    Cred("pypi-token", "TWINE_PASSWORD", pypi_token, anchored=A, source="pypi"),
    Cred("rubygems-key", "GEM_HOST_API_KEY", parts("rubygems_", (HEX, 48)), anchored=A, source="rubygems"),
    Cred("nuget-key", "NUGET_API_KEY", parts("oy2", (B32L, 43)), anchored=A,
         shell="dotnet nuget push bin/Acme.1.0.0.nupkg --api-key {v} --source https://api.nuget.org/v3/index.json", source="nuget"),
    Cred("docker-pat", "DOCKER_TOKEN", parts("dckr_pat_", (URLSAFE, 27)), anchored=A,
         shell="echo {v} | docker login -u acmebot --password-stdin", source="docker"),
    Cred("heroku-api-key", "HEROKU_API_KEY", uuid_token(), source="heroku"),
    Cred("heroku-v2", "HEROKU_API_KEY", parts("HRKU-AA", (URLSAFE, 58)), anchored=A, source="heroku"),
    Cred("netlify-pat", "NETLIFY_AUTH_TOKEN", parts("nfp_", (ALNUM, 36)), anchored=A, source="netlify"),
    Cred("netlify-legacy", "NETLIFY_AUTH_TOKEN", parts((URLSAFE, 43)), source="netlify"),
    Cred("vercel-token", "VERCEL_TOKEN", parts((ALNUM, 24)), shell="vercel deploy --prod --token {v}", source="vercel"),
    Cred("fly-token", "FLY_API_TOKEN", parts("fo1_", (URLSAFE, 43)), anchored=A, source="fly"),
    Cred("fly-macaroon", "FLY_API_TOKEN", parts("FlyV1 fm2_", (B64, 300)), anchored=A, source="fly"),
    Cred("supabase-pat", "SUPABASE_ACCESS_TOKEN", parts("sbp_", (HEX, 40)), anchored=A, source="supabase"),
    Cred("supabase-secret", "SUPABASE_SECRET_KEY", parts("sb_secret_", (URLSAFE, 31)), anchored=A, source="supabase"),
    Cred("supabase-service-role", "SUPABASE_SERVICE_ROLE_KEY", jwt({"iss": "supabase", "ref": "abcdefghijklmnopqrst",
                                                                     "role": "service_role", "exp": 2082758400}), anchored=A,
         source="supabase"),
    Cred("planetscale-token", "PLANETSCALE_SERVICE_TOKEN", parts("pscale_tkn_", (URLSAFE, 43)), anchored=A, source="planetscale"),
    Cred("planetscale-password", "DATABASE_PASSWORD", parts("pscale_pw_", (URLSAFE, 43)), anchored=A, source="planetscale"),
    Cred("neon-key", "NEON_API_KEY", parts("napi_", (LOWNUM, 64)), anchored=A, source="neon"),
    Cred("mongodb-atlas-private-key", "MONGODB_ATLAS_PRIVATE_KEY", uuid_token(), source="mongodb atlas"),
    Cred("mongodb-srv-url", "MONGODB_URI", dsn("mongodb+srv://{user}:{pw}@cluster0.ab1cd.mongodb.net/orders?retryWrites=true"),
         url_param=None, shell="mongosh '{v}'", source="mongodb"),
    Cred("redis-url", "REDIS_URL", dsn("redis://default:{pw}@cache.internal:6379/0"), url_param=None,
         shell="redis-cli -u {v} ping", source="redis"),
    Cred("redis-url-nouser", "REDIS_URL", dsn("rediss://:{pw}@cache.internal:6380"), url_param=None,
         shell="redis-cli -u {v} ping", source="redis"),
    Cred("postgres-url", "DATABASE_URL", dsn("postgresql://{user}:{pw}@db.internal:5432/orders?sslmode=require"),
         url_param=None, shell="psql '{v}' -c 'select 1'", source="libpq"),
    Cred("postgres-keyword-dsn", "DATABASE_DSN", pg_keyword_dsn, url_param=None, shell='psql "{v}"', source="libpq"),
    Cred("mysql-url", "DATABASE_URL", dsn("mysql://{user}:{pw}@db.internal:3306/orders"), url_param=None, source="mysql"),
    Cred("mysql-cli-password", "MYSQL_PWD", lambda r: (lambda p: (p, [p]))(password(r)), url_param=None,
         shell="mysql -h db.internal -u root -p{v} orders", source="mysql"),
    Cred("jdbc-postgres", "JDBC_URL", dsn("jdbc:postgresql://db.internal:5432/orders?user={user}&password={pw}"), url_param=None,
         source="jdbc"),
    Cred("jdbc-sqlserver", "JDBC_URL", jdbc_sqlserver, url_param=None, source="jdbc"),
    Cred("amqp-url", "AMQP_URL", dsn("amqps://{user}:{pw}@mq.internal/vhost"), url_param=None, source="rabbitmq"),
    Cred("jwt-hs256", "SESSION_JWT", jwt({"sub": "user_42", "role": "admin"}), anchored=A, source="rfc7519"),
    Cred("k8s-sa-token", "KUBE_TOKEN", jwt({"iss": "https://kubernetes.default.svc.cluster.local",
                                            "kubernetes.io": {"namespace": "ci", "serviceaccount": {"name": "deployer"}},
                                            "sub": "system:serviceaccount:ci:deployer"}, alg="RS256", sig_bytes=256),
         anchored=A, shell="kubectl --token={v} get pods -n ci", source="kubernetes"),
    Cred("age-secret-key", "SOPS_AGE_KEY", parts("AGE-SECRET-KEY-1", (BECH32.upper(), 58)), anchored=A, source="age"),
    Cred("basic-auth-header", "UPSTREAM_AUTHORIZATION", basic_auth, url_param=None,
         shell='curl https://registry.acme.dev/v2/_catalog -H "Authorization: {v}"', source="rfc7617"),
    Cred("cookie-header", "SESSION_COOKIE", parts("sessionid=", (LOWNUM, 32)), url_param=None,
         shell="curl https://app.acme.dev/api/me -H 'Cookie: csrftoken=abc; {v}'", source="rfc6265"),
    Cred("bearer-opaque", "Authorization", parts("Bearer ", (URLSAFE, 48)), url_param=None,
         shell='curl https://api.acme.dev/v1/me -H "Authorization: {v}"', source="rfc6750"),
    # more of gitleaks' and detect-secrets' lists
    Cred("algolia-admin-key", "ALGOLIA_ADMIN_KEY", parts((HEX, 32)), source="gitleaks algolia"),
    Cred("contentful-pat", "CONTENTFUL_MANAGEMENT_TOKEN", parts("CFPAT-", (URLSAFE, 43)), anchored=A, source="contentful"),
    Cred("mapbox-secret", "MAPBOX_TOKEN", lambda r: (lambda a, b: (f"sk.{a}.{b}", [b]))(
        b64u(json.dumps({"u": "acme", "a": draw(r, LOWNUM, 25)}, separators=(",", ":")).encode()), draw(r, URLSAFE, 22)),
        anchored=A, source="mapbox"),
    Cred("zendesk-token", "ZENDESK_API_TOKEN", parts((ALNUM, 40)), source="zendesk"),
    Cred("hubspot-pat", "HUBSPOT_ACCESS_TOKEN", parts("pat-na1-", (HEX, 8), "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 4), "-",
                                                      (HEX, 12)), anchored=A, source="hubspot"),
    Cred("intercom-token", "INTERCOM_ACCESS_TOKEN", intercom_token, source="intercom"),
    Cred("snyk-token", "SNYK_TOKEN", uuid_token(), shell="snyk auth {v}", source="snyk"),
    Cred("sonarqube-user", "SONAR_TOKEN", parts("squ_", (HEX, 40)), anchored=A, source="sonar"),
    Cred("sonarqube-project", "SONAR_TOKEN", parts("sqp_", (HEX, 40)), anchored=A, source="sonar"),
    Cred("sonarqube-analysis", "SONAR_TOKEN", parts("sqa_", (HEX, 40)), anchored=A, source="sonar"),
    Cred("codecov-token", "CODECOV_TOKEN", uuid_token(), url_param=None,
         shell="codecovcli upload-process --token {v} -f coverage.xml", source="codecov"),
    Cred("launchdarkly-api", "LAUNCHDARKLY_ACCESS_TOKEN", uuid_token("api-"), source="launchdarkly"),
    Cred("launchdarkly-sdk", "LAUNCHDARKLY_SDK_KEY", uuid_token("sdk-"), source="launchdarkly"),
    Cred("artifactory-api-key", "ARTIFACTORY_API_KEY", parts("AKCp", (ALNUM, 69)), anchored=A, source="jfrog"),
    Cred("artifactory-reference-token", "JFROG_ACCESS_TOKEN", parts("cmVmdGtuOjAxOjE3", (ALNUM, 48)), anchored=A, source="jfrog"),
    Cred("confluent-api-secret", "CONFLUENT_CLOUD_API_SECRET", confluent_secret, source="confluent"),
    Cred("databricks-pat", "DATABRICKS_TOKEN", parts("dapi", (HEX, 32)), anchored=A, source="databricks"),
    Cred("postman-key", "POSTMAN_API_KEY", parts("PMAK-", (HEX, 24), "-", (HEX, 34)), anchored=A, source="postman"),
    Cred("typeform-token", "TYPEFORM_TOKEN", parts("tfp_", (URLSAFE, 59)), anchored=A, source="typeform"),
    Cred("dynatrace-token", "DT_API_TOKEN", parts("dt0c01.", (B32U, 24), ".", (UPNUM, 64)), anchored=A, source="dynatrace"),
    Cred("tailscale-auth-key", "TS_AUTHKEY", parts("tskey-auth-", (ALNUM, 12), "CNTRL-", (ALNUM, 33)), anchored=A,
         source="tailscale"),
    Cred("segment-write-key", "SEGMENT_WRITE_KEY", parts((ALNUM, 32)), source="segment"),
    Cred("expo-token", "EXPO_TOKEN", parts((URLSAFE, 40)), source="expo"),
    Cred("snowflake-password", "SNOWFLAKE_PASSWORD", lambda r: (lambda p: (p, [p]))(password(r)), url_param=None,
         shell="SNOWSQL_PWD='{v}' snowsql -a acme-xy12345 -u svc_loader -q 'select 1'", source="snowflake"),
    Cred("algolia-app-key-url", "ALGOLIA_SEARCH_URL", lambda r: (lambda k: (
        f"https://ACME42.algolia.net/1/indexes/products?x-algolia-application-id=ACME42&x-algolia-api-key={k}", [k]))(
        draw(r, HEX, 32)), url_param=None, source="algolia"),
    Cred("zapier-webhook", "ZAPIER_WEBHOOK_URL", lambda r: (lambda a, b: (f"https://hooks.zapier.com/hooks/catch/{a}/{b}/", [b]))(
        draw(r, NUM, 7), draw(r, LOWNUM, 6)), anchored=A, url_param=None, source="zapier"),
    # credential files
    Cred("pem-rsa", "", pem_file("RSA PRIVATE KEY"), kind="file", source="rfc7468"),
    Cred("pem-pkcs8", "", pem_file("PRIVATE KEY"), kind="file", source="rfc7468"),
    Cred("pem-ec", "", pem_file("EC PRIVATE KEY"), kind="file", source="rfc5915"),
    Cred("pem-encrypted", "", pem_file("RSA PRIVATE KEY", "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0F1E2D3C4B5A69788796A5B4C3D2E1F0\n\n"),
         kind="file", source="openssl"),
    Cred("pem-encrypted-pkcs8", "", pem_file("ENCRYPTED PRIVATE KEY"), kind="file", source="rfc5958"),
    Cred("openssh-key", "", openssh_key, kind="file", source="openssh"),
    Cred("putty-key", "", putty_key, kind="file", source="putty"),
    Cred("pgp-private-key", "", pgp_private, kind="file", source="rfc4880"),
    Cred("kubeconfig", "", kubeconfig, kind="file", source="kubernetes"),
    Cred("k8s-secret-manifest", "", k8s_secret_yaml, kind="file", source="kubernetes"),
    Cred("htpasswd", "", htpasswd, kind="file", source="apache"),
    Cred("netrc", "", netrc, kind="file", source="netrc"),
    Cred("pgpass", "", pgpass, kind="file", source="libpq"),
    Cred("git-credentials", "", git_credentials, kind="file", source="git credential-store"),
    Cred("npmrc", "", npmrc, kind="file", source="npm"),
    Cred("docker-config", "", docker_config, kind="file", source="docker"),
    Cred("pypirc", "", pypirc, kind="file", source="pypi"),
    Cred("wireguard-conf", "", wg_conf, kind="file", source="wireguard"),
]
BY_NAME = {c.name: c for c in CREDS}
assert len(BY_NAME) == len(CREDS), "credential names repeat"


def sample(c: Cred, seed: int) -> Token:
    """The credential's value and cores under a seed of its own (stable when the list grows)."""
    return c.gen(random.Random(f"{seed}:{c.name}"))


def survivors(cores: list[str], out: str) -> list[str]:
    """The cores of which a run of WINDOW characters (or the whole, if shorter) is left in out."""
    return _survivors(cores, out, WINDOW)


# --- text that holds no secret -------------------------------------------------------------------


def _negatives() -> dict[str, str]:
    rng = random.Random(2525)
    shas = [rng.randbytes(20).hex() for _ in range(4)]
    uuids = [uuid4(rng) for _ in range(4)]
    integ = [b64(hashlib.sha512(bytes([i])).digest()) for i in range(6)]
    png = b64(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00" + rng.randbytes(180)
              + b"\x00\x00\x00\x00IEND\xaeB`\x82")
    sha256s = [hashlib.sha256(bytes([i, 25])).hexdigest() for i in range(6)]
    gosum = [b64(hashlib.sha256(bytes([i, 7])).digest()) for i in range(4)]
    return {
        "git-log": "".join(f"commit {s}\nDate:   Mon Mar 2 10:00:00 2026 +0000\n\n"
                           f"    fix: token refresh (#{400 + i})\n\n" for i, s in enumerate(shas)),
        "git-rev-parse": f"$ git rev-parse HEAD\n{shas[0]}\n$ git log --oneline -2\n{shas[1][:7]} fix key rotation\n{shas[2][:7]} add secret scanning\n",
        "uuids": "".join(f"session {u} resumed; request_id={uuids[-1 - i]} trace_id={u.replace('-', '')}\n" for i, u in enumerate(uuids)),
        "package-lock": json.dumps({"packages": {f"node_modules/pkg{i}": {
            "version": f"1.{i}.0", "resolved": f"https://registry.npmjs.org/pkg{i}/-/pkg{i}-1.{i}.0.tgz",
            "integrity": f"sha512-{h}"} for i, h in enumerate(integ)}}, indent=2),
        "yarn-lock": "".join(f'pkg{i}@^1.{i}.0:\n  version "1.{i}.0"\n  resolved "https://registry.yarnpkg.com/pkg{i}/-/pkg{i}-1.{i}.0.tgz#{shas[i % 4]}"\n'
                             f"  integrity sha512-{h}\n\n" for i, h in enumerate(integ)),
        "cargo-lock": "".join(f'[[package]]\nname = "crate{i}"\nversion = "0.{i}.1"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n'
                              f'checksum = "{h}"\n\n' for i, h in enumerate(sha256s)),
        "poetry-lock": "".join(f'    {{file = "pkg{i}-1.0-py3-none-any.whl", hash = "sha256:{h}"}},\n' for i, h in enumerate(sha256s)),
        "requirements-hash": "".join(f"pkg{i}==1.0.{i} \\\n    --hash=sha256:{h}\n" for i, h in enumerate(sha256s)),
        "go-sum": "".join(f"golang.org/x/mod{i} v0.{i}.0 h1:{h}\n" for i, h in enumerate(gosum)),
        "docker-images": "REPOSITORY   TAG   DIGEST   IMAGE ID\n" + "".join(
            f"acme/api     1.{i}   sha256:{h}   {h[:12]}\n" for i, h in enumerate(sha256s[:3])),
        "png-data-uri": f"![chart](data:image/png;base64,{png})\n",
        "png-json": json.dumps({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}),
        "sha-env": f"GIT_COMMIT={shas[0]}\nBUILD_ID={uuids[0]}\nIMAGE_DIGEST=sha256:{sha256s[0]}\nCHECKSUM_SHA256={sha256s[1]}\n",
        "sri-html": f'<script src="https://cdn.example.com/lib.js" integrity="sha384-{b64(hashlib.sha384(b"x").digest())}" crossorigin="anonymous"></script>\n',
    }


NEGATIVES = _negatives()
