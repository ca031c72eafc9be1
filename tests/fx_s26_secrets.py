"""s26 secrets sweep: the credentials session 25's recall sweep left open and the providers of
gitleaks' default config (config/gitleaks.toml) and detect-secrets' plugins it did not plant,
made from their public formats with a seeded RNG and planted in fx_s25_recall's shapes (.env read
by Claude Code, `env` in a Codex output, MCP JSON config, diff, shell, YAML, TOML, URL, prose,
pi and DeepSeek tool results) plus three of this file: a request header, a JSON field of a
Claude record (`toolUseResult`), and a k8s env entry written as JSON.

Data, not tests. `CREDS` reuses fx_s25_recall's `Cred` (generator -> value and its secret cores);
`SENTRY` are DSNs whose host and project must stay readable; `UUID_IDS` are texts and records in
which UUIDs are ids (session, request, tool call, file names) under names the credential rule
must not take: they come out byte for byte. No token literal of a provider sits here."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from tests.fx_s25_recall import (
    A, ALNUM, B32U, B64, HEX, LOWNUM, NUM, SESSION, UPNUM, URLSAFE, Cred, Token, b64, claude_tool_result,
    codex_output, draw, parts, planted, uuid4, uuid_token,
)

# --- generators -------------------------------------------------------------------------------


def sentry_modern_dsn(rng: random.Random) -> Token:
    """A DSN as Sentry shows it since 2020: public key @ o<org>.ingest[.<region>].sentry.io / <project>."""
    key = draw(rng, HEX, 32)
    region = rng.choice(("", "us.", "de."))
    return f"https://{key}@o{rng.randrange(10**5, 10**7)}.ingest.{region}sentry.io/{rng.randrange(10**15, 10**16)}", [key]


def sentry_legacy_full(rng: random.Random) -> Token:
    """The pre-2019 DSN: public key : secret key @ sentry.io / <project>; both keys are cores."""
    pub, secret = draw(rng, HEX, 32), draw(rng, HEX, 32)
    return f"https://{pub}:{secret}@sentry.io/{rng.randrange(10**5, 10**6)}", [pub, secret]


def sentry_selfhosted(rng: random.Random) -> Token:
    key = draw(rng, HEX, 32)
    return f"http://{key}@sentry.acme.internal:9000/{rng.randrange(2, 90)}", [key]


def bedrock_key(rng: random.Random) -> Token:
    """Amazon Bedrock long-lived API key: ABSK and base64 of `BedrockAPIKey-<id>-at-<account>:<secret>`."""
    body = b64(f"BedrockAPIKey-{draw(rng, LOWNUM, 4)}-at-{draw(rng, NUM, 12)}:".encode() + rng.randbytes(60))
    return "ABSK" + body, [body[40:]]


def github_legacy_url(rng: random.Random) -> Token:
    tok = draw(rng, HEX, 40)
    return f"https://acme-ci:{tok}@github.com/acme/api.git", [tok]


def twitter_access_token(rng: random.Random) -> Token:
    tail = draw(rng, ALNUM, 40)
    return f"{rng.randrange(10**18, 10**19)}-{tail}", [tail]


def yandex_iam_token(rng: random.Random) -> Token:
    body = draw(rng, URLSAFE, 86)
    return f"t1.9euelZq{draw(rng, URLSAFE, 60)}.{body}", [body]


# --- the credentials -------------------------------------------------------------------------------

LD_UUID = uuid_token  # LaunchDarkly keys: api-, sdk-, mob- and a UUID

CREDS: list[Cred] = [
    # 1. LaunchDarkly keys alone (s25 planted them only under a name)
    Cred("launchdarkly-api-bare", "LD_ACCESS_TOKEN", LD_UUID("api-"), anchored=A, source="launchdarkly"),
    Cred("launchdarkly-sdk-bare", "LD_SDK_KEY", LD_UUID("sdk-"), anchored=A, source="launchdarkly"),
    Cred("launchdarkly-mobile-bare", "LD_MOBILE_KEY", LD_UUID("mob-"), anchored=A, source="launchdarkly"),
    # 2. Sentry
    Cred("sentry-modern-dsn", "SENTRY_DSN", sentry_modern_dsn, anchored=A, url_param=None, source="sentry"),
    Cred("sentry-legacy-dsn-both-keys", "SENTRY_DSN", sentry_legacy_full, anchored=A, url_param=None, source="sentry"),
    Cred("sentry-selfhosted-dsn", "SENTRY_DSN", sentry_selfhosted, url_param=None, source="sentry"),
    Cred("sentry-user-token-bare", "SENTRY_TOKEN", parts("sntryu_", (HEX, 64)), anchored=A, source="sentry"),
    # 3. a UUID used as a credential, under names that say so
    Cred("uuid-api-key", "API_KEY", uuid_token(), source="generic"),
    Cred("uuid-access-token-lower", "access_token", uuid_token(), source="generic"),
    Cred("uuid-token", "TOKEN", uuid_token(), source="generic"),
    Cred("uuid-client-secret", "CLIENT_SECRET", uuid_token(), source="generic"),
    Cred("uuid-license-key", "LICENSE_KEY", uuid_token(), source="generic"),
    Cred("uuid-deploy-key", "DEPLOY_KEY", uuid_token(), source="generic"),
    Cred("uuid-sdk-key", "SDK_KEY", uuid_token(), source="generic"),
    Cred("uuid-ingest-key", "INGEST_KEY", uuid_token(), source="generic"),
    Cred("uuid-write-key", "WRITE_KEY", uuid_token(), source="generic"),
    Cred("uuid-secret-key", "SECRET_KEY", uuid_token(), source="generic"),
    Cred("uuid-master-key", "MASTER_KEY", uuid_token(), source="generic"),
    Cred("uuid-pat", "PAT", uuid_token(), source="generic"),
    Cred("uuid-passphrase", "PASSPHRASE", uuid_token(), source="generic"),
    Cred("uuid-credentials", "CREDENTIALS", uuid_token(), source="generic"),
    Cred("uuid-acme-auth", "ACME_AUTH", uuid_token(), source="generic"),
    Cred("uuid-upper-api-token", "ACME_API_TOKEN", uuid_token(upper=True), source="generic"),
    Cred("kucoin-secret", "KUCOIN_API_SECRET", uuid_token(), source="gitleaks kucoin"),
    Cred("squarespace-key", "SQUARESPACE_API_KEY", uuid_token(), source="gitleaks squarespace"),
    Cred("sendbird-access-id", "SENDBIRD_API_TOKEN", uuid_token(), source="gitleaks sendbird"),
    Cred("vault-legacy-uuid-token", "VAULT_TOKEN", uuid_token(), shell="vault login {v}", source="hashicorp < 1.0"),
    # 4. gitleaks' and detect-secrets' providers s25 did not plant
    Cred("adobe-client-secret", "ADOBE_CLIENT_SECRET", parts("p8e-", (ALNUM, 32)), anchored=A, source="gitleaks adobe"),
    Cred("adafruit-io-key", "ADAFRUIT_IO_KEY", parts("aio_", (ALNUM, 28)), anchored=A, source="adafruit"),
    Cred("airtable-legacy-key", "AIRTABLE_API_KEY", parts("key", (ALNUM, 14)), source="gitleaks airtable"),
    Cred("asana-client-secret", "ASANA_CLIENT_SECRET", parts((LOWNUM, 32)), source="gitleaks asana"),
    Cred("beamer-token", "BEAMER_API_KEY", parts("b_", (URLSAFE, 44)), source="gitleaks beamer"),
    Cred("bitbucket-client-secret", "BITBUCKET_CLIENT_SECRET", parts((ALNUM, 32)), source="gitleaks bitbucket"),
    Cred("bittrex-secret", "BITTREX_API_SECRET", parts((HEX, 32)), source="gitleaks bittrex"),
    Cred("meraki-key", "MERAKI_DASHBOARD_API_KEY", parts((HEX, 40)), source="gitleaks meraki"),
    Cred("clickhouse-secret", "CLICKHOUSE_KEY_SECRET", parts("4b1d", (ALNUM, 38)), anchored=A, source="gitleaks clickhouse"),
    Cred("cloudflare-origin-ca", "CF_ORIGIN_CA_KEY", parts("v1.0-", (HEX, 24), "-", (HEX, 146)), anchored=A,
         source="gitleaks cloudflare"),
    Cred("coinbase-secret", "COINBASE_API_SECRET", parts((URLSAFE, 64)), source="gitleaks coinbase"),
    Cred("contentful-delivery", "CONTENTFUL_DELIVERY_TOKEN", parts((URLSAFE, 43)), source="gitleaks contentful"),
    Cred("databricks-suffixed", "DATABRICKS_TOKEN", parts("dapi", (HEX, 32), "-2"), anchored=A, source="gitleaks databricks"),
    Cred("defined-networking", "DN_API_KEY", parts("dnkey-", (B32U, 26), "-", (B32U, 52)), anchored=A,
         source="gitleaks defined networking"),
    Cred("discord-client-secret", "DISCORD_CLIENT_SECRET", parts((URLSAFE, 32)), source="gitleaks discord"),
    Cred("dropbox-short-lived", "DROPBOX_ACCESS_TOKEN", parts("sl.B", (URLSAFE, 135)), anchored=A, source="gitleaks dropbox"),
    Cred("dropbox-short-lived-u", "DROPBOX_ACCESS_TOKEN", parts("sl.u.", (URLSAFE, 180)), anchored=A, source="dropbox"),
    Cred("etsy-key", "ETSY_API_KEY", parts((LOWNUM, 24)), source="gitleaks etsy"),
    Cred("facebook-app-secret", "FACEBOOK_APP_SECRET", parts((HEX, 32)), source="gitleaks facebook"),
    Cred("fastly-token", "FASTLY_API_TOKEN", parts((URLSAFE, 32)), source="gitleaks fastly"),
    Cred("finicity-app-key", "FINICITY_APP_KEY", parts((HEX, 32)), source="gitleaks finicity"),
    Cred("finnhub-key", "FINNHUB_API_KEY", parts((LOWNUM, 20)), source="gitleaks finnhub"),
    Cred("flickr-secret", "FLICKR_API_SECRET", parts((HEX, 32)), source="gitleaks flickr"),
    Cred("flutterwave-secret-test", "FLW_SECRET_KEY", parts("FLWSECK_TEST-", (HEX, 32), "-X"), anchored=A, source="gitleaks flutterwave"),
    Cred("flutterwave-secret-live", "FLW_SECRET_KEY", parts("FLWSECK-", (HEX, 32), "-X"), anchored=A, source="flutterwave"),
    Cred("flutterwave-encryption", "FLW_ENCRYPTION_KEY", parts("FLWSECK_TEST", (HEX, 12)), anchored=A, source="gitleaks flutterwave"),
    Cred("fly-fm1-macaroon", "FLY_API_TOKEN", parts("fm1r_", (B64, 120)), anchored=A, source="gitleaks fly"),
    Cred("freshbooks-token", "FRESHBOOKS_ACCESS_TOKEN", parts((HEX, 64)), source="gitleaks freshbooks"),
    Cred("gitter-token", "GITTER_TOKEN", parts((HEX, 40)), source="gitleaks gitter"),
    Cred("gocardless-live", "GOCARDLESS_ACCESS_TOKEN", parts("live_", (URLSAFE, 40)), source="gitleaks gocardless"),
    Cred("harness-pat", "HARNESS_API_KEY", parts("pat.", (URLSAFE, 22), ".", (ALNUM, 24), ".", (ALNUM, 20)), anchored=A,
         source="gitleaks harness"),
    Cred("jfrog-identity", "JFROG_IDENTITY_TOKEN", parts((LOWNUM, 64)), source="gitleaks jfrog"),
    Cred("kraken-secret", "KRAKEN_API_SECRET", parts((B64, 86), "=="), source="gitleaks kraken"),
    Cred("linear-client-secret", "LINEAR_CLIENT_SECRET", parts((HEX, 32)), source="gitleaks linear"),
    Cred("linkedin-client-secret", "LINKEDIN_CLIENT_SECRET", parts((ALNUM, 16)), source="gitleaks linkedin"),
    Cred("mattermost-token", "MATTERMOST_TOKEN", parts((LOWNUM, 26)), source="gitleaks mattermost"),
    Cred("messagebird-key", "MESSAGEBIRD_API_KEY", parts((ALNUM, 25)), source="gitleaks messagebird"),
    Cred("newrelic-browser-key", "NEW_RELIC_BROWSER_KEY", parts("NRJS-", (HEX, 19)), anchored=A, source="gitleaks newrelic"),
    Cred("octopus-deploy-key", "OCTOPUS_API_KEY", parts("API-", (UPNUM, 26)), anchored=A, source="gitleaks octopus"),
    Cred("privateai-key", "PRIVATEAI_API_KEY", parts((HEX, 32)), source="gitleaks privateai"),
    Cred("rapidapi-key", "RAPIDAPI_KEY", parts((URLSAFE, 50)), source="gitleaks rapidapi"),
    Cred("sendbird-token", "SENDBIRD_API_TOKEN", parts((HEX, 40)), source="gitleaks sendbird"),
    Cred("shippo-test", "SHIPPO_API_TOKEN", parts("shippo_test_", (HEX, 40)), anchored=A, source="gitleaks shippo"),
    Cred("slack-legacy-xoxs", "SLACK_TOKEN", parts("xoxs-", (NUM, 10), "-", (NUM, 11), "-", (NUM, 12), "-", (HEX, 64)),
         anchored=A, source="gitleaks slack"),
    Cred("slack-legacy-xoxr", "SLACK_TOKEN", parts("xoxr-", (ALNUM, 40)), anchored=A, source="gitleaks slack"),
    Cred("sourcegraph-local", "SRC_ACCESS_TOKEN", parts("sgp_local_", (HEX, 40)), anchored=A, source="gitleaks sourcegraph"),
    Cred("sumologic-access-key", "SUMO_ACCESS_KEY", parts((ALNUM, 64)), source="gitleaks sumologic"),
    Cred("twitch-secret", "TWITCH_CLIENT_SECRET", parts((LOWNUM, 30)), source="gitleaks twitch"),
    Cred("twitter-access-token", "TWITTER_ACCESS_TOKEN", twitter_access_token, source="gitleaks twitter"),
    Cred("twitter-api-secret", "TWITTER_API_SECRET", parts((ALNUM, 50)), source="gitleaks twitter"),
    Cred("twitter-access-secret", "TWITTER_ACCESS_TOKEN_SECRET", parts((ALNUM, 45)), source="gitleaks twitter"),
    Cred("yandex-api-key", "YC_API_KEY", parts("AQVN", (URLSAFE, 36)), anchored=A, source="gitleaks yandex"),
    Cred("yandex-static-key", "YC_SECRET_KEY", parts("YC", (URLSAFE, 38)), source="gitleaks yandex"),
    Cred("yandex-iam-token", "YC_TOKEN", yandex_iam_token, anchored=A, source="gitleaks yandex"),
    Cred("aiven-token", "AIVEN_TOKEN", parts("AVNS_", (URLSAFE, 24)), anchored=A, source="detect-secrets aiven"),
    Cred("bedrock-api-key", "AWS_BEARER_TOKEN_BEDROCK", bedrock_key, anchored=A, source="detect-secrets bedrock"),
    Cred("github-legacy-hex", "GITHUB_TOKEN", parts((HEX, 40)), shell='curl -H "Authorization: token {v}" https://api.github.com/user',
         source="detect-secrets gh"),
    Cred("github-legacy-url", "GIT_REMOTE", github_legacy_url, url_param=None, shell="git clone {v}", source="detect-secrets gh"),
    Cred("ibm-cos-hmac", "COS_HMAC_SECRET_ACCESS_KEY", parts((HEX, 48)), source="detect-secrets ibm cos"),
    Cred("softlayer-key", "SOFTLAYER_API_KEY", parts((HEX, 64)), source="detect-secrets softlayer"),
    Cred("box-client-secret", "BOX_CLIENT_SECRET", parts((ALNUM, 32)), source="detect-secrets box"),
    Cred("cloudant-password", "CLOUDANT_PASSWORD", parts((HEX, 64)), source="detect-secrets cloudant"),
]
BY_NAME = {c.name: c for c in CREDS}
assert len(BY_NAME) == len(CREDS), "credential names repeat"


# --- shapes of this file (on top of fx_s25_recall.planted) ------------------------------------------


def _header(c: Cred, v: str) -> str:
    name = c.env.replace("_", "-").title()
    return f"$ curl -sS https://api.example.com/v1/me -H 'X-{name}: {v}'\n{{\"ok\": true}}\n"


def _record_field(c: Cred, v: str) -> str:
    """A Claude record whose toolUseResult holds the value as a JSON field under its name."""
    return json.dumps({"parentUuid": "11111111-1111-4111-8111-111111111111", "sessionId": SESSION, "type": "user",
                       "message": {"role": "user", "content": [{"tool_use_id": "toolu_01S26Field", "type": "tool_result",
                                                                "content": "ok", "is_error": False}]},
                       "uuid": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f", "timestamp": "2026-03-02T10:11:12.345Z",
                       "toolUseResult": {"settings": {"service": "api", c.env: v}}})


def _k8s_json(c: Cred, v: str) -> str:
    return json.dumps({"name": "api", "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": c.env, "value": v}]}) + "\n"


EXTRA: dict[str, tuple[str, Callable[[Cred, str], str]]] = {
    "header": ("text", _header),
    "record-field": ("jsonl", _record_field),
    "k8s-json": ("text", _k8s_json),
}


def shapes(c: Cred, value: str) -> list[tuple[str, str, str]]:
    """(shape, kind, text): fx_s25_recall's shapes and this file's."""
    return planted(c, value) + [(name, kind, build(c, value)) for name, (kind, build) in EXTRA.items()]


def sample(c: Cred, seed: int) -> Token:
    return c.gen(random.Random(f"{seed}:s26:{c.name}"))


# --- DSNs: the host and project stay -----------------------------------------------------------------


def sentry_texts(seed: int) -> list[tuple[str, str, list[str]]]:
    """(text, the part that must stay, keys that must go) for each DSN form."""
    rng = random.Random(f"{seed}:sentry")
    out = []
    for gen in (sentry_modern_dsn, sentry_legacy_full, sentry_selfhosted):
        dsn, keys = gen(rng)
        tail = dsn.split("@", 1)[1]
        out.append((f"SENTRY_DSN={dsn}\n", "@" + tail, keys))
        out.append((f"Sentry.init({{ dsn: '{dsn}', tracesSampleRate: 0.1 }});\n", "@" + tail, keys))
    return out


# --- UUIDs that are ids ----------------------------------------------------------------------------


def _id_texts() -> dict[str, str]:
    rng = random.Random(2626)
    u = [uuid4(rng) for _ in range(12)]
    return {
        "claude-ids": json.dumps({"parentUuid": u[0], "sessionId": u[1], "uuid": u[2], "requestId": u[3],
                                  "promptId": u[4], "leafUuid": u[5], "agentId": u[6]}),
        "ids-env": f"SESSION_ID={u[0]}\nREQUEST_ID={u[1]}\nTRACE_ID={u[2]}\nTOKEN_ID={u[3]}\nAPI_KEY_ID={u[4]}\n",
        "ids-yaml": f"tenant_id: {u[5]}\nsecret_id: {u[6]}\ncredential_id: {u[7]}\nkey_id: {u[8]}\n",
        "ids-json": json.dumps({"tool_use_id": u[0], "tokenId": u[1], "apiKeyId": u[2], "secretName": "db-creds",
                                "nextToken": u[3], "ClientToken": u[4], "idempotencyKey": u[5], "trackingKey": u[6],
                                "key": u[7], "userKey": u[8], "pageToken": u[9]}, indent=2),
        "ids-files": "".join(f"~/.claude/projects/-srv-app/{x}.jsonl\n" for x in u[:4])
                     + f"~/.codex/sessions/2026/03/02/rollout-2026-03-02T10-00-00-{u[4]}.jsonl\n",
        "ids-prose": f"Resumed session {u[0]}; the token for request {u[1]} expired, retrying {u[2]}.\n",
        "ids-headers": f"< X-Request-Id: {u[3]}\n< X-Correlation-Id: {u[4]}\n< traceparent: 00-{u[5].replace('-', '')}-{u[6][:16].replace('-', '')}-01\n",
        "ids-aws-cli": json.dumps({"ClientToken": u[7], "NextToken": u[8], "RequestId": u[9]}, indent=4),
        "ids-stack-names": f"deployed api-{u[10]}.zip to /srv/releases/sdk-{u[11]}/ and logs/mob-{u[0]}.log\n",
        "placeholder-uuids": "API_KEY=00000000-0000-0000-0000-000000000000\nsecret: 12345678-1234-1234-1234-123456789012\n",
    }


UUID_IDS = _id_texts()
