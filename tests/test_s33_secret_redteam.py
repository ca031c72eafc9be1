"""s33 secrets red team (round 4): what round 3 left, in the six session shapes of
tests/test_s32_secret_redteam.py (a Claude Code tool_result with its toolUseResult sidecar, a Codex
function_call_output, a file-history backup, an SQLite TEXT cell, a `git diff` adding the text, a user's
prose), the redacted text asserted byte for byte:

- a private key written as a list of byte values: a Solana CLI keypair file (`~/.config/solana/id.json`,
  64 values 0..255) shown by `cat`, a script's `secretKey` array, Node's `Uint8Array(64) [...]`
  (byte-array-private-key);
- a 64-hex key named only in a sentence (`the signing key is <hex>`, `HMAC key: <hex>`): a branch of
  private-key-hex-named, not a rule of its own (s32's prose-hex-key cost ~3 MB RSS gated by key/secret);
- over-redactions of older rules, the secret beside them still taken: reCAPTCHA's `response=` after
  `secret=<key>&` (prose-secret ran over the `&`), a .NET connection string's `;Encrypt=True;...` after
  `Password=<value>` (password-assignment-symbols ran over the `;`), msmtprc's `user alerts`.

Since the lead's fold of the helper's walker patch (jsondoc.py, engine.py), a keypair file that is
nothing but the array is scanned as text in every shape (a parsed document of 32 or 64 byte values is
not walked), a parsed Composer auth.json reads its token under `bearer`, and the table pass reads a
diff's `+| ... |` rows; a byte list nested in a parsed document is scanned too
(tests/test_s33_nested_byte_keys.py). Left: a keypair array printed with a `publicKey` array of 32 values beside it
(that public key is taken too: 32 random bytes are all the rule sees).

Values are fake: drawn at import from a seeded RNG, none from a provider."""

from __future__ import annotations

import json
import random

from tests.fx_redteam import CARRIERS, Case, redteam_tests
from tests.test_s32_secret_redteam import ALNUM, HEX, PW, URLSAFE

KEY = b"s33-secret-redteam-test-key-0123456789abcdef"


def g(seed: str, alphabet: str, n: int) -> str:
    """n characters of `alphabet` from a RNG seeded by `seed`, with two letters and two digits at least
    when the alphabet has both."""
    rng = random.Random(f"s33:{seed}")
    while True:
        v = "".join(rng.choice(alphabet) for _ in range(n))
        if not any(ch.isdigit() for ch in alphabet) or not any(ch.isalpha() for ch in alphabet):
            return v
        if sum(ch.isalpha() for ch in v) >= 2 and sum(ch.isdigit() for ch in v) >= 2:
            return v


def key_bytes(seed: str, n: int) -> list[int]:
    """n random byte values, with one of three digits (a real key of 32 or more has one)."""
    rng = random.Random(f"s33:{seed}")
    while True:
        v = [rng.randrange(256) for _ in range(n)]
        if max(v) >= 100:
            return v


def c(name: str, template: str, *secrets: tuple[str, str], carriers: tuple[str, ...] = CARRIERS) -> Case:
    return Case(name, template, secrets, carriers)


SOL = key_bytes("solana", 64)
SOL_JSON = ",".join(map(str, SOL))  # solana-keygen writes the array without spaces
SK = key_bytes("secretkey", 64)
SEED32 = key_bytes("seed32", 32)
NODE = key_bytes("node", 64)
NODE_TEXT = ",\n".join(",".join(f"{b:4d}" for b in NODE[i:i + 12]) for i in range(0, 64, 12)).strip()

RECAPTCHA_RESPONSE = "03AGdBq2" + g("recaptcha-resp", URLSAFE, 120)

CASES = [
    # --- byte arrays --------------------------------------------------------------------------------
    c("solana-keypair-cat", "$ solana-keygen new --no-bip39-passphrase --silent --outfile ~/.config/solana/id.json\n"
      "$ cat ~/.config/solana/id.json\n[@0@]\n", ("PRIVATE_KEY", SOL_JSON)),
    c("solana-keypair-file", "[@0@]", ("PRIVATE_KEY", SOL_JSON)),
    c("solana-keypair-file-newline", "[@0@]\n", ("PRIVATE_KEY", SOL_JSON)),
    c("secretkey-array-log", 'wrote keypair: {"secretKey": [@0@]}\n', ("PRIVATE_KEY", ", ".join(map(str, SK)))),
    c("seed-array-python", "seed = bytes([@0@])\nsigner = SigningKey(seed)\n", ("PRIVATE_KEY", ", ".join(map(str, SEED32)))),
    c("node-uint8array", "> keypair.secretKey\nUint8Array(64) [\n  @0@\n]\n", ("PRIVATE_KEY", NODE_TEXT),
      carriers=("claude", "codex", "sidecar", "sqlite", "prose")),  # in a diff the value's lines carry + markers (taken too)
    c("anchor-toml-wallet-env", "ANCHOR_WALLET=~/.config/solana/id.json\nPRIVATE_KEY='[@0@]'\n", ("PRIVATE_KEY", SOL_JSON)),
    # --- a hex key named only in a sentence ------------------------------------------------------------
    c("prose-signing-key", "the signing key is @0@, rotate it monthly\n", ("PRIVATE_KEY", g("signing", HEX, 64))),
    c("prose-hmac-key-colon", "Webhook HMAC key: @0@\n", ("PRIVATE_KEY", g("hmac", HEX, 64))),
    c("prose-aes-key-0x", "the AES-256 key is @0@\n", ("PRIVATE_KEY", "0x" + g("aes", HEX, 64))),
    c("prose-encryption-key-was", "Your encryption key was set to @0@.\n", ("PRIVATE_KEY", g("enc", HEX, 64))),
    # --- the secret beside an older rule's over-redaction ----------------------------------------------
    c("recaptcha-siteverify-curl", "$ curl -s -d 'secret=@0@&response=" + RECAPTCHA_RESPONSE
      + "' https://www.google.com/recaptcha/api/siteverify\n{\n  \"success\": true\n}\n", ("SECRET", "6L" + g("recaptcha", URLSAFE, 38))),
    c("recaptcha-siteverify-url", "GET https://www.google.com/recaptcha/api/siteverify?secret=@0@&response=" + RECAPTCHA_RESPONSE
      + "&remoteip=203.0.113.9\n", ("SECRET", "6L" + g("recaptcha2", URLSAFE, 38))),
    c("dotnet-connstr-encrypt", "Server=tcp:acme.database.windows.net,1433;Initial Catalog=app;User ID=svc;Password=@0@;Encrypt=True;"
      "TrustServerCertificate=False;Connection Timeout=30;\n", ("PASSWORD", g("dotnet", ALNUM, 20))),
    c("dotnet-connstr-symbols", "Server=db.internal;Database=app;User Id=sa;Password=@0@;MultipleActiveResultSets=False;Encrypt=True;\n",
      ("DB_PASSWORD", g("dotnet2", ALNUM, 7) + "$" + g("dotnet3", ALNUM, 6) + "(!#")),  # symbols: odbc-pwd's alone
    c("dotnet-appsettings", '{\n  "ConnectionStrings": {\n    "Default": "Server=db;Database=app;User Id=app;Password=@0@;Encrypt=True;TrustServerCertificate=True"\n  }\n}\n',
      ("PASSWORD", g("appsettings", ALNUM, 24))),
    c("msmtprc-user-line", "account gmail\nhost smtp.gmail.com\nport 587\nfrom alerts@example.com\nuser alerts\npassword @0@\n",
      ("NETRC_PASSWORD", g("msmtp", PW, 16))),
    c("msmtprc-defaults", "defaults\nauth on\ntls on\n\naccount default\nhost smtp.example.com\nport 465\ntls_starttls off\nuser alerts\npassword @0@\n",
      ("NETRC_PASSWORD", g("msmtp2", PW, 16))),
]
NEGATIVES = {
    "int-arrays": ("shape=[1, 3, 224, 224] strides=[150528, 50176, 224, 1]\n"
                   "idx = [" + ", ".join(map(str, range(64))) + "]\n"
                   "rgba = [" + ", ".join(["255, 0, 0, 255"] * 16) + "]\n"
                   "ports = [80, 443, 8080, 8443, 3000, 5432, 6379, 9200, 9300, 27017, 5672, 15672, 2379, 2380, 10250, 10255,"
                   " 30000, 30001, 30002, 30003, 30004, 30005, 30006, 30007, 30008, 30009, 30010, 30011, 30012, 30013, 30014, 30015]\n"),
    "byte-array-33": "[" + ",".join(map(str, key_bytes("thirtythree", 33))) + "]\n",
    "byte-array-json": json.dumps({"layers": [key_bytes("json-a", 16), key_bytes("json-b", 20)]}) + "\n",
    "hex-near-misses": ("the cache key is 9e107d9d372bb6826bd81d3542a419d6e277d4d731479571562b82f74494341f\n"
                        "signing key fingerprint 3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e\n"
                        "the signing key is 3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e7f8091a2 (a git SHA)\n"
                        "the encryption key is derived from the passphrase with scrypt\n"
                        "master key id: mk_01HZX3K5QG7V8M2N4P6R9T1W3Y\n"),
    "recaptcha-response-only": ("grecaptcha.execute(siteKey).then(token => verify(token))\n"
                                "POST /verify response=" + RECAPTCHA_RESPONSE + "&remoteip=203.0.113.9\n"),
    "connstr-integrated": ("Server=db.internal;Database=app;Integrated Security=True;Encrypt=True;TrustServerCertificate=False;\n"
                           "Data Source=(localdb)\\MSSQLLocalDB;Initial Catalog=app;Integrated Security=SSPI;Encrypt=False\n"),
    "msmtprc-passwordeval": ("account gmail\nhost smtp.gmail.com\nport 587\nfrom alerts@example.com\nuser alerts\n"
                             "passwordeval \"gpg --quiet --for-your-eyes-only --no-tty --decrypt ~/.msmtp-gmail.gpg\"\n"),
}


red, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(
    KEY, CASES, NEGATIVES)
