"""s37 secrets red team (round 7): what rounds 1-6 left, in the six session shapes of tests/fx_redteam.py (a
Claude Code tool_result with its toolUseResult sidecar, a Codex function_call_output, a file-history backup, an
SQLite TEXT cell, a `git diff` adding the text, a user's prose), the redacted text asserted byte for byte:

- dovecot passwd-file lines and doveadm output: the password after a {PLAIN} / {CLEARTEXT} / {CLEAR} scheme
  (dovecot-plain-scheme-password), a {SHA512-CRYPT}$6$ hash (password-hash-unix-crypt);
- exim's /etc/exim4/passwd.client printed: host:login:password, the third field (service-secrets-file-line);
- cntlm.conf: Password, PassNTLMv2 / PassNT / PassLM (cntlm-password);
- lftp: set ftp:default-password / set sftp:...password, and open -u user,pw inside an lftp script
  (lftp-set-password, cli-tool-password-flag);
- php-fpm pool config: env[DB_PASSWORD] = .., php_admin_value[mysql.default_password] = .., php_value[..password]
  (php-fpm-pool-secret);
- mosquitto password_file lines: $7$ (PBKDF2-SHA512) and $6$ base64 hashes (password-hash-unix-crypt);
- sops --set '["db"]["password"] "pw"' and sops set FILE '["k"]' '"pw"' (sops-set-value);
- vsftpd's virtual users file printed by cat: alternate user / password lines, one span from the first password to
  the last (vsftpd-virtual-users-file);
- GitHub Actions step-debug logs: `##[debug]Evaluating: secrets.X` and its `##[debug]=> 'value'`, `Set output
  'token' = value` for a secret-named output (actions-debug-secret-value).

Negatives that must stay whole: git SHAs, UUIDs, the same tools' docs and comments, masked values, ordinary
config lines.

Values are fake: drawn at import from a seeded RNG, none from a provider."""

from __future__ import annotations

import string

from tests.fx_redteam import CARRIERS, IDS_AND_DIGESTS, case, fake_value, redteam_tests

KEY = b"s37-secret-redteam-test-key-0123456789abcdef"

HEX = "0123456789ABCDEF"
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
PW = ALNUM + "!#%*-_.@"


def g(seed: str, alphabet: str, n: int) -> str:
    return fake_value("s37", seed, alphabet, n)


c = case


NO_DIFF = tuple(x for x in CARRIERS if x != "diff")
PASS = "PASSWORD"
HASH = "PASSWORD_HASH"
SECRET = "SECRET"

CASES = [
    # --- dovecot ------------------------------------------------------------------------------------------
    c("dovecot-passwd-file-plain", "$ sudo cat /etc/dovecot/users\nbob:{PLAIN}@0@::::::\n"
      "alice:{CLEARTEXT}@1@::::::userdb_quota_rule=*:storage=1G\n",
      (PASS, g("dove1", ALNUM, 12)), (PASS, g("dove2", PW, 14))),
    c("dovecot-passwd-file-no-userdb", "carol:{PLAIN}@0@\n", (PASS, g("dove3", ALNUM, 10))),
    c("doveadm-pw-output", "$ doveadm pw -s CLEARTEXT\nEnter new password:\nRetype new password:\n{CLEARTEXT}@0@\n",
      (PASS, g("dove4", ALNUM, 12))),
    c("dovecot-static-passdb", "passdb {\n  driver = static\n  args = password={PLAIN}@0@\n}\n", (PASS, g("dove5", ALNUM, 12))),
    c("dovecot-sha512-crypt", "dave:{SHA512-CRYPT}@0@::::::\n",
      (HASH, "$6$" + g("dovesalt", ALNUM, 16) + "$" + g("dovehash", ALNUM + "./", 86))),
    # --- exim passwd.client -----------------------------------------------------------------------------
    c("exim-passwd-client", "$ sudo cat /etc/exim4/passwd.client\n# password file used when the local exim is authenticating to a remote\n"
      "# host as a client.\n#\n### target.mail.server.example:login:password\nmail.example.com:bob@example.com:@0@\n"
      "*.smtp.acme.dev:relay:@1@\n", (PASS, g("exim1", ALNUM, 12)), (PASS, g("exim2", PW, 14))),
    # --- cntlm ---------------------------------------------------------------------------------------------
    c("cntlm-password", "$ cat /etc/cntlm.conf\nUsername\tbob\nDomain\t\tACME\nPassword\t@0@\nProxy\t\t10.0.0.1:8080\n",
      (PASS, g("cntlm1", ALNUM, 12))),
    c("cntlm-hashes", "Username  bob\nDomain    ACME\nPassLM    @0@\nPassNT    @1@\nPassNTLMv2  @2@  # Only for user 'bob', domain 'ACME'\n",
      (HASH, g("cntlmlm", HEX, 32)), (HASH, g("cntlmnt", HEX, 32)), (HASH, g("cntlmv2", HEX, 32))),
    # --- lftp ----------------------------------------------------------------------------------------------
    c("lftp-set-default-password", "$ cat ~/.lftprc\nset ftp:default-user bob\nset ftp:default-password @0@\nset ftp:ssl-force true\n",
      (PASS, g("lftp1", ALNUM, 12))),
    c("lftp-set-sftp-password", 'lftp :~> set sftp:connect-program "ssh -a -x"\nlftp :~> set sftp:default-password "@0@"\n',
      (PASS, g("lftp2", ALNUM, 14))),
    c("lftp-script-open-u", "$ cat mirror.lftp\nopen -u deploy,@0@ sftp://files.acme.dev\nmirror -R ./dist /var/www\nbye\n",
      (PASS, g("lftp3", ALNUM, 12))),
    # --- php-fpm pool -------------------------------------------------------------------------------------
    c("php-fpm-env-password", "[www]\nuser = www-data\nenv[PATH] = /usr/local/bin:/usr/bin:/bin\nenv[DB_PASSWORD] = @0@\n",
      (PASS, g("phpfpm1", ALNUM, 14))),
    c("php-fpm-admin-value-password", "php_admin_value[mysql.default_password] = @0@\nphp_admin_value[memory_limit] = 256M\n",
      (PASS, g("phpfpm2", ALNUM, 14))),
    c("php-fpm-php-value-password", 'php_value[redis.session.password] = "@0@"\nphp_flag[display_errors] = off\n',
      (PASS, g("phpfpm3", ALNUM, 14))),
    c("php-fpm-env-token", "env[STRIPE_SECRET] = @0@\nenv[APP_API_TOKEN] = @1@\n",
      (SECRET, g("phpfpm4", ALNUM, 24)), (SECRET, g("phpfpm5", ALNUM, 24))),
    # --- mosquitto password_file ---------------------------------------------------------------------------
    c("mosquitto-passwd-7", "$ cat /etc/mosquitto/passwd\nbob:@0@\nsensor:@1@\n",
      (HASH, "$7$101$" + g("mq7salt1", B64, 15) + "a$" + g("mq7hash1", B64, 86) + "=="),
      (HASH, "$7$1000$" + g("mq7salt2", B64, 15) + "b$" + g("mq7hash2", B64, 86) + "==")),
    c("mosquitto-passwd-6", "bob:@0@\n", (HASH, "$6$" + g("mq6salt", B64, 15) + "c$" + g("mq6hash", B64, 86) + "==")),
    # --- sops ------------------------------------------------------------------------------------------------
    c("sops-set-expression", "$ sops --set '[\"db\"][\"password\"] \"@0@\"' secrets.enc.yaml\n", (SECRET, g("sops1", PW, 16))),
    c("sops-set-subcommand", "$ sops set secrets.enc.json '[\"api\"][\"token\"]' '\"@0@\"'\n", (SECRET, g("sops2", ALNUM, 24))),
    # --- vsftpd virtual users file: from the first password to the last, the user names between included (one span;
    # not in a diff, whose hunk header counts the lines the token replaces) ---------------------------------------------
    c("vsftpd-virtual-users", "$ sudo cat /etc/vsftpd/virtual_users.txt\nbob\n@0@\n$ sudo db_load -T -t hash -f "
      "/etc/vsftpd/virtual_users.txt /etc/vsftpd/virtual_users.db\n",
      (PASS, g("vsf1", ALNUM, 12) + "\nalice\n" + g("vsf2", PW, 14)), carriers=NO_DIFF),
    c("vsftpd-vusers-one", "$ cat vusers.txt\nftpuser\n@0@\n", (PASS, g("vsf3", ALNUM, 12))),
    # --- GitHub Actions step-debug logs ------------------------------------------------------------------------
    c("actions-debug-evaluating-secret", "##[debug]Evaluating: secrets.DEPLOY_TOKEN\n##[debug]Evaluating Index:\n"
      "##[debug]..Evaluating secrets:\n##[debug]..=> Object\n##[debug]..Evaluating String:\n##[debug]..=> 'DEPLOY_TOKEN'\n"
      "##[debug]=> '@0@'\n##[debug]Result: '@0@'\n", (SECRET, g("gha1", ALNUM, 32))),
    c("actions-debug-set-output", "##[debug]Set output 'token' = @0@\n##[debug]Set output 'tag' = v1.2.3\n",
      (SECRET, g("gha2", ALNUM, 28))),
    c("actions-debug-timestamped", "2026-03-02T10:11:12.3456789Z ##[debug]Evaluating: secrets.NPM_TOKEN\n"
      "2026-03-02T10:11:12.3457789Z ##[debug]Evaluating Index:\n2026-03-02T10:11:12.3458789Z ##[debug]..Evaluating secrets:\n"
      "2026-03-02T10:11:12.3459789Z ##[debug]..=> Object\n2026-03-02T10:11:12.3460789Z ##[debug]..Evaluating String:\n"
      "2026-03-02T10:11:12.3461789Z ##[debug]..=> 'NPM_TOKEN'\n2026-03-02T10:11:12.3462789Z ##[debug]=> '@0@'\n",
      (SECRET, g("gha3", ALNUM, 36))),
]

NEGATIVES = {
    "ids-and-digests": IDS_AND_DIGESTS,
    "dovecot-docs": ("The {PLAIN} scheme stores the password as is; {CLEARTEXT} is its alias.\n"
                     "default_pass_scheme = CRYPT\n"
                     "use `{PLAIN}` only for testing, prefer {SHA512-CRYPT}.\n"
                     "$ doveadm pw -l\nSHA1 SSHA512 BLF-CRYPT PLAIN HMAC-MD5 OTP SHA512 SHA CRAM-MD5 PLAIN-TRUNC CLEAR CLEARTEXT\n"
                     "passdb {\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u /etc/dovecot/users\n}\n"),
    "exim-docs": ("$ cat /etc/exim4/update-exim4.conf.conf\ndc_eximconfig_configtype='smarthost'\n"
                  "dc_smarthost='mail.example.com::587'\ndc_hide_mailname='true'\n"
                  "Edit /etc/exim4/passwd.client and\nrun update-exim4.conf afterwards\n"
                  "# target.mail.server.example:login:password\n"),
    "cntlm-docs": ("# PassNTLMv2 is the hash printed by cntlm -H; put it here instead of Password\n"
                   "# Password\tpassword\n"
                   "$ cntlm -H -u bob -d ACME\nPassword:\n"
                   "Listen\t\t3128\nNoProxy\t\tlocalhost, 127.0.0.*, 10.*, 192.168.*\n"),
    "lftp-docs": ("set ftp:default-password sets the password used when none is given\n"
                  "set ftp:passive-mode on\nset ftp:ssl-allow no\nset sftp:auto-confirm yes\n"
                  "open -u deploy sftp://files.acme.dev\n"
                  "lftp -u deploy, sftp://files.acme.dev\n"),
    "php-fpm-ordinary": ("env[PATH] = /usr/local/bin:/usr/bin:/bin\nenv[TMP] = /tmp\nenv[HOSTNAME] = $HOSTNAME\n"
                         "env[DB_PASSWORD] = $DB_PASSWORD\n"
                         "php_admin_value[error_log] = /var/log/fpm-php.www.log\nphp_admin_flag[log_errors] = on\n"
                         "php_value[session.save_handler] = files\nphp_admin_value[memory_limit] = 32M\n"),
    "shell-colours-and-templates": ("PLAIN='\\033[0m'\necho -e \"${RED}Error:${PLAIN}Something failed\"\n"
                                    "msg = f\"{plain}_{suffix}\"\n"
                                    "$ ls -l /etc/exim4\n-rw-r----- 1 root Debian-exim 0 Mar  2 10:11 passwd.client\n"
                                    "-rw-r--r-- 1 root root 1.2K Mar  2 10:11 update-exim4.conf.conf\n"),
    "vsftpd-near-misses": ("$ cat /etc/vsftpd/virtual_users.txt\ncat: /etc/vsftpd/virtual_users.txt: No such file or directory\n"
                           "$ cat /etc/vsftpd/user_list\nroot\nbin\ndaemon\n"
                           "$ cat /etc/vsftpd/vsftpd.conf\nlisten=YES\nanonymous_enable=NO\nguest_enable=YES\n"),
    "mosquitto-docs": ("$ mosquitto_passwd -c /etc/mosquitto/passwd bob\nPassword:\nReenter password:\n"
                       "password_file /etc/mosquitto/passwd\nallow_anonymous false\n"
                       "the $7$ prefix marks a PBKDF2-SHA512 hash; $6$ is the older SHA512 one\n"),
    "sops-docs": ("$ sops --set '[\"replicas\"] 3' values.enc.yaml\n"
                  "$ sops --extract '[\"db\"][\"password\"]' -d secrets.enc.yaml\n"
                  "$ sops -d secrets.enc.yaml\n"),
    "actions-masked-and-plain": ("##[debug]Evaluating: secrets.DEPLOY_TOKEN\n##[debug]Evaluating Index:\n"
                                 "##[debug]..Evaluating secrets:\n##[debug]..=> Object\n##[debug]..Evaluating String:\n"
                                 "##[debug]..=> 'DEPLOY_TOKEN'\n##[debug]=> '***'\n##[debug]Result: '***'\n"
                                 "##[debug]Evaluating: github.sha\n##[debug]=> '3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e7f8091a2'\n"
                                 "##[debug]Evaluating: matrix.os\n##[debug]=> 'ubuntu-latest'\n"
                                 "##[debug]Set output 'sha' = 3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e7f8091a2\n"
                                 "##[debug]Set output 'run-id' = 0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f\n"
                                 "##[debug]Set output 'token' = ***\n"),
}


red, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(
    KEY, CASES, NEGATIVES)
