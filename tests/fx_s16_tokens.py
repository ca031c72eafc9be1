"""s16 provider-token samples: every token family as a format (prefix, alphabet, length), sampled
with a seeded RNG, in three carriers (a bare tool-output line, `NAME=<token>` in a .env read, a
JSON string in a Claude Code tool_result), plus negatives (ids, digests, base64 data) that sit
next to the same keywords and must stay byte for byte.

The formats are written from the providers' token shapes; `NEW` are the families the s16 probe
found leaking (rules/secrets.toml, block `s16 provider tokens`), `COVERED` the families it found
already redacted (a regression net). Samples are made at test time: no token-shaped literal of a
scanned provider sits in the repository."""

from __future__ import annotations

import base64
import json
import random
import string
from typing import Any

HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
LOW = string.ascii_lowercase
LOWNUM = LOW + string.digits
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
NUM = string.digits

# A part is a literal string or (alphabet, length); (alphabet, min, max) draws a length.
Part = "str | tuple"


def _draw(rng: random.Random, part: object) -> str:
    if isinstance(part, str):
        return part
    alphabet, *n = part  # type: ignore[misc]
    size = n[0] if len(n) == 1 else rng.randint(n[0], n[1])
    return "".join(rng.choice(alphabet) for _ in range(size))


# family -> (env name, parts). The secret core of a sample is every drawn (non-literal) part.
NEW: dict[str, tuple[str, list[object]]] = {
    "mailgun-key-bare": ("MG_KEY", ["key-", (LOWNUM, 32)]),
    "okta-ssws": ("OKTA_AUTH_HEADER", ["SSWS 00", (URLSAFE, 40)]),
    "heroku-hrku-uuid": ("HEROKU_AUTH", ["HRKU-", (HEX, 8), "-", (HEX, 4), "-4", (HEX, 3), "-a", (HEX, 3), "-", (HEX, 12)]),
    "onepassword-ops-short": ("OP_SA", ["ops_eyJ", (B64, 60, 200)]),
    "authress-access-key": ("AUTHRESS_CLIENT", ["sc_", (ALNUM, 12), ".", (ALNUM, 5), ".acc_", (LOWNUM, 16), ".", (URLSAFE, 60)]),
    "flutterwave-public-key": ("FLW_PUBLIC", ["FLWPUBK_TEST-", (HEX, 32), "-X"]),
    "dropbox-long-lived-bare": ("DBX", [(ALNUM, 11), "AAAAAAAAAA", (URLSAFE, 43)]),
    "twitter-bearer-bare": ("TW_BEARER", ["AAAAAAAAAAAAAAAAAAAAA", ("BCDEFGHIJKLMNOPQRSTUVWXYZ" + LOWNUM, 1), (ALNUM, 70, 100)]),
    "twitch-irc-oauth": ("TWITCH_IRC", ["oauth:", (LOWNUM, 30)]),
    "lob-live-key": ("LOB", ["live_", (HEX, 35)]),
    "lob-test-pub-key": ("LOB_PUB", ["test_pub_", (HEX, 31)]),
    "sidekiq-url": ("BUNDLE_SOURCE", ["https://", (HEX, 8), ":", (HEX, 8), "@gems.contribsys.com/"]),
    "slack-xoxe-numeric": ("SLACK_ROTATING", ["xoxe-", (NUM, 10), "-", (NUM, 13), "-", (NUM, 10), "-", (ALNUM, 32)]),
    "facebook-app-token": ("FACEBOOK_APP", [(NUM, 16), "|", (ALNUM, 32)]),
}

COVERED: dict[str, tuple[str, list[object]]] = {
    "github-pat": ("GH", ["ghp_", (ALNUM, 36)]),
    "github-oauth": ("GH", ["gho_", (ALNUM, 36)]),
    "github-app": ("GH", ["ghs_", (ALNUM, 36)]),
    "github-refresh": ("GH", ["ghr_", (ALNUM, 36)]),
    "github-fine-grained": ("GH", ["github_pat_", (ALNUM, 22), "_", (ALNUM, 59)]),
    "gitlab-pat": ("GL", ["glpat-", (URLSAFE, 20)]),
    "gitlab-deploy": ("GL", ["gldt-", (URLSAFE, 20)]),
    "gitlab-runner": ("GL", ["glrt-", (URLSAFE, 20)]),
    "gitlab-ptt": ("GL", ["glptt-", (HEX, 40)]),
    "gitlab-oauth-secret": ("GL", ["gloas-", (URLSAFE, 64)]),
    "gitlab-agent": ("GL", ["glagent-", (URLSAFE, 50)]),
    "slack-bot": ("SLACK", ["xoxb-", (NUM, 12), "-", (NUM, 13), "-", (ALNUM, 24)]),
    "slack-user": ("SLACK", ["xoxp-", (NUM, 12), "-", (NUM, 13), "-", (NUM, 13), "-", (HEX, 32)]),
    "slack-app": ("SLACK", ["xapp-1-A", (ALNUM.upper()[:36], 10), "-", (NUM, 13), "-", (HEX, 64)]),
    "openai-project": ("OAI", ["sk-proj-", (URLSAFE, 74), "T3BlbkFJ", (URLSAFE, 74)]),
    "anthropic-api": ("ANT", ["sk-ant-api03-", (URLSAFE, 93), "AA"]),
    "anthropic-admin": ("ANT", ["sk-ant-admin01-", (URLSAFE, 93), "AA"]),
    "aws-access-key": ("AWS_ID", ["AKIA", ("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)]),
    "gcp-api-key": ("GCP", ["AIza", (URLSAFE, 35)]),
    "stripe-secret": ("STRIPE", ["sk_live_", (ALNUM, 24, 99)]),
    "stripe-restricted": ("STRIPE", ["rk_live_", (ALNUM, 24, 99)]),
    "sendgrid": ("SG", ["SG.", (URLSAFE, 22), ".", (URLSAFE, 43)]),
    "npm": ("NPM", ["npm_", (ALNUM, 36)]),
    "pypi": ("PYPI", ["pypi-AgEIcHlwaS5vcmc", (URLSAFE, 70, 180)]),
    "digitalocean-pat": ("DO", ["dop_v1_", (HEX, 64)]),
    "digitalocean-oauth": ("DO", ["doo_v1_", (HEX, 64)]),
    "doppler": ("DP", ["dp.pt.", (ALNUM, 43)]),
    "dynatrace": ("DT", ["dt0c01.", ("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 24), ".", (ALNUM, 64)]),
    "shopify-access": ("SHOP", ["shpat_", (HEX, 32)]),
    "shopify-shared-secret": ("SHOP", ["shpss_", (HEX, 32)]),
    "linear": ("LIN", ["lin_api_", (ALNUM, 40)]),
    "huggingface": ("HF", ["hf_", (string.ascii_letters, 34)]),
    "perplexity": ("PPLX", ["pplx-", (ALNUM, 48)]),
    "postman": ("PM", ["PMAK-", (HEX, 24), "-", (HEX, 34)]),
    "pulumi": ("PUL", ["pul-", (HEX, 40)]),
    "rubygems": ("GEM", ["rubygems_", (HEX, 48)]),
    "sentry-user": ("SENTRY", ["sntryu_", (HEX, 64)]),
    "grafana-service-account": ("GRAFANA", ["glsa_", (ALNUM, 32), "_", (HEX, 8)]),
    "grafana-cloud": ("GRAFANA", ["glc_", (B64, 40, 120)]),
    "vault-service": ("VAULT", ["hvs.", (URLSAFE, 90, 120)]),
    "vault-batch": ("VAULT", ["hvb.", (URLSAFE, 138, 200)]),
    "atlassian-api": ("JIRA", ["ATATT3", (URLSAFE, 186)]),
    "clojars": ("CLOJARS", ["CLOJARS_", (LOWNUM, 60)]),
    "databricks": ("DBR", ["dapi", (HEX, 32)]),
    "easypost": ("EP", ["EZAK", (ALNUM, 54)]),
    "duffel": ("DUFFEL", ["duffel_live_", (URLSAFE, 43)]),
    "frameio": ("FRAMEIO", ["fio-u-", (URLSAFE, 64)]),
    "planetscale": ("PSCALE", ["pscale_tkn_", (URLSAFE, 43)]),
    "readme": ("README", ["rdme_", (LOWNUM, 70)]),
    "sendinblue": ("BREVO", ["xkeysib-", (HEX, 64), "-", (ALNUM, 16)]),
    "prefect": ("PREFECT", ["pnu_", (ALNUM, 36)]),
    "infracost": ("INFRACOST", ["ico-", (ALNUM, 32)]),
    "notion": ("NOTION", ["ntn_", (NUM, 11), (ALNUM, 35)]),
    "flyio": ("FLY", ["fo1_", (URLSAFE, 43)]),
    "intra42": ("INTRA", ["s-s4t2ud-", (HEX, 64)]),
    "settlemint": ("SETTLEMINT", ["sm_pat_", (ALNUM, 16)]),
    "shippo": ("SHIPPO", ["shippo_live_", (HEX, 40)]),
    "maxmind": ("MAXMIND", [(ALNUM, 6), "_", (ALNUM, 29), "_mmk"]),
    "openshift": ("OC", ["sha256~", (URLSAFE, 43)]),
    "age-secret-key": ("AGE", ["AGE-SECRET-KEY-1", ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)]),
    "heroku-v2": ("HEROKU_AUTH", ["HRKU-AA", (URLSAFE, 58)]),
    "onepassword-secret-key": ("OP", ["A3-", (HEXU + "GHJKLMNPQRSTVWXYZ", 6), "-", (HEXU + "GHJKLMNPQRSTVWXYZ", 11), "-",
                                      (HEXU + "GHJKLMNPQRSTVWXYZ", 5), "-", (HEXU + "GHJKLMNPQRSTVWXYZ", 5), "-",
                                      (HEXU + "GHJKLMNPQRSTVWXYZ", 5)]),
    "onepassword-service-account-long": ("OP", ["ops_eyJ", (B64, 300, 500)]),
    "cloudflare-origin-ca": ("CF", ["v1.0-", (HEX, 24), "-", (HEX, 146)]),
    "teams-webhook": ("TEAMS", ["https://acme.webhook.office.com/webhookb2/", (HEX, 8), "-", (HEX, 4), "-", (HEX, 4), "-",
                                (HEX, 4), "-", (HEX, 12), "@", (HEX, 8), "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 4), "-",
                                (HEX, 12), "/IncomingWebhook/", (HEX, 32), "/", (HEX, 8), "-", (HEX, 4), "-", (HEX, 4),
                                "-", (HEX, 4), "-", (HEX, 12)]),
    "slack-webhook": ("SLACK_HOOK", ["https://hooks.slack.com/services/T", (ALNUM.upper()[:36], 10), "/B",
                                     (ALNUM.upper()[:36], 10), "/", (ALNUM, 24)]),
    "telegram-bot": ("TG", [(NUM, 10), ":AA", (URLSAFE, 33)]),
    "docker-hub": ("DOCKER", ["dckr_pat_", (URLSAFE, 27)]),
    "tailscale": ("TS", ["tskey-auth-", (ALNUM, 12), "-", (ALNUM, 30)]),
    "groq": ("GROQ", ["gsk_", (ALNUM, 52)]),
    "openrouter": ("OR", ["sk-or-v1-", (HEX, 64)]),
    "replicate": ("R8", ["r8_", (ALNUM, 37)]),
    "posthog-personal": ("PH", ["phx_", (ALNUM, 43)]),
    "langsmith": ("LS", ["lsv2_pt_", (HEX, 32), "_", (HEX, 10)]),
    "google-oauth-access": ("GOOG", ["ya29.", (URLSAFE, 80, 150)]),
    "resend": ("RESEND", ["re_", (ALNUM, 8), "_", (ALNUM, 24)]),
    "stripe-webhook": ("STRIPE_WH", ["whsec_", (ALNUM, 32)]),
    "supabase-pat": ("SUPA", ["sbp_", (HEX, 40)]),
    "neon": ("NEON", ["napi_", (LOWNUM, 64)]),
    "render": ("RENDER", ["rnd_", (ALNUM, 32)]),
    "netlify": ("NETLIFY", ["nfp_", (ALNUM, 36)]),
}

FAMILIES = {**NEW, **COVERED}
# Families whose rule is gated by a word of the text around the token (the token alone is too plain):
# their bare and JSON carriers show the token where it is used.
CONTEXT = {"facebook-app-token": "GET https://graph.facebook.com/debug_token?access_token="}


def token(family: str, rng: random.Random) -> tuple[str, list[str]]:
    """A sample of the family and its secret cores (the drawn parts, adjacent ones joined)."""
    _, parts = FAMILIES[family]
    out: list[str] = []
    cores: list[str] = []
    joined = ""
    for part in parts:
        s = _draw(rng, part)
        out.append(s)
        if isinstance(part, str):
            if joined:
                cores.append(joined)
            joined = ""
        else:
            joined += s
    if joined:
        cores.append(joined)
    return "".join(out), cores


def carriers(family: str, tok: str) -> dict[str, tuple[str, str]]:
    """carrier -> (kind, text): kind "text" goes through redact_text, "jsonl" through redact_jsonl_line."""
    name = FAMILIES[family][0]
    tok = CONTEXT.get(family, "") + tok
    record = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01S16tok", "content": f"$ ./deploy --print\nusing {tok}\nok\n"}]}}
    return {
        "bare": ("text", f"tool output: {tok} done"),
        "env": ("text", f"$ cat .env\nNODE_ENV=production\n{name}={tok[len(CONTEXT.get(family, '')):]}\nPORT=3000\n"),
        "json": ("jsonl", json.dumps(record)),
    }


def samples(seed: int, per_family: int = 3) -> list[tuple[str, str, list[str]]]:
    """(family, token, cores) for every family, per_family draws each."""
    rng = random.Random(seed)
    return [(fam, *token(fam, rng)) for fam in FAMILIES for _ in range(per_family)]


def negatives(seed: int) -> list[tuple[str, str]]:
    """Text next to the new rules' keywords that holds no secret: ids, digests, base64 data."""
    rng = random.Random(seed)
    sha = "".join(rng.choice(HEX) for _ in range(40))
    md5 = "".join(rng.choice(HEX) for _ in range(32))
    uuid = "-".join("".join(rng.choice(HEX) for _ in range(n)) for n in (8, 4, 4, 4, 12))
    integrity = base64.b64encode(rng.randbytes(64)).decode()
    zeros_b64 = base64.b64encode(rng.randbytes(9) + bytes(40) + rng.randbytes(60)).decode()
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(24) + rng.randbytes(90) + bytes(30)).decode()
    return [
        ("git-sha-key-branch", f"commit {sha} (origin/key-rotation)\nMerge: {sha[:7]} {sha[7:14]}\n"),
        ("uuid-hrku-note", f"request {uuid} failed: tokens must start with HRKU- now\n"),
        ("cache-key-md5", f"Cache restored from key: node-cache-Linux-key-{md5}\n"),
        ("lockfile-integrity", f'"node_modules/test_utils": {{"integrity": "sha512-{integrity}", "resolved": "x"}}\n'),
        ("base64-zero-run", f"oauth: refresh\nblob: {zeros_b64}\n"),
        ("png-data-uri", f"live_preview: data:image/png;base64,{png}\n"),
        ("pytest-names", f"tests/test_{md5[:30]}.py::test_parse_config_with_long_name PASSED\n"),
        ("ssws-word", "Okta expects the header `Authorization: SSWS {api_token}`\n"),
        ("xoxe-doc", "rotating tokens look like xoxe-1-... and expire in 12 hours\n"),
        ("facebook-table", f"| facebook | {rng.randrange(10**15, 10**16)} | enabled |\n"),
    ]


WINDOW = 12  # a surviving run of this many characters of a secret core counts as a leak


def redact_as(red: Any, kind: str, text: str) -> tuple[str, Any]:
    """`text` redacted as prose (`kind` "text") or as one JSONL line."""
    from archiver.redact.base import RedactionReport

    report = RedactionReport()
    if kind == "text":
        return red.redact_text(text, report), report
    return red.redact_jsonl_line(text.encode(), report).decode(), report


def survivors(cores: list[str], out: str, window: int = WINDOW) -> list[str]:
    """The secret cores of which a run of `window` characters (or the whole, if shorter) is left in out."""
    bad = []
    for core in cores:
        w = min(window, len(core))
        if any(core[i:i + w] in out for i in range(len(core) - w + 1)):
            bad.append(core)
    return bad
