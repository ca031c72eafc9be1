"""s34 secrets red team (round 5): what rounds 1-4 left, in the six session shapes of tests/fx_redteam.py (a
Claude Code tool_result with its toolUseResult sidecar, a Codex function_call_output, a file-history backup, an
SQLite TEXT cell, a `git diff` adding the text, a user's prose), the redacted text asserted byte for byte:

- passwords on the command lines of device and service tools (ipmitool, mosquitto, xfreerdp, lftp, SNMPv3,
  schtasks, netbird, bcp, twine, skopeo, etcdctl, macOS `security`, cargo login, `aws ssm put-parameter`,
  `erl -setcookie`, `pulumi config set --secret`, unrar, `net user`): cli-tool-password-flag;
- a secret piped by `echo` to `passwd --stdin`, `wrangler secret put`, `gcloud secrets create` (chpasswd-echo);
- SQL: MySQL `SET PASSWORD ... = PASSWORD('..')`, ClickHouse `IDENTIFIED WITH sha256_password BY`, Neo4j
  `SET PASSWORD FROM 'old' TO 'new'` (the new one; the old is left: a default `neo4j` as a rule);
- code: a builder's `.password("..")`, Elasticsearch's `basic_auth=("elastic", "..")`, PHP's `new mysqli(host,
  user, pw, db)`, Go's `smtp.PlainAuth("", user, pw, host)`, SQLAlchemy's
  `oracle+cx_oracle://` (a driver name with `_`);
- URLs: Rocket.Chat, Webex and Loggly webhooks, an Azure Function's `?code=`; a Fernet key, a PASERK key;
- the two over-redactions of byte-array-private-key (s33): a digest / hash / checksum and a public key written
  as 32 byte values (`sha256 digest: [..]`, `"hash": [..]`, Node's `publicKey: Uint8Array(32) [..]`) are
  kept, while a `secretKey` array beside a public key is still taken.

On main before s34, 40 of the 42 planted cases failed (38 leaked; the two keypairs printed with their public key
lost that public key too), 5 of the 11 negatives (the digest, hash, checksum and public-key arrays were taken)
and the parsed keypair test: 269 of the 315 tests.

Values are fake: drawn at import from a seeded RNG, none from a provider."""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from tests.fx_redteam import CARRIERS, IDS_AND_DIGESTS, Case, redteam_tests, redact_in

KEY = b"s34-secret-redteam-test-key-0123456789abcdef"

HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
PW = ALNUM + "!#%*-_.@"


def g(seed: str, alphabet: str, n: int) -> str:
    """n characters of `alphabet` from a RNG seeded by `seed`, with two letters and two digits at least
    when the alphabet has both."""
    rng = random.Random(f"s34:{seed}")
    while True:
        v = "".join(rng.choice(alphabet) for _ in range(n))
        if not any(ch.isdigit() for ch in alphabet) or not any(ch.isalpha() for ch in alphabet):
            return v
        if sum(ch.isalpha() for ch in v) >= 2 and sum(ch.isdigit() for ch in v) >= 2:
            return v


def b64u(seed: str, n: int) -> str:
    return base64.urlsafe_b64encode(random.Random(f"s34b:{seed}").randbytes(n)).decode().rstrip("=")


def key_bytes(seed: str, n: int) -> list[int]:
    """n random byte values, with one of three digits (a real key or digest of 32 or more has one)."""
    rng = random.Random(f"s34:{seed}")
    while True:
        v = [rng.randrange(256) for _ in range(n)]
        if max(v) >= 100:
            return v


def uuid_of(seed: str) -> str:
    h = g(seed, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}".upper()


def c(name: str, template: str, *secrets: tuple[str, str], carriers: tuple[str, ...] = CARRIERS) -> Case:
    return Case(name, template, secrets, carriers)


PASS = "PASSWORD"
PUB = key_bytes("pub", 32)
SEC = key_bytes("sec", 64)
NODE = lambda v: ",\n".join(",".join(f"{b:4d}" for b in v[i:i + 12]) for i in range(0, len(v), 12)).strip()  # noqa: E731

CASES = [
    # --- tools' command lines --------------------------------------------------------------------------
    c("ipmitool-P", "$ ipmitool -I lanplus -H 10.0.0.5 -U ADMIN -P @0@ chassis power status\nChassis Power is on\n",
      (PASS, g("ipmi", ALNUM, 12))),
    c("mosquitto-pub-P", "$ mosquitto_pub -h broker.acme.dev -u sensor -P @0@ -t home/temp -m 21.5\n", (PASS, g("mosq", ALNUM, 14))),
    c("xfreerdp-p", "$ xfreerdp /v:10.0.0.12 /u:Administrator /p:@0@ /cert:ignore\n", (PASS, g("rdp", PW, 14))),
    c("lftp-u", "$ lftp -u deploy,@0@ sftp://files.acme.dev\n", (PASS, g("lftp", ALNUM, 12))),
    c("snmpv3-auth-priv", "$ snmpwalk -v3 -l authPriv -u monitor -a SHA -A @0@ -x AES -X @1@ 10.0.0.1\n",
      (PASS, g("snmpa", ALNUM, 14)), (PASS, g("snmpx", ALNUM, 14))),
    c("schtasks-rp", 'schtasks /Create /TN "Backup" /TR "C:\\backup.bat" /SC DAILY /RU ACME\\svc_backup /RP @0@\n',
      (PASS, g("schtasks", ALNUM, 14))),
    c("netbird-setup-key", "$ netbird up --setup-key @0@\nConnected\n", (PASS, uuid_of("netbird"))),
    c("bcp-P", "$ bcp dbo.orders out orders.dat -S db.acme.dev -U sa -P @0@ -c\n", (PASS, g("bcp", ALNUM, 14))),
    c("twine-upload-p", "$ twine upload --repository-url https://nexus.acme.dev/repository/pypi/ -u deployer -p @0@ dist/*\n",
      (PASS, g("twine", ALNUM, 16))),
    c("skopeo-src-creds", "$ skopeo copy --src-creds ci:@0@ docker://registry.acme.dev/app:1.2 docker://ghcr.io/acme/app:1.2\n",
      (PASS, g("skopeo", ALNUM, 18))),
    c("etcdctl-user", "$ etcdctl --user root:@0@ --endpoints=https://10.0.0.2:2379 get /registry --prefix --keys-only\n",
      (PASS, g("etcd", ALNUM, 14))),
    c("jenkins-cli-auth", "$ java -jar jenkins-cli.jar -s https://ci.acme.dev/ -auth admin:@0@ build deploy\n", (PASS, g("jenkins", HEX, 34))),
    c("security-add-generic-password", "$ security add-generic-password -a ci -s deploy-token -w '@0@'\n", (PASS, g("keychain", ALNUM, 16))),
    c("security-unlock-keychain", "$ security unlock-keychain -p @0@ build.keychain\n", (PASS, g("unlock", ALNUM, 14))),
    c("cargo-login-registry", "$ cargo login --registry acme @0@\n       Login token for `acme` saved\n", (PASS, g("cargo", ALNUM, 32))),
    c("ssm-put-parameter", "$ aws ssm put-parameter --name /prod/db/password --value '@0@' --type SecureString --overwrite\n",
      (PASS, g("ssm", ALNUM, 20))),
    c("erl-setcookie", "$ erl -sname node1 -setcookie @0@\n", (PASS, g("cookie", string.ascii_uppercase, 20))),
    c("pulumi-config-secret", "$ pulumi config set --secret dbPassword @0@\n", (PASS, g("pulumi", ALNUM, 18))),
    c("unrar-p", "$ unrar x -p@0@ backup.rar\n", (PASS, g("unrar", ALNUM, 12))),
    c("isql-dsn", "$ isql -v acme_dsn app @0@\n", (PASS, g("isql", ALNUM, 12))),
    c("net-user-add", "C:\\> net user svc_backup @0@ /add\nThe command completed successfully.\n", (PASS, g("netuser", ALNUM, 12) + "!")),
    # --- echo piped to a command that stores it --------------------------------------------------------
    c("passwd-stdin", "$ echo '@0@' | passwd --stdin deploy\nChanging password for user deploy.\n", (PASS, g("passwd", ALNUM, 14))),
    c("wrangler-secret-put", "$ echo '@0@' | npx wrangler secret put API_TOKEN\n", (PASS, g("wrangler", ALNUM, 24))),
    c("gcloud-secrets-create", '$ echo -n "@0@" | gcloud secrets create stripe-key --data-file=-\n', (PASS, g("gcloud", ALNUM, 24))),
    # --- SQL -----------------------------------------------------------------------------------------
    c("mysql-set-password", "mysql> SET PASSWORD FOR 'root'@'localhost' = PASSWORD('@0@');\n", ("DB_PASSWORD", g("setpw", ALNUM, 14))),
    c("clickhouse-sha256-password", "CREATE USER app IDENTIFIED WITH sha256_password BY '@0@';\n", ("DB_PASSWORD", g("ch", ALNUM, 16))),
    c("neo4j-set-password", "neo4j@system> ALTER CURRENT USER SET PASSWORD FROM 'neo4j' TO '@0@';\n", ("DB_PASSWORD", g("neo4j", ALNUM, 14))),
    # --- code ----------------------------------------------------------------------------------------
    c("java-builder-password", 'DataSourceBuilder.create().url(url).username("app").password("@0@").build();\n',
      ("SECRET", g("builder", ALNUM, 15))),
    c("elasticsearch-basic-auth", 'es = Elasticsearch("https://es.acme.dev:9200", basic_auth=("elastic", "@0@"))\n',
      (PASS, g("elastic", ALNUM, 20))),
    c("php-mysqli", "$conn = new mysqli('db.acme.dev', 'app', '@0@', 'shop');\n", (PASS, g("mysqli", ALNUM, 14))),
    c("go-smtp-plainauth", 'auth := smtp.PlainAuth("", "alerts", "@0@", "smtp.gmail.com")\n', (PASS, g("plainauth", ALNUM, 14))),
    c("sqlalchemy-cx-oracle", 'engine = create_engine("oracle+cx_oracle://scott:@0@@db.acme.dev:1521/?service_name=ORCL")\n',
      ("DB_PASSWORD", g("oracle", ALNUM, 12))),
    c("fernet-key", "from cryptography.fernet import Fernet\nf = Fernet(b'@0@')\n", ("SECRET", b64u("fernet", 32) + "=")),
    c("airflow-fernet-key", "[core]\nexecutor = LocalExecutor\nfernet_key = @0@\n", ("SECRET", b64u("airflow", 32) + "=")),
    c("paserk-local", "the shared key is k4.local.@0@\n", ("SECRET", b64u("paserk", 32))),
    # --- URLs ----------------------------------------------------------------------------------------
    c("rocketchat-webhook", "curl -X POST -H 'Content-Type: application/json' --data '{\"text\":\"deploy ok\"}' "
      "https://chat.acme.dev/hooks/" + g("rcid", ALNUM, 17) + "/@0@\n", ("SECRET", g("rc", ALNUM, 48))),
    c("webex-webhook", "WEBHOOK=https://webexapis.com/v1/webhooks/incoming/@0@\n", ("SECRET", b64u("webex", 60))),
    c("loggly-input", "curl -H 'content-type:text/plain' -d 'hello' http://logs-01.loggly.com/inputs/@0@/tag/http/\n",
      ("SECRET", uuid_of("loggly").lower())),
    c("azure-function-code", "$ curl 'https://acme-fn.azurewebsites.net/api/HttpTrigger1?code=@0@'\n", ("SECRET", b64u("azfn", 40) + "==")),
    # --- byte arrays: the secret key beside a public key -----------------------------------------------
    c("keypair-node-both", "> kp\nKeypair {\n  _keypair: {\n    publicKey: Uint8Array(32) [\n  " + NODE(PUB)
      + "\n],\n    secretKey: Uint8Array(64) [\n  @0@\n]\n  }\n}\n", ("PRIVATE_KEY", NODE(SEC)),
      carriers=("claude", "codex", "sidecar", "sqlite", "prose")),  # in a diff the value's lines carry + marks
    # where the text is parsed as a JSON document (a tool_result, a file, a cell) the walker writes it back compact,
    # the array a string: test_parsed_keypair_keeps_the_public_key below
    c("keypair-json-both", '{"publicKey": [' + ",".join(map(str, PUB)) + '], "secretKey": [@0@]}\n',
      ("PRIVATE_KEY", ",".join(map(str, SEC))), carriers=("codex", "diff", "prose")),
    c("keypair-json-pubstr", '{"publicKey": "8xJ3kFq9", "secretKey": [@0@]}\n', ("PRIVATE_KEY", ", ".join(map(str, SEC))),
      carriers=("codex", "diff", "prose")),
]

DIGEST = key_bytes("digest", 32)
NEGATIVES = {
    "digest-array-prose": "sha256 digest: [" + ", ".join(map(str, DIGEST)) + "]\n",
    "hash-array-json": '{"hash": [' + ",".join(map(str, DIGEST)) + '], "size": 1024}\n',
    "checksum-array": "checksum = [" + ", ".join(map(str, DIGEST)) + "]\n",
    "node-public-key": "> kp.publicKey\nUint8Array(32) [\n  " + NODE(PUB) + "\n]\n",
    "public-key-json": '{"publicKey": [' + ",".join(map(str, PUB)) + "]}\n",
    "ids-and-digests": IDS_AND_DIGESTS,
    "cli-near-misses": ("$ ipmitool -I lanplus -H 10.0.0.5 -U ADMIN -E chassis status\n"
                        "$ ipmitool -P \"$IPMI_PASSWORD\" power on\n"
                        "$ unrar x -p- backup.rar\n"
                        "$ twine upload dist/*\n"
                        "$ cargo login\n"
                        "$ net user admin /domain\n"
                        "$ tar -a -x -f archive.tar.zst\n"
                        "$ netbird up --setup-key $NB_SETUP_KEY\n"),
    "sql-near-misses": ("SET PASSWORD FOR 'root'@'localhost' = PASSWORD('password');\n"
                        "the form lets you set password and e-mail\n"
                        "I want to connect to the database\n"
                        "db2 => CONNECT TO SAMPLE\n"),
    "fernet-near-misses": "key = Fernet.generate_key()\nf = Fernet(key)\nPASERK types: k4.local., k4.public., k4.secret.\n",
    "webhook-near-misses": ("import { useAuth } from './src/hooks/useAuth'\n"
                            "https://github.com/acme/app/tree/main/src/hooks/useAuthenticationState\n"
                            "https://acme-fn.azurewebsites.net/api/HttpTrigger1?name=demo\n"),
    "echo-pipes": "echo \"$NEWPW\" | passwd --stdin deploy\necho done | tee log\n",
}


red, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(
    KEY, CASES, NEGATIVES)


def test_values_are_what_the_cases_say() -> None:
    """The drawn values hold the shapes the rules read (a Fernet key of 44, a Rocket.Chat token of 48)."""
    fernet = next(cs for cs in CASES if cs.name == "fernet-key").secrets[0][1]
    assert len(fernet) == 44 and fernet.endswith("=") and len(base64.urlsafe_b64decode(fernet)) == 32
    rc = next(cs for cs in CASES if cs.name == "rocketchat-webhook").secrets[0][1]
    assert len(rc) == 48 and json.dumps(rc)[1:-1] == rc


@pytest.mark.parametrize("carrier", ["claude", "sidecar", "sqlite"])
def test_parsed_keypair_keeps_the_public_key(red, carrier: str) -> None:  # noqa: ANN001
    """A keypair document parsed by the JSON walker: the public key's array comes back as it was, the secret
    key's as the string of its token (the walker's form for a byte-list key, tests/test_s33_nested_byte_keys.py)."""
    text = json.dumps({"publicKey": PUB, "secretKey": SEC})
    got, whole = redact_in(red, carrier, text)
    doc = json.loads(got)
    assert doc["publicKey"] == PUB
    sk = doc["secretKey"]
    assert isinstance(sk, str) and sk.startswith("[<PRIVATE_KEY:") and sk.endswith(">]")
    assert ",".join(map(str, SEC)) not in whole
