"""s42 secrets red team (round 10): what rounds 1-9 left, in the six session shapes of tests/fx_redteam.py (a
Claude Code tool_result with its toolUseResult sidecar, a Codex function_call_output, a file-history backup, an
SQLite TEXT cell, a `git diff` adding the text, a user's prose), the redacted text asserted byte for byte. Closed by
widening three existing rules and by one new rule (ZNC's hash has no name an existing rule reads); what was already
taken is kept here as tests:

- a PostgreSQL SCRAM-SHA-256 verifier (`SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey>`) wherever printed (a
  log line, prose, a Read of pgbouncer's userlist.txt without its name), and an `md5` + 32 hex password hash in a
  pgbouncer userlist line read without the file's name (password-hash-argon2; in pg_authid, `ALTER ROLE ...
  PASSWORD '...'` and `cat .../userlist.txt` it was already taken, as a PASSWORD, now as a PASSWORD_HASH);
- a pgbouncer userlist.txt (`"user" "password"`) printed by `cat`, `cat -n`, or read with its name near: already
  taken (service-secrets-file-line), but a `#` inside the quoted value ended it there (`"pw#1"` left `#1`): now
  the value's (service-secrets-file-line); a Read tool result of the file holds no name (the path is in another
  record), so a plaintext password there stays open, a hash there is closed above;
- ppp chap-secrets / pap-secrets lines under the files' header comment (`# Secrets for authentication using
  CHAP`) without the file's name (a Read result, numbered lines too), and a line naming its server (`bob<TAB>pptpd
  <TAB>secret<TAB>*`, tab-separated) (service-secrets-file-line);
- ZNC's znc.conf `<Pass password>` block (its Hash and Salt) and the old one-line `Pass = sha256#<hash>#<salt>#`
  (znc-pass-hash, new);
- Consul ACL tokens: `consul acl token create/read` and `consul acl bootstrap` print SecretID (taken,
  secret-id-uuid) and AccessorID (an id: kept); `CONSUL_HTTP_TOKEN=<uuid>` (secret-assignment-unquoted,
  secret-assignment-quoted) and `-token=<uuid>` / `-token <uuid>` (secret-assignment-unquoted,
  uuid-credential-assignment): already taken, kept here as tests;
- a password echoed into `smbpasswd -s`: `echo -e "PW\\nPW"` and `printf 'PW\\nPW\\n'` (the two lines one value),
  `(echo PW; echo PW)` (the second value, the first as its echo) (chpasswd-echo); `echo 'user:PW' | chpasswd`
  was already taken.

Negatives that must stay whole: git SHAs, UUIDs (an AccessorID, a node id, a request id), md5sum digests, pg_hba
and pgbouncer.ini settings, the same files' docs and headers, variable references.

Values are fake: drawn at import from a seeded RNG, none from a provider."""

from __future__ import annotations

import string

from tests.fx_redteam import IDS_AND_DIGESTS, case, fake_value, redteam_tests

KEY = b"s42-secret-redteam-test-key-0123456789abcdef"

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
PW = ALNUM + "!#%*-_.@"
HEX = "0123456789abcdef"
ZNC_SALT = ALNUM + "!?.,:;/*-+_()"  # ZNC's CUtils::GetSalt alphabet


def g(seed: str, alphabet: str, n: int) -> str:
    return fake_value("s42", seed, alphabet, n)


def scram(seed: str) -> str:
    """A verifier of PostgreSQL's shape: 16 bytes of salt, 32-byte StoredKey and ServerKey, base64."""
    return f"SCRAM-SHA-256$4096:{g(seed + 's', B64, 22)}==${g(seed + 'k', B64, 43)}=:{g(seed + 'v', B64, 43)}="


def uuid(seed: str) -> str:
    return "-".join(g(f"{seed}{i}", HEX, n) for i, n in enumerate((8, 4, 4, 4, 12)))


c = case

PASS = "PASSWORD"
HASH = "PASSWORD_HASH"
SECRET = "SECRET"
# a Read result's or `cat -n`'s numbered lines: no diff adds them
READ_CARRIERS = ("claude", "codex", "sidecar", "sqlite", "prose")

CASES = [
    # --- PostgreSQL verifiers and md5 hashes ------------------------------------------------------------------
    c("scram-pg-authid", "postgres=# SELECT rolname, rolpassword FROM pg_authid WHERE rolname = 'app';\n"
      " rolname | rolpassword\n---------+------------\n app     | @0@\n(1 row)\n", (HASH, scram("auth1"))),
    c("scram-pg-dumpall", "$ pg_dumpall --roles-only | grep app\nCREATE ROLE app;\n"
      "ALTER ROLE app WITH NOSUPERUSER INHERIT NOCREATEROLE NOCREATEDB LOGIN NOREPLICATION NOBYPASSRLS PASSWORD '@0@';\n",
      (HASH, scram("dump1"))),
    c("scram-in-prose", "the verifier stored for app is @0@ so the client needs SCRAM\n", (HASH, scram("prose1"))),
    c("md5-alter-role", "ALTER ROLE legacy PASSWORD '@0@';\n", (HASH, "md5" + g("md5a", HEX, 32))),
    # --- pgbouncer userlist.txt ---------------------------------------------------------------------------------
    c("pgbouncer-userlist-cat", "$ sudo cat /etc/pgbouncer/userlist.txt\n\"app\" \"@0@\"\n\"legacy\" \"@1@\"\n\"scram\" \"@2@\"\n",
      (PASS, g("pgb1", PW, 16)), (HASH, "md5" + g("pgb2", HEX, 32)), (HASH, scram("pgb3"))),
    c("pgbouncer-userlist-cat-n", "$ cat -n /etc/pgbouncer/userlist.txt\n     1\t\"app\" \"@0@\"\n     2\t\"admin\" \"@1@\"\n",
      (PASS, g("pgb4", ALNUM, 18)), (PASS, g("pgb5", PW, 14)), carriers=READ_CARRIERS),
    c("pgbouncer-userlist-read-hashes", "     1\u2192\"app\" \"@0@\"\n     2\u2192\"scram\" \"@1@\"\n",
      (HASH, "md5" + g("pgb6", HEX, 32)), (HASH, scram("pgb7")), carriers=READ_CARRIERS),
    c("pgbouncer-userlist-read-named", "Read /etc/pgbouncer/userlist.txt:\n     1\u2192\"app\" \"@0@\"\n     2\u2192\"ops\" \"@1@\"\n",
      (PASS, g("pgb8", ALNUM, 16)), (PASS, g("pgb9", PW, 16)), carriers=READ_CARRIERS),
    # --- ppp chap-secrets / pap-secrets ---------------------------------------------------------------------------
    c("chap-secrets-header-only", "# Secrets for authentication using CHAP\n# client\tserver\tsecret\t\t\tIP addresses\n"
      "alice\t*\t@0@\t*\n\"carol\"\t*\t\"@1@\"\t10.0.0.5\n", (PASS, g("chap1", ALNUM, 12)), (PASS, g("chap2", PW, 12))),
    c("chap-secrets-named-server", "$ sudo cat /etc/ppp/chap-secrets\n# client\tserver\tsecret\t\t\tIP addresses\n"
      "bob\tpptpd\t@0@\t*\n", (PASS, g("chap3", ALNUM, 12))),
    c("pap-secrets-read", "     1\u2192# Secrets for authentication using PAP\n     2\u2192# client\tserver\tsecret\t\t\tIP addresses\n"
      "     3\u2192dave\t*\t@0@\t*\n", (PASS, g("pap1", ALNUM, 12)), carriers=READ_CARRIERS),
    # --- ZNC ---------------------------------------------------------------------------------------------------------
    c("znc-pass-block", "$ grep -v '^//' ~/.znc/configs/znc.conf\n<User admin>\n\t<Pass password>\n\t\tMethod = sha256\n"
      "\t\tHash = @0@\n\t\tSalt = @1@\n\t</Pass>\n\tNick = admin\n</User>\n",
      (HASH, g("znc1", HEX, 64)), (HASH, g("znc2", ZNC_SALT, 20))),
    c("znc-pass-one-line", "<User legacy>\n  Pass = sha256#@0@#\n  Nick = legacy\n</User>\n",
      (HASH, g("znc3", HEX, 64) + "#" + g("znc4", ZNC_SALT, 20))),
    # --- Consul ACL tokens -------------------------------------------------------------------------------------------
    c("consul-acl-token-create", "$ consul acl token create -description \"ci\" -policy-name ci\n"
      "AccessorID:       " + uuid("acc1") + "\nSecretID:         @0@\nDescription:      ci\nLocal:            false\n"
      "Create Time:      2026-12-06 06:55:00.000000000 +0000 UTC\nPolicies:\n   " + uuid("pol1") + " - ci\n",
      (SECRET, uuid("sec1"))),
    c("consul-acl-bootstrap-json", "$ curl -s -X PUT http://127.0.0.1:8500/v1/acl/bootstrap\n"
      "{\"AccessorID\": \"" + uuid("acc2") + "\", \"SecretID\": \"@0@\", \"Description\": \"Bootstrap Token\"}\n",
      (SECRET, uuid("sec2"))),
    c("consul-http-token", "$ export CONSUL_HTTP_TOKEN=@0@\n$ consul members -token=@1@\n", (SECRET, uuid("sec3")),
      (SECRET, uuid("sec4"))),
    # --- smbpasswd / chpasswd ----------------------------------------------------------------------------------------
    c("smbpasswd-echo-e", "$ echo -e \"@0@\" | sudo smbpasswd -s -a alice\nAdded user alice.\n",
      (PASS, (lambda v: v + "\\n" + v)(g("smb1", ALNUM, 14)))),
    c("smbpasswd-printf", "$ printf '@0@\\n' | smbpasswd -a -s bob\n",
      (PASS, (lambda v: v + "\\n" + v)(g("smb2", PW, 14)))),
    c("smbpasswd-subshell", "$ (echo @0@; echo @0@) | smbpasswd -s -a carol\nAdded user carol.\n", (PASS, g("smb3", ALNUM, 14))),
    c("chpasswd-echo", "$ echo 'dave:@0@' | sudo chpasswd\n", (PASS, g("chp1", PW, 14))),
]

NEGATIVES = {
    "ids-and-digests": IDS_AND_DIGESTS,
    "postgres-settings-and-docs": ("$ sudo tail -3 /etc/postgresql/16/main/pg_hba.conf\nhost all all 10.0.0.0/8 scram-sha-256\n"
                                   "host legacy all 10.0.0.0/8 md5\n$ grep password_encryption postgresql.conf\n"
                                   "password_encryption = scram-sha-256\n"
                                   "A verifier reads SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>.\n"),
    "md5sum-output": ("$ md5sum dist/*.tar.gz\n" + g("md5s1", HEX, 32) + "  dist/app-1.2.0.tar.gz\n"
                      "etag md5:" + g("md5s2", HEX, 32) + "\n"),
    "pgbouncer-ini": ("$ cat /etc/pgbouncer/pgbouncer.ini\n[databases]\napp = host=db port=5432 dbname=app\n[pgbouncer]\n"
                      "auth_type = scram-sha-256\nauth_file = /etc/pgbouncer/userlist.txt\nadmin_users = postgres\n"),
    "two-quoted-strings": ("    1\u2192parser.add_argument(\"--user\", \"-u\")\n"
                           "\"Content-Type\" \"application/json\"\n\"Accept\" \"text/html\"\n"),
    "chap-secrets-header-and-docs": ("$ cat /etc/ppp/chap-secrets\n# Secrets for authentication using CHAP\n"
                                     "# client\tserver\tsecret\t\t\tIP addresses\n"
                                     "Secrets for authentication using PAP live in /etc/ppp/pap-secrets.\n"
                                     "The client and the server both need them.\n"),
    "znc-docs": ("<Pass password>\n  Method = sha256\n  Hash = <hash>\n  Salt = ...\n</Pass>\n"
                 "Run znc --makepass to get a Pass = sha256#<hash>#<salt># line.\n"
                 "$ git lfs pointer --file big.bin\noid sha256:" + g("lfs1", HEX, 64) + "\nHash = see above\n"),
    "consul-ids": ("$ consul acl token read -id " + uuid("acc3") + "\nAccessorID:       " + uuid("acc3") + "\n"
                   "SecretID:         <hidden>\n$ consul members -detailed\nNode ID: " + uuid("node1") + "\n"
                   "export CONSUL_HTTP_TOKEN=$(cat /run/secrets/consul_token)\n"),
    "smbpasswd-references": ("$ (echo \"$SMB_PW\"; echo \"$SMB_PW\") | smbpasswd -s -a alice\n"
                             "$ echo -e \"$PW\\n$PW\" | smbpasswd -s -a bob\n$ sudo smbpasswd -a carol\n"
                             "New SMB password:\nRetype new SMB password:\nAdded user carol.\n"),
}


red, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(
    KEY, CASES, NEGATIVES)
