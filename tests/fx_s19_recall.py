"""s19 recall sweep: credential formats read from public references (gitleaks' rules, Microsoft's
security-utilities identifiable-key patterns, providers' documented token shapes), sampled with a
seeded RNG and planted in the places a session shows them (prose, an env line, a JSON value, a
shell command, YAML and INI config, a URL with credentials, Python and JS string literals, and a
Claude Code / Codex / OpenCode record).

Data, not tests: `FORMATS` is one list of (format, generator, contexts). A generator returns the
token and its secret cores (the random parts, which must not survive). Tokens are made at test
time from each format's alphabet, length, prefix and checksum: no token literal of a provider
sits in the repository. `NEW` names the formats the s19 probe found leaking (rules/secrets.toml,
block `s19 recall`); the others were already caught and stay as a regression net."""

from __future__ import annotations

import base64
import binascii
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

HEX = "0123456789abcdef"
HEXU = HEX.upper()
LOW = string.ascii_lowercase
UP = string.ascii_uppercase
NUM = string.digits
LOWNUM = LOW + NUM
UPNUM = UP + NUM
ALNUM = string.ascii_letters + NUM
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
B32L = LOW + "234567"
BASE62 = NUM + UP + LOW  # GitHub's and npm's checksum alphabet, in value order

Token = tuple[str, list[str]]
Gen = Callable[[random.Random], Token]


def draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def parts(*spec: object) -> Gen:
    """A generator from literal strings and (alphabet, n) or (alphabet, lo, hi) draws; the cores
    are the drawn runs (adjacent ones joined)."""
    def gen(rng: random.Random) -> Token:
        out, cores, run = [], [], ""
        for p in spec:
            if isinstance(p, str):
                out.append(p)
                if run:
                    cores.append(run)
                run = ""
                continue
            alphabet, *n = p  # type: ignore[misc]
            s = draw(rng, alphabet, n[0] if len(n) == 1 else rng.randint(n[0], n[1]))
            out.append(s)
            run += s
        if run:
            cores.append(run)
        return "".join(out), cores
    return gen


def _base62(n: int, width: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = BASE62[r] + out
    return out.rjust(width, "0")


def crc_tailed(prefix: str) -> Gen:
    """GitHub's (and npm's) token: prefix, 30 base62 characters, and the CRC32 of those 30
    characters in 6 base62 digits."""
    def gen(rng: random.Random) -> Token:
        body = draw(rng, ALNUM, 30)
        tail = _base62(binascii.crc32(body.encode()), 6)
        return prefix + body + tail, [body + tail]
    return gen


def pypi_macaroon(rng: random.Random) -> Token:
    """A PyPI upload token: pypi- and a base64url macaroon whose location is pypi.org."""
    ident = json.dumps({"version": 1, "permissions": "user"}).encode()
    blob = (b"\x02\x01\x08pypi.org\x02\x01" + bytes([len(ident)]) + ident
            + b"\x00\x02\x06\x20" + rng.randbytes(32))
    body = base64.urlsafe_b64encode(blob).decode().rstrip("=")
    return "pypi-" + body, [body[20:]]


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(rng: random.Random) -> Token:
    head = b64u(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64u(json.dumps({"sub": str(rng.randrange(10**8)), "iat": 1700000000 + rng.randrange(10**6),
                            "role": "service"}).encode())
    sig = b64u(rng.randbytes(32))
    return f"{head}.{body}.{sig}", [sig]


def pem(kind: str) -> Gen:
    def gen(rng: random.Random) -> Token:
        der = base64.b64encode(b"\x30\x82\x04\xa4\x02\x01\x00" + rng.randbytes(600)).decode()
        lines = [der[i:i + 64] for i in range(0, len(der), 64)]
        return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----", lines[1:-1]
    return gen


def openssh_key(rng: random.Random) -> Token:
    blob = b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none" + rng.randbytes(360)
    der = base64.b64encode(blob).decode()
    lines = [der[i:i + 70] for i in range(0, len(der), 70)]
    return ("-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(lines)
            + "\n-----END OPENSSH PRIVATE KEY-----", lines[1:-1])


def conn_url(scheme: str, host: str) -> Gen:
    def gen(rng: random.Random) -> Token:
        pw = draw(rng, ALNUM, 10) + draw(rng, "!*_-.~", 1) + draw(rng, ALNUM, 8)
        return f"{scheme}://svc_{draw(rng, LOW, 5)}:{pw}@{host}", [pw]
    return gen


def azure_64byte(sig: str) -> Gen:
    """Microsoft's identifiable 64-byte keys: 76 base64, the 4-character service signature,
    5 base64, one of AQgw, '=='."""
    return parts((B64, 76), sig, (B64, 5), ("AQgw", 1), "==")


def azure_32byte(sig: str) -> Gen:
    """Microsoft's identifiable 32-byte keys: 33 base64, the signature, [A-P], 5 base64, '='."""
    return parts((B64, 33), sig, ("ABCDEFGHIJKLMNOP", 1), (B64, 5), "=")


def bitwarden_access_token(rng: random.Random) -> Token:
    """Bitwarden Secrets Manager machine-account access token: version 0, the client id (a
    UUID), the client secret (30 base62), ':' and the base64 of a 16-byte encryption key."""
    secret = draw(rng, ALNUM, 30)
    key = base64.b64encode(rng.randbytes(16)).decode()
    return f"0.{uuid.UUID(int=rng.getrandbits(128), version=4)}.{secret}:{key}", [secret, key[:20]]


def paddle_key(env: str) -> Gen:
    """Paddle Billing API key (since 2025-05): pdl_<env>_apikey_, a ULID, '_', 22 base62, '_',
    3 base62 (a checksum)."""
    ulid = "0123456789abcdefghjkmnpqrstvwxyz"
    return parts(f"pdl_{env}_apikey_01", (ulid, 24), "_", (ALNUM, 22), "_", (ALNUM, 3))


# --- the contexts a token is planted in ------------------------------------------------------


def _claude(text: str) -> str:
    return json.dumps({"type": "user", "sessionId": "5b0e1c9a-3f52-4f7e-9a51-2d7c0d7c9e10", "message": {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01S19recall",
                                     "content": text}]}})


def _codex(text: str) -> str:
    return json.dumps({"timestamp": "2025-06-01T10:00:00.000Z", "type": "response_item", "payload": {
        "type": "function_call_output", "call_id": "call_s19recall", "output": json.dumps(
            {"output": text, "metadata": {"exit_code": 0, "duration_seconds": 0.4}})}})


def _opencode(text: str) -> str:
    return json.dumps({"id": "prt_s19recall0001", "messageID": "msg_s19recall0001", "sessionID": "ses_s19recall0001",
                       "type": "tool", "tool": "bash", "state": {"status": "completed", "input": {
                           "command": "./bin/show-config"}, "output": text}})


# context -> (kind, builder(env_name, token)); kind "text" goes through redact_text, "jsonl"
# through redact_jsonl_line
CONTEXTS: dict[str, tuple[str, Callable[[str, str], str]]] = {
    "prose": ("text", lambda n, t: f"Rotated it this morning; the new one is {t} so update the runner."),
    "env": ("text", lambda n, t: f"$ cat .env\nNODE_ENV=production\n{n}={t}\nPORT=3000\n"),
    "json": ("text", lambda n, t: json.dumps({"service": "billing", "region": "eu-west-1", "value": t})),
    "shell": ("text", lambda n, t: f"$ ./scripts/bootstrap.sh --region eu-west-1 {t}\nbootstrapped 3 services\n"),
    "yaml": ("text", lambda n, t: f"services:\n  billing:\n    region: eu-west-1\n    value: {t}\n"),
    "ini": ("text", lambda n, t: f"[billing]\nregion = eu-west-1\nvalue = {t}\n"),
    "url": ("text", lambda n, t: f"fetching https://api.example.net/v2/items?region=eu&sig={t}&page=2"),
    "python": ("text", lambda n, t: f'client = BillingClient(region="eu-west-1", credential="{t}")\n'),
    "js": ("text", lambda n, t: f"const client = new BillingClient({{ region: 'eu-west-1', credential: '{t}' }});\n"),
    "claude": ("jsonl", lambda n, t: _claude(f"$ ./bin/show-config\nregion: eu-west-1\nvalue: {t}\n")),
    "codex": ("jsonl", lambda n, t: _codex(f"region=eu-west-1\n{t}\n")),
    "opencode": ("jsonl", lambda n, t: _opencode(f"region: eu-west-1\nvalue: {t}\n")),
}
ALL = tuple(CONTEXTS)
# a multi-line block (a PEM key) is not a URL parameter or a one-line shell argument
BLOCK = tuple(c for c in ALL if c not in ("url", "shell", "ini", "prose"))
# a connection string is a value of its own, not a URL parameter
CONN = tuple(c for c in ALL if c != "url")


@dataclass(frozen=True)
class Format:
    name: str
    env: str
    gen: Gen
    contexts: tuple[str, ...] = ALL
    source: str = ""


# --- the formats -----------------------------------------------------------------------------

FORMATS: list[Format] = [
    # first sweep: gitleaks rules, Microsoft identifiable keys, providers' docs
    Format("azure-storage-identifiable-key", "AZURE_STORAGE_KEY", azure_64byte("+ASt"), source="msft SEC101/152"),
    Format("azure-cosmosdb-identifiable-key", "COSMOS_KEY", azure_64byte("ACDb"), source="msft SEC101/160"),
    Format("azure-batch-identifiable-key", "BATCH_KEY", azure_64byte("+ABa"), source="msft SEC101/163"),
    Format("azure-ml-classic-identifiable-key", "AML_KEY", azure_64byte("+AMC"), source="msft SEC101/170"),
    Format("azure-apim-identifiable-key", "APIM_KEY", azure_64byte("APIM"), source="msft SEC101/181-184"),
    Format("azure-function-identifiable-key", "FUNC_KEY", parts((URLSAFE, 44), "AzFu", (URLSAFE, 5), ("AQgw", 1), "=="),
           source="msft SEC101/158"),
    Format("azure-relay-identifiable-key", "RELAY_KEY", azure_32byte("+ARm"), source="msft SEC101/173"),
    Format("azure-eventhub-identifiable-key", "EVENTHUB_KEY", azure_32byte("+AEh"), source="msft SEC101/172"),
    Format("azure-servicebus-identifiable-key", "SB_KEY", azure_32byte("+ASb"), source="msft SEC101/171"),
    Format("azure-iot-identifiable-key", "IOT_KEY", azure_32byte("AIoT"), source="msft SEC101/178-180"),
    Format("azure-redis-identifiable-key", "REDIS_KEY", azure_32byte("AzCa"), source="msft SEC101/154"),
    Format("azure-eventgrid-identifiable-key", "EVENTGRID_KEY", azure_32byte("AZEG"), source="msft SEC101/199"),
    Format("azure-search-identifiable-key", "SEARCH_KEY", parts((ALNUM, 42), "AzSe", ("ABCD", 1), (ALNUM, 5)),
           source="msft SEC101/166-167"),
    Format("azure-acr-identifiable-key", "ACR_PASSWORD", parts((B64, 42), "+ACR", ("ABCD", 1), (B64, 5)),
           source="msft SEC101/176"),
    Format("azure-cognitive-jqqj-key", "AZURE_OPENAI_KEY",
           parts((ALNUM, 52), "JQQJ9", ("9DH", 1), (ALNUM, 1), ("ABCDEFGHIJKL", 1), (ALNUM, 16), (string.ascii_letters, 1),
                 (ALNUM, 7)), source="msft SEC101/200"),
    Format("bitwarden-sm-access-token", "BWS_ACCESS_TOKEN", bitwarden_access_token, source="bitwarden sdk"),
    Format("paddle-live-api-key", "PADDLE_API_KEY", paddle_key("live"), source="paddle docs"),
    Format("paddle-sandbox-api-key", "PADDLE_API_KEY", paddle_key("sdbx"), source="paddle docs"),
    Format("castai-api-key", "CASTAI_API_TOKEN", parts("castai_v1_", (ALNUM, 64), "_", (ALNUM, 8)), source="gitleaks castai"),
    Format("chieftools-pat", "CHIEF_TOKEN", parts("ctp_", (ALNUM, 36)), source="gitleaks chieftools"),
    Format("chieftools-refresh", "CHIEF_REFRESH", parts("ctr_", (ALNUM, 40)), source="gitleaks chieftools"),
    Format("adyen-api-key", "ADYEN_API_KEY", parts("AQE", (LOWNUM, 5, 9), ".", (URLSAFE, 60)), source="gitleaks adyen"),
    Format("braintree-tokenization-key", "BT_TOKENIZATION_KEY", parts("production_", (LOWNUM, 8), "_", (LOWNUM, 16)),
           source="gitleaks braintree"),
    Format("django-insecure-secret-key", "DJANGO_SECRET_KEY",
           parts("django-insecure-", (LOWNUM + "!@#%^&*(-_=+)", 50)), source="gitleaks django"),
    Format("azure-datafactory-shir-key", "SHIR_KEY",
           lambda rng: (lambda b: (f"IR@{uuid.UUID(int=rng.getrandbits(128))}@adf-billing-01@we@{b}", [b]))(
               base64.b64encode(rng.randbytes(32)).decode()), source="gitleaks datafactory"),
    Format("gitlab-pat-routable", "GITLAB_TOKEN", parts("glpat-", (URLSAFE, 27, 40), ".01", (LOWNUM, 7)),
           source="gitleaks gitlab-pat-routable"),
    Format("gitlab-runner-routable", "RUNNER_TOKEN", parts("glrt-t1_", (URLSAFE, 27, 40), ".01", (LOWNUM, 7)),
           source="gitleaks gitlab-runner-routable"),
    Format("planetscale-oauth", "PSCALE_OAUTH", parts("pscale_oauth_", (URLSAFE, 43)), source="gitleaks planetscale"),
    Format("planetscale-password", "DATABASE_PASSWORD", parts("pscale_pw_", (URLSAFE, 43)), source="gitleaks planetscale"),
    Format("settlemint-aat", "SETTLEMINT_TOKEN", parts("sm_aat_", (ALNUM, 16)), source="gitleaks settlemint"),
    Format("settlemint-sat", "SETTLEMINT_TOKEN", parts("sm_sat_", (ALNUM, 16)), source="gitleaks settlemint"),
    Format("easypost-test", "EASYPOST_KEY", parts("EZTK", (ALNUM, 54)), source="gitleaks easypost"),
    Format("facebook-page-token", "FB_PAGE_TOKEN", parts("EAAM", (ALNUM, 160)), source="gitleaks facebook"),
    Format("huggingface-org-token", "HF_ORG", parts("api_org_", (string.ascii_letters, 34)), source="gitleaks huggingface"),
    Format("flyio-macaroon", "FLY_API_TOKEN", parts("fm2_", (B64, 200)), source="gitleaks flyio"),
    Format("claude-code-oauth", "CLAUDE_CODE_OAUTH_TOKEN", parts("sk-ant-oat01-", (URLSAFE, 93), "AA"),
           source="gitleaks claude-code"),
    Format("github-pat-crc", "GITHUB_TOKEN", crc_tailed("ghp_"), source="github"),
    Format("github-oauth-crc", "GH_OAUTH", crc_tailed("gho_"), source="github"),
    Format("github-user-to-server-crc", "GH_USER", crc_tailed("ghu_"), source="github"),
    Format("github-server-to-server-crc", "GH_APP", crc_tailed("ghs_"), source="github"),
    Format("npm-crc", "NPM_TOKEN", crc_tailed("npm_"), source="npm"),
    Format("pypi-macaroon", "TWINE_PASSWORD", pypi_macaroon, source="pypi"),
    Format("jwt-hs256", "SESSION_JWT", jwt, source="rfc7519"),
    Format("slack-bot", "SLACK_BOT_TOKEN", parts("xoxb-", (NUM, 12), "-", (NUM, 13), "-", (ALNUM, 24)), source="slack"),
    Format("slack-user", "SLACK_USER_TOKEN", parts("xoxp-", (NUM, 12), "-", (NUM, 12), "-", (NUM, 13), "-", (HEX, 32)),
           source="slack"),
    Format("stripe-live-secret", "STRIPE_SECRET_KEY", parts("sk_live_", (ALNUM, 99)), source="stripe"),
    Format("stripe-restricted", "STRIPE_KEY", parts("rk_live_", (ALNUM, 99)), source="stripe"),
    Format("aws-access-key", "AWS_ACCESS_KEY_ID", parts("AKIA", ("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)), source="aws"),
    Format("gcp-api-key", "GOOGLE_API_KEY", parts("AIza", (URLSAFE, 35)), source="google"),
    Format("google-oauth-secret", "GOOGLE_CLIENT_SECRET", parts("GOCSPX-", (URLSAFE, 28)), source="google"),
    Format("anthropic-api", "ANTHROPIC_API_KEY", parts("sk-ant-api03-", (URLSAFE, 93), "AA"), source="anthropic"),
    Format("openai-project", "OPENAI_API_KEY", parts("sk-proj-", (URLSAFE, 74), "T3BlbkFJ", (URLSAFE, 74)), source="openai"),
    Format("openai-svcacct", "OPENAI_API_KEY", parts("sk-svcacct-", (URLSAFE, 74), "T3BlbkFJ", (URLSAFE, 74)),
           source="openai"),
    Format("entra-client-secret", "AZURE_CLIENT_SECRET", parts((URLSAFE + "~.", 3), "8Q~", (URLSAFE + "~.", 34)),
           source="msft SEC101/156"),
    Format("nuget-api-key", "NUGET_API_KEY", parts("oy2", (B32L, 43)), source="msft SEC101/031"),
    Format("databricks-pat", "DATABRICKS_TOKEN", parts("dapi", (HEX, 32)), source="databricks"),
    Format("sendgrid", "SENDGRID_API_KEY", parts("SG.", (URLSAFE, 22), ".", (URLSAFE, 43)), source="sendgrid"),
    Format("shopify-custom-app", "SHOPIFY_TOKEN", parts("shpca_", (HEX, 32)), source="shopify"),
    Format("shopify-private-app", "SHOPIFY_TOKEN", parts("shppa_", (HEX, 32)), source="shopify"),
    Format("gitlab-cicd-job", "CI_JOB_TOKEN", parts("glcbt-", (ALNUM, 3), "_", (URLSAFE, 20)), source="gitleaks gitlab"),
    Format("gitlab-runner-registration", "RUNNER_REG", parts("GR1348941", (URLSAFE, 20)), source="gitleaks gitlab"),
    Format("grafana-api-key", "GRAFANA_KEY", parts("eyJrIjoi", (ALNUM, 90)), source="gitleaks grafana"),
    Format("terraform-atlasv1", "TFE_TOKEN", parts((LOWNUM, 14), ".atlasv1.", (URLSAFE, 67)), source="gitleaks hashicorp"),
    Format("new-relic-user-key", "NEW_RELIC_API_KEY", parts("NRAK-", (UPNUM, 27)), source="gitleaks new-relic"),
    Format("sentry-org-token", "SENTRY_AUTH_TOKEN",
           lambda rng: (lambda p, s: ("sntrys_" + p + "_" + s, [s]))(
               base64.b64encode(json.dumps({"iat": 1700000000, "url": "https://sentry.io",
                                            "region_url": "https://us.sentry.io", "org": "acme"}).encode()).decode().rstrip("="),
               draw(rng, B64, 43)), source="gitleaks sentry"),
    Format("square-access", "SQUARE_TOKEN", parts("EAAA", (URLSAFE, 60)), source="square"),
    Format("square-oauth-secret", "SQUARE_SECRET", parts("sq0csp-", (URLSAFE, 43)), source="square"),
    Format("typeform", "TYPEFORM_TOKEN", parts("tfp_", (URLSAFE, 59)), source="gitleaks typeform"),
    Format("vault-service", "VAULT_TOKEN", parts("hvs.", (URLSAFE, 95)), source="hashicorp"),
    Format("doppler-service", "DOPPLER_TOKEN", parts("dp.st.", (ALNUM, 43)), source="doppler"),
    Format("scalingo", "SCALINGO_TOKEN", parts("tk-us-", (URLSAFE, 48)), source="gitleaks scalingo"),
    Format("pem-rsa", "TLS_KEY", pem("RSA PRIVATE KEY"), BLOCK, source="rfc7468"),
    Format("pem-pkcs8", "TLS_KEY", pem("PRIVATE KEY"), BLOCK, source="rfc7468"),
    Format("pem-ec", "TLS_KEY", pem("EC PRIVATE KEY"), BLOCK, source="rfc7468"),
    Format("openssh-private-key", "DEPLOY_KEY", openssh_key, BLOCK, source="openssh PROTOCOL.key"),
    Format("postgres-url", "DATABASE_URL", conn_url("postgresql", "db.internal:5432/app"), CONN, source="libpq"),
    Format("mongodb-srv-url", "MONGO_URL", conn_url("mongodb+srv", "cluster0.ab1cd.mongodb.net/app"), CONN, source="mongodb"),
    Format("redis-url", "REDIS_URL", conn_url("rediss", "cache.internal:6380/0"), CONN, source="redis"),
    Format("amqp-url", "AMQP_URL", conn_url("amqps", "mq.internal/vhost"), CONN, source="rabbitmq"),
    # second sweep (trufflehog detectors and providers' documented shapes)
    Format("trello-token", "TRELLO_TOKEN", parts("ATTA", (HEX, 64), (HEXU, 8)), source="trello"),
    Format("clickup-pat", "CLICKUP_TOKEN", parts("pk_", (NUM, 8), "_", (UPNUM, 32)), source="clickup"),
    Format("youtrack-permanent-token", "YOUTRACK_TOKEN",
           lambda rng: (lambda s: (f"perm:{base64.b64encode(b'deploy-bot').decode()}.NDQtMTI=.{s}", [s]))(draw(rng, ALNUM, 30)),
           source="jetbrains hub"),
    Format("teamcity-token", "TEAMCITY_TOKEN", parts("eyJ0eXAiOiAiVENWMiJ9.", (URLSAFE, 36), ".", (URLSAFE, 48)), source="teamcity"),
    Format("llamacloud-key", "LLAMA_CLOUD_API_KEY", parts("llx-", (ALNUM, 48)), source="llamaindex"),
    Format("docker-org-token", "DOCKER_TOKEN", parts("dckr_oat_", (URLSAFE, 32)), source="docker"),
    Format("together-v1", "TOGETHER_API_KEY", parts("tgp_v1_", (URLSAFE, 43)), source="together"),
    Format("langsmith-sk", "LANGSMITH_API_KEY", parts("lsv2_sk_", (HEX, 32), "_", (HEX, 10)), source="langsmith"),
    Format("claude-session-key", "CLAUDE_SESSION", parts("sk-ant-sid01-", (URLSAFE, 93), "AA"), source="anthropic"),
    Format("elevenlabs-sk", "ELEVENLABS_API_KEY", parts("sk_", (HEX, 48)), source="elevenlabs"),
    Format("deno-deploy", "DENO_DEPLOY_TOKEN", parts("ddp_", (ALNUM, 36)), source="deno"),
    Format("databricks-oauth-secret", "DATABRICKS_CLIENT_SECRET", parts("dose", (HEX, 32)), source="databricks"),
    Format("daytona-key", "DAYTONA_API_KEY", parts("dtn_", (HEX, 64)), source="daytona"),
    Format("linear-oauth", "LINEAR_TOKEN", parts("lin_oauth_", (HEX, 64)), source="linear"),
    Format("discord-bot", "DISCORD_TOKEN",
           lambda rng: (lambda i, a, b: (f"{i}.{a}.{b}", [b]))(
               b64u(str(rng.randrange(10**17, 10**18)).encode()), draw(rng, URLSAFE, 6), draw(rng, URLSAFE, 38)),
           source="discord"),
    Format("volcengine-ak", "VOLC_ACCESSKEY", parts("AKLT", (URLSAFE, 43)), source="volcengine"),
    Format("jdcloud-ak", "JDC_ACCESS_KEY", parts("JDC_", (UPNUM, 28)), source="jdcloud"),
    Format("tencent-secret-id", "TENCENTCLOUD_SECRET_ID", parts("AKID", (ALNUM, 32)), source="tencent"),
    Format("alibaba-ak", "ALIBABA_CLOUD_ACCESS_KEY_ID", parts("LTAI", (ALNUM, 20)), source="alibaba"),
    Format("tavily-dev", "TAVILY_API_KEY", parts("tvly-dev-", (ALNUM, 32)), source="tavily"),
    Format("bip32-xprv", "WALLET_XPRV", parts("xprv9", ("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 106)),
           source="bip32"),
    Format("airtable-pat", "AIRTABLE_TOKEN", parts("pat", (ALNUM, 14), ".", (HEX, 64)), source="airtable"),
    Format("asana-pat", "ASANA_TOKEN", parts("2/", (NUM, 16), "/", (NUM, 16), ":", (HEX, 32)), source="asana"),
    Format("figma-pat", "FIGMA_TOKEN", parts("figd_", (URLSAFE, 40)), source="figma"),
    Format("atlassian-bitbucket", "BITBUCKET_TOKEN", parts("ATBB", (ALNUM, 32), (HEXU, 8)), source="bitbucket"),
    Format("sourcegraph", "SRC_ACCESS_TOKEN", parts("sgp_", (HEX, 16), "_", (HEX, 40)), source="sourcegraph"),
    Format("harness-pat", "HARNESS_TOKEN", parts("pat.", (URLSAFE, 22), ".", (ALNUM, 24), ".", (ALNUM, 20)), source="harness"),
    Format("octopus", "OCTOPUS_API_KEY", parts("API-", (UPNUM, 26)), source="octopus"),
    Format("buildkite", "BUILDKITE_TOKEN", parts("bkua_", (HEX, 40)), source="buildkite"),
    Format("sonarqube-user", "SONAR_TOKEN", parts("squ_", (HEX, 40)), source="sonar"),
    Format("twilio-api-key", "TWILIO_API_KEY", parts("SK", (HEX, 32)), source="twilio"),
    Format("mailchimp", "MAILCHIMP_KEY", parts((HEX, 32), "-us", (NUM, 2)), source="mailchimp"),
    Format("hubspot-pat", "HUBSPOT_TOKEN", lambda rng: (lambda u: (f"pat-na1-{u}", [u]))(str(uuid.UUID(int=rng.getrandbits(128)))),
           source="hubspot"),
    Format("pinecone", "PINECONE_API_KEY", parts("pcsk_", (ALNUM, 6), "_", (ALNUM, 63)), source="pinecone"),
    Format("cerebras", "CEREBRAS_API_KEY", parts("csk-", (LOWNUM, 48)), source="cerebras"),
    Format("fireworks", "FIREWORKS_API_KEY", parts("fw_", (ALNUM, 24)), source="fireworks"),
    Format("firecrawl", "FIRECRAWL_API_KEY", parts("fc-", (HEX, 32)), source="firecrawl"),
    Format("tailscale-api", "TS_API_KEY", parts("tskey-api-", (ALNUM, 12), "CNTRL-", (ALNUM, 33)), source="tailscale"),
    Format("circleci-pat", "CIRCLE_TOKEN", parts("CCIPAT_", (ALNUM, 22), "_", (HEX, 40)), source="circleci"),
    Format("supabase-secret", "SUPABASE_SECRET_KEY", parts("sb_secret_", (URLSAFE, 31)), source="supabase"),
    Format("mapbox-secret", "MAPBOX_TOKEN", lambda rng: (lambda a, b: (f"sk.{a}.{b}", [b]))(
        b64u(json.dumps({"u": "acme", "a": draw(rng, LOWNUM, 10)}, separators=(",", ":")).encode()), draw(rng, URLSAFE, 22)), source="mapbox"),

]

# the formats the s19 probe found leaking, and the rule (rules/secrets.toml, block `s19 recall`)
# that now finds them by their shape alone; every other format was already caught
NEW: dict[str, str] = {
    **{f: "azure-identifiable-key" for f in (
        "azure-storage-identifiable-key", "azure-cosmosdb-identifiable-key", "azure-batch-identifiable-key",
        "azure-ml-classic-identifiable-key", "azure-apim-identifiable-key",
        "azure-relay-identifiable-key", "azure-eventhub-identifiable-key", "azure-servicebus-identifiable-key",
        "azure-iot-identifiable-key", "azure-redis-identifiable-key", "azure-eventgrid-identifiable-key",
        "azure-acr-identifiable-key")},
    **{f: "azure-identifiable-key-fn-search" for f in ("azure-function-identifiable-key", "azure-search-identifiable-key")},
    "azure-cognitive-jqqj-key": "azure-annotated-key",
    "bitwarden-sm-access-token": "bitwarden-sm-access-token",
    "paddle-live-api-key": "paddle-api-key",
    "paddle-sandbox-api-key": "paddle-api-key",
    "castai-api-key": "castai-api-key",
    "chieftools-pat": "chieftools-token",
    "chieftools-refresh": "chieftools-token",
    "adyen-api-key": "adyen-api-key",
    "braintree-tokenization-key": "braintree-tokenization-key",
    "django-insecure-secret-key": "django-insecure-secret-key",
    "azure-datafactory-shir-key": "azure-datafactory-shir-key",
    "trello-token": "trello-token",
    "clickup-pat": "clickup-api-token",
    "youtrack-permanent-token": "youtrack-permanent-token",
    "teamcity-token": "teamcity-token",
    "llamacloud-key": "llamacloud-api-key",
    "claude-session-key": "anthropic-session-key",
    "deno-deploy": "deno-deploy-token",
    "databricks-oauth-secret": "databricks-oauth-secret",
    "daytona-key": "daytona-api-key",
    "volcengine-ak": "volcengine-access-key-id",
    "jdcloud-ak": "jdcloud-access-key",
    "bip32-xprv": "bip32-extended-private-key",
}
# formats the sweep checked and left leaking, with the reason (no rule: see the s19 report)
LEFT: dict[str, tuple[Gen, str]] = {
    "modal-token-secret": (parts("as-", (ALNUM, 22)),
                           "as- and 22 base62: a three-character prefix too common in text to carry a high rule alone"),
    "zhipu-key": (parts((HEX, 32), ".", (ALNUM, 16)),
                  "32 hex, '.', 16 base62: no prefix or keyword, an always-on rule the shape of a file hash and suffix"),
}
BY_NAME = {f.name: f for f in FORMATS}


def samples(seed: int, per_format: int = 2) -> list[tuple[Format, str, list[str]]]:
    rng = random.Random(seed)
    return [(f, *f.gen(rng)) for f in FORMATS for _ in range(per_format)]
