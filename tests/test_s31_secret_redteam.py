"""s31 secrets red team: credential formats no earlier sweep planted, each in the session shape it
leaked from (a Claude Code Read/Bash tool_result with its toolUseResult sidecar, a Codex
function_call_output, a user's prose), redacted as a JSONL line the way a worker redacts a session.
The redacted text is asserted byte for byte: the secret replaced by its keyed token, every other
byte kept. Texts that hold no secret (commit ids, UUIDs, digests, integrity hashes, ULIDs, base64
image data, and near misses of the new rules) come out unchanged.

Values are fake: made for this file with EXAMPLE/FAKE runs or by hand, none from a provider."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from tests.fx_redact import builtin_redactor
from tests.fx_s25_recall import claude_tool_result, codex_output

KEY = b"s31-secret-redteam-test-key-0123456789abcdef"


@dataclass(frozen=True)
class Case:
    name: str
    carrier: str  # "claude" (a Read/Bash result), "codex" (a function_call_output) or "prose" (a user message)
    template: str  # the text, {0}, {1} ... where the secrets go
    secrets: tuple[tuple[str, str], ...]  # (label, value) for each placeholder


def _b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


NSEC = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5"
TOR = "FAKEexample0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/0123456789a=="
MACAROON = ("0201036c6e6402f801030a10b8c7e2f3a4b5c6d7e8f90a1b2c3d4e5f1201301a160a0761646472657373120472656164"
            "120577726974651a130a04696e666f120472656164120577726974651a170a08696e766f6963657312047265616412")
ECR = ("eyJwYXlsb2FkIjoi" + _b64("FAKEexample0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/+")
       + _b64('","datakey":"AQEBAHh-FAKE","version":"2","type":"DATA_KEY","expiration":1772445604}'))

CASES = [
    Case("cloudflare-user-token", "codex", "$ cat ~/.config/cf/token\n{0}\n",
         (("CLOUDFLARE_TOKEN", "cfut_FAKEexample0123456789abcdefghijklmnopqrST1a2b3c"),)),
    Case("cloudflare-account-token", "claude", "CF_ACCOUNT_ID=0f1e2d3c\nwrangler secret list\n# token rolled: {0}\n",
         (("CLOUDFLARE_TOKEN", "cfat_EXAMPLEfake9876543210ZYXWVUTSRQponmlkjiHGq7"),)),
    Case("gcs-hmac-access-id", "claude", "[Credentials]\ngs_access_key_id = {0}\ngs_secret_access_key = <see vault>\n",
         (("GCP_HMAC_KEY", "GOOG1EFAKEEXAMPLE0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"),)),
    Case("gcs-hmac-in-env", "claude", "NODE_ENV=production\nGCS_HMAC_ACCESS_ID={0}\nPORT=3000\n",
         (("GCP_HMAC_KEY", "GOOG1EEXAMPLEFAKE9876543210ZYXWVUTSRQPONMLKJIHGFEDCBA98765"),)),
    Case("nostr-nsec-prose", "prose", "my relay bot signs with {0}, can you add it to the config?", (("PRIVATE_KEY", NSEC),)),
    Case("tor-onion-key", "codex", "250-ServiceID=fakeexampleonionaddressxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n250-PrivateKey=ED25519-V3:{0}\n250 OK\n",
         (("PRIVATE_KEY", TOR),)),
    Case("chromatic-yaml", "claude", "      - uses: chromaui/action@latest\n        with:\n          projectToken: {0}\n",
         (("API_KEY", "chpt_3f9a0c2e7b14d58"),)),
    Case("polar-oat", "codex", "Created token (shown once):\n{0}\n", (("API_KEY", "polar_oat_FAKEexample0123456789abcdefghijklmnopqrstu"),)),
    Case("context7-key-file", "codex", "$ cat ~/.config/context7/key\n{0}\n",
         (("API_KEY", "ctx7sk-3f9a0c2e-7b14-4d58-9a6c-1e2f3a4b5c6d"),)),
    Case("convex-deploy-key", "claude", "NODE_ENV=production\nCONVEX_DEPLOY_KEY=prod:happy-animal-123|{0}\n",
         (("API_KEY", "eyJ2MiI6IkZBS0VleGFtcGxlMDEyMzQ1Njc4OWFiY2RlZmdoaWprbG1ub3AifQ=="),)),
    Case("swarm-join-token", "codex", "$ docker swarm join-token -q worker\n{0}\n",
         (("SECRET", "SWMTKN-1-49nj1cmql0jkz5s954yi3oex3nedyz0fb0xx14ie39trti4wxv-8vxv8rssmk743ojnwacrr2e7c"),)),
    Case("k3s-token-yaml", "claude", "write-kubeconfig-mode: \"0644\"\ntoken: {0}\ntls-san:\n  - k3s.acme.internal\n",
         (("SECRET", "K1089729a4e0f1e8c3e1bb3d8c1a0f3e2b5d4c6a7b8c9d0e1f2a3b4c5d6e7f8a9b0::server:3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e"),)),
    Case("cisco-type7", "codex", "sw1#show running-config | include username\nusername admin privilege 15 password 7 {0}\n",
         (("PASSWORD", "0822455D0A165B1E1F"),)),
    Case("dotnet-appsettings", "claude", '<configuration>\n  <appSettings>\n    <add key="ApiKey" value="{0}" />\n    <add key="Region" value="westeurope" />\n  </appSettings>\n</configuration>\n',
         (("SECRET", "GncfBAepfJBd0Kh8oOOL8dKLzdocJ2isAjIhKtJ0"),)),
    Case("powershell-securestring", "claude", '$user = "svc-deploy"\n$securePwd = ConvertTo-SecureString "{0}" -AsPlainText -Force\n',
         (("PASSWORD", "u8jzPde0IgxLd67"),)),
    Case("gradle-signing", "claude", 'android {{\n  signingConfigs {{\n    release {{\n      storePassword "{0}"\n      keyAlias "upload"\n      keyPassword "{1}"\n    }}\n  }}\n}}\n',
         (("PASSWORD", "u8jzPde0IgxLd67"), ("PASSWORD", "Kp4-FAKE-upload-9"))),
    Case("hardhat-mnemonic", "claude", "module.exports = {{\n  networks: {{\n    sepolia: {{ url: RPC, accounts: {{ mnemonic: \"{0}\" }} }},\n  }},\n}};\n",
         (("SECRET", "ocean bridge velvet hammer silent parade crystal fossil orbit lunar tiger mango"),)),
    Case("mnemonic-yaml", "claude", "networks:\n  mainnet:\n    wallet_seed_phrase: {0}\n    gas: auto\n",
         (("SECRET", "dune harbor pilot cactus ember violin grape saddle mirror quartz nephew tundra"),)),
    Case("k8s-cosmos-key", "claude", "env:\n- name: COSMOS_ENDPOINT\n  value: https://acme.documents.azure.com:443/\n- name: COSMOS_KEY\n  value: \"{0}\"\n",
         (("SECRET", "snuB6m0FcaiSFPboS6LEdCIfI/Q/YFiGtdSMoRY1YlMcTuGkoCTiz/I2T7gAQqdGJtv0UnfPHIHyhswihXqakS=="),)),
    Case("k8s-encryption-key", "claude", "        - name: ENCRYPTION_KEY\n          value: {0}\n",
         (("SECRET", "3f5cbee584c91a4b8c1abd233b73d6e86a2ef2b8a1d7f969c8601ac0d1aa963e"),)),
    Case("gmail-app-password-env", "claude", "SMTP_HOST=smtp.gmail.com\nSMTP_USER=alerts\nSMTP_PASSWORD={0}\nSMTP_PORT=587\n",
         (("PASSWORD", "akat nwnu dhmn yqak"),)),
    Case("gmail-app-password-yaml", "claude", "mail:\n  smtp_password: {0}\n  port: 587\n", (("PASSWORD", "qwhz mfkp tbns vcyo"),)),
    Case("eth-private-key-prose", "prose", "deploy with this private key: {0} on sepolia please",
         (("PRIVATE_KEY", "0x243f4473615f0c97a7c19f0f4f7c29d74f92a829a0ca015bd4ab0f7dadca8579"),)),
    Case("lnd-macaroon", "claude", "LND_GRPC_HOST=127.0.0.1:10009\nLND_MACAROON={0}\n", (("SECRET", MACAROON),)),
    Case("ably-yaml", "claude", "realtime:\n  ably_api_key: 0R7S0R.JETmBv:{0}\n", (("API_KEY", "OP_r3782xss0UF1Nkfou8JoG_2XRMxCZVKip_vPwRsy"),)),
    Case("mailjet-private", "claude", "MJ_APIKEY_PUBLIC=0a1b2c3d4e5f60718293a4b5c6d7e8f9\nMJ_APIKEY_PRIVATE={0}\n",
         (("API_KEY", "3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e"),)),
    Case("cypress-record-key", "claude", "CYPRESS_PROJECT_ID=abc123\nCYPRESS_RECORD_KEY={0}\n", (("SECRET", "c8a1c4d2-61b0-4f42-a0c1-1b8e2a44c4d6"),)),
    Case("htpasswd-b-c", "codex", "$ htpasswd -b -c /etc/nginx/.htpasswd admin {0}\nAdding password for user admin\n",
         (("PASSWORD", "Zq8rT2mVx9Lk4Wn"),)),
    Case("htpasswd-nb", "codex", "$ htpasswd -nbB deploy {0}\ndeploy:$2y$05$FAKEexampleFAKEexampleFO\n", (("PASSWORD", "Zq8rT2mVx9Lk4Wx"),)),
    Case("zip-P", "codex", "$ zip -r -P {0} secrets.zip .env config/\n  adding: .env (deflated 12%)\n", (("PASSWORD", "Zp7-FAKE-archive"),)),
    Case("sudo-S", "codex", "$ echo '{0}' | sudo -S apt-get update\n[sudo] password for dev: Hit:1 http://deb.debian.org/debian bookworm InRelease\n",
         (("PASSWORD", "Sd7FAKEexample3x"),)),
    Case("ecr-login-password", "codex", "$ aws ecr get-login-password --region us-east-1\n{0}\n", (("PASSWORD", ECR),)),
    Case("bundle-config", "codex", "$ bundle config set --global rubygems.pkg.github.com bot:{0}\n", (("PASSWORD", "ghFAKEexample0123456789"),)),
    Case("vault-operator-init", "codex", "$ vault operator init -key-shares=1 -key-threshold=1\nUnseal Key 1: {0}\n\nInitial Root Token: <see below>\n",
         (("SECRET", "Qk3FAKEexample9Lm2Xz8Rt4Kp7Wv1Yb6Nc5Hd0GsJaB"),)),
    Case("consul-gossip-key", "claude", 'datacenter = "dc1"\ndata_dir = "/opt/consul"\nencrypt = "{0}"\n',
         (("SECRET", "EXAMPLEfake9Lm2Xz8Rt4Kp7Wv1Yb6Nc5Hd0GsJQk3X="),)),
    Case("consul-keygen", "codex", "$ consul keygen\n{0}\n", (("SECRET", "Zx8FAKEexample9Lm2Qk3Rt4Kp7Wv1Yb6Nc5Hd0GsJX="),)),
    Case("minisign-secret-key", "claude", "untrusted comment: minisign encrypted secret key\n{0}\n",
         (("PRIVATE_KEY", "RWRTY0IyFAKEexample0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/0123456789abcdefghijklmnopqrstuvwxyz"),)),
    Case("sonar-login", "codex", "$ mvn verify sonar:sonar -Dsonar.host.url=https://sonar.acme.dev -Dsonar.login={0}\n[INFO] BUILD SUCCESS\n",
         (("SONAR_TOKEN", "Fq3Lm9Xz2Rt8Kp7Wv4Yb6Nc1Hd5Gs0Je"),)),
    Case("rclone-pass", "claude", "[mega]\ntype = mega\nuser = backup\npass = {0}\n", (("PASSWORD", "5GzR0cnuUZX1oxWPm4bS-cxs0JeqM2WW3GA"),)),
    Case("onesignal-key", "codex", "$ cat onesignal.key\n{0}\n",
         (("API_KEY", "os_v2_app_2wa3fmsyhvfnbnmqkzxm7n3hlpfcsewbjfkugfvrtwc7xplm6ixlwqrkbvhchymd6cdrjemxqopovpyh5ytsxrnbxjhbmqjzafyfscq"),)),
    Case("openai-session-key", "prose", "the web session still works with {0} if you need it", (("OPENAI_API_KEY", "sess-FAKEexample0123456789abcdefghijklmnopqrs"),)),
    Case("pusher-secret-yaml", "claude", "broadcasting:\n  pusher:\n    app_id: \"1234567\"\n    pusher_app_secret: {0}\n    cluster: eu\n",
         (("SECRET", "d3ef001efc9f232f426a"),)),
    Case("mongo-create-user", "codex", "test> use app\napp> db.createUser({{user: 'app', pwd: '{0}', roles: ['readWrite']}})\n{{ ok: 1 }}\n",
         (("DB_PASSWORD", "Zq8rFAKE9Lk4Wn"),)),
]


def _record(carrier: str, text: str) -> str:
    return claude_tool_result(text) if carrier == "claude" else codex_output(text)


def _body(carrier: str, record: dict) -> str:
    if carrier == "claude":
        return record["message"]["content"][0]["content"]
    return record["payload"]["output"].split("Output:\n", 1)[1]


def _redact(red, carrier: str, text: str) -> tuple[str, str]:  # noqa: ANN001
    """(the redacted text, the whole redacted JSONL line or prose)."""
    report = RedactionReport()
    if carrier == "prose":
        out = red.redact_text(text, report)
        return out, out
    line = red.redact_jsonl_line(_record(carrier, text).encode(), report).decode()
    rec = json.loads(line)
    if carrier == "claude":
        assert rec["toolUseResult"]["file"]["content"] == _body(carrier, rec)
    return _body(carrier, rec), line


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_secret_is_replaced_and_the_rest_kept(red, case: Case) -> None:  # noqa: ANN001
    text = case.template.format(*(v for _, v in case.secrets))
    pseudo = Pseudonymizer(KEY)
    want = case.template.format(*(pseudo.token(label, v) for label, v in case.secrets))
    got, whole = _redact(red, case.carrier, text)
    assert got == want
    for _, v in case.secrets:
        assert v not in whole
        assert json.dumps(v)[1:-1] not in whole


# --- texts that hold no secret ---------------------------------------------------------------------

_SHA = hashlib.sha1(b"s31").hexdigest()
_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + hashlib.sha512(b"s31-img").digest() * 4 + b"IEND\xaeB`\x82").decode()

NEGATIVES = {
    "git-log": f"commit {_SHA}\nAuthor: CI <ci@example.com>\n\n    fix: cache key\n\n{hashlib.sha1(b'x').hexdigest()[:7]} refactor parser\n",
    "uuids": json.dumps({"sessionId": "5b0e1c9a-3f52-4f7e-9a51-2d7c0d7c9e10", "requestId": "req_011CUjEXAMPLE",
                         "parentUuid": "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f", "RECORD_ID": "5e1c7a2f-9b3d-4c8e-a6f1-0d2b4e7c9a13"}),
    "docker-digest": f"FROM node:20@sha256:{hashlib.sha256(b'node').hexdigest()}\nRUN npm ci\n",
    "npm-integrity": json.dumps({"node_modules/left-pad": {"version": "1.3.0", "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
                                 "integrity": "sha512-" + base64.b64encode(hashlib.sha512(b"left-pad").digest()).decode()}}, indent=2),
    "ulids": "created 01HZX3K5QG7V8M2N4P6R9T1W3Y and 01HZX3K5QH0A2B4C6D8E0F2G4H\n",
    "png-data-uri": f'<img src="data:image/png;base64,{_PNG}">\n',
    "near-misses": ("npm run dev:watch | grep error\nthe password 7 days ago expired\npolar_coordinates_to_cartesian(r, theta)\n"
                    "ADD_ONION NEW:ED25519-V3 Port=80,127.0.0.1:5000\necho hello | sudo tee /etc/motd\nzip -e out.zip notes.txt\n"
                    "tx hash 0x243f4473615f0c97a7c19f0f4f7c29d74f92a829a0ca015bd4ab0f7dadca8579\n"
                    "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg\n"
                    "docker swarm join-token worker\nbundle config set --local path vendor/bundle\n"
                    "db.createUser({user: 'app', pwd: passwordPrompt(), roles: []})\n"
                    "encrypt = true\npass: 100%\nsonar.login=$SONAR_TOKEN\nUnseal Key 1: <redacted>\n"),
    "hardhat-test-mnemonic": 'accounts: { mnemonic: "test test test test test test test test test test test junk" }\n',
    "k8s-non-secret-keys": "env:\n- name: CACHE_KEY\n  value: node-modules-v3-linux-x64-4f9a2b7c1d\n- name: GPG_KEY\n  value: 7169605F62C751356D054A26A821E680E5FA6305\n",
    "appsettings-non-secret": '<add key="ApiKeyHeader" value="X-Api-Key" />\n<add key="TokenLifetime" value="3600" />\n',
    "ssh-public-key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFAKEexample0123456789abcdefghijklmnopqrstu\n",
}


@pytest.mark.parametrize("name", sorted(NEGATIVES))
@pytest.mark.parametrize("carrier", ["claude", "codex"])
def test_text_without_secrets_is_kept_byte_for_byte(red, name: str, carrier: str) -> None:  # noqa: ANN001
    text = NEGATIVES[name]
    got, _ = _redact(red, carrier, text)
    assert got == text


# --- a seed phrase under its own key in a JSON document the walker parses ---------------------------

@pytest.mark.parametrize("key", ["mnemonic", "seedPhrase", "recovery_phrase"])
def test_seed_phrase_under_a_parsed_json_key(red, key: str) -> None:  # noqa: ANN001
    """The walker scans a parsed document's string as `"key": "value"` only under a secret-like
    name (walkers.SECRET_NAME): without mnemonic / seed phrase / recovery phrase there, the value
    was scanned alone and bip39-mnemonic never saw its name."""
    phrase = "ocean bridge velvet hammer silent parade crystal fossil orbit lunar tiger mango"
    record = {"type": "user", "message": {"role": "user", "content": "wallet config"},
              "toolUseResult": {"wallet": {key: phrase, "network": "sepolia"}}}
    report = RedactionReport()
    line = red.redact_jsonl_line(json.dumps(record).encode(), report).decode()
    rec = json.loads(line)
    assert rec["toolUseResult"]["wallet"] == {key: Pseudonymizer(KEY).token("SECRET", phrase), "network": "sepolia"}
    assert "velvet" not in line


# --- a shell default without its colon (${NAME-default}, ${NAME=default}) ---------------------------

@pytest.mark.parametrize("name, op", [("API_KEY", "-"), ("SECRET_KEY", "-"), ("AUTH_TOKEN", "="), ("STRIPE_SECRET", "-")])
def test_shell_default_without_colon(red, name: str, op: str) -> None:  # noqa: ANN001
    value = "Zk8xQ2vLm9PwR4tY7uIo"
    text = f"services:\n  api:\n    environment:\n      - {name}=${{{name}{op}{value}}}\n"
    got, whole = _redact(red, "claude", text)
    assert got == text.replace(value, Pseudonymizer(KEY).token("SECRET", value))
    assert value not in whole


def test_shell_defaults_that_are_no_secret_stay(red) -> None:  # noqa: ANN001
    text = "PORT=${PORT-8080}\nHOME_DIR=${HOME-/tmp}\nTOKEN_FILE=${TOKEN_FILE-/run/secrets/token}\nK=${API_KEY-}\n"
    got, _ = _redact(red, "claude", text)
    assert got == text
