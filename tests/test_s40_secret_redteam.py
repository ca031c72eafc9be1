"""s40 secrets red team (round 8): what rounds 1-7 left, in the six session shapes of tests/fx_redteam.py (a
Claude Code tool_result with its toolUseResult sidecar, a Codex function_call_output, a file-history backup, an
SQLite TEXT cell, a `git diff` adding the text, a user's prose), the redacted text asserted byte for byte:

- a NetworkManager keyfile's [wifi-security] psk=VALUE, unquoted (ini-pass-assignment; wpa_supplicant's quoted
  psk="..." was wpa-supplicant-passphrase's already);
- an msmtprc / .netrc password line holding a Google app password, 16 lower-case letters and nothing else
  (netrc-password-line-alone took only a value with a digit or a symbol);
- `cat` of an Ansible vault password file (~/.vault_pass.txt, vault-password): its first line
  (secret-printing-command-output);
- a password echoed into keepassxc-cli, which reads the database password from stdin (chpasswd-echo);
- `poetry config pypi-token.<repo> TOKEN`, `composer config [-g] http-basic.<host> user PW` /
  `github-oauth.<host> TOKEN`, `netlify ... --auth TOKEN` (cli-tool-password);
- `aws secretsmanager create-secret / put-secret-value --secret-string VALUE` (cli-token-flag);
- a Markdown table of variables and values: | API_SECRET | value |, | DB_PASSWORD | value | (box-table-secret-row
  read only | Secret | / | Password | / | Token | / | API Secret |).

Negatives that must stay whole: git SHAs, UUIDs, lockfile integrity hashes, the same tools' docs, references to
variables, masked values, tables of variables whose cells describe the value.

Values are fake: drawn at import from a seeded RNG, none from a provider."""

from __future__ import annotations

import string

from tests.fx_redteam import CARRIERS, IDS_AND_DIGESTS, case, fake_value, redteam_tests

KEY = b"s40-secret-redteam-test-key-0123456789abcdef"

ALNUM = string.ascii_letters + string.digits
PW = ALNUM + "!#%*-_.@"
LOWER = string.ascii_lowercase


def g(seed: str, alphabet: str, n: int) -> str:
    return fake_value("s40", seed, alphabet, n)


def app_password(seed: str) -> str:
    """16 lower-case letters, as Google shows an app password (without its spaces)."""
    import random

    rng = random.Random(f"s40:{seed}")
    return "".join(rng.choice(LOWER) for _ in range(16))


c = case

PASS = "PASSWORD"
SECRET = "SECRET"
NETRC = "NETRC_PASSWORD"

CASES = [
    # --- NetworkManager keyfile ----------------------------------------------------------------------------
    c("nm-keyfile-psk", "$ sudo cat /etc/NetworkManager/system-connections/Home.nmconnection\n[connection]\nid=Home\n"
      "uuid=0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f\ntype=wifi\n\n[wifi]\nmode=infrastructure\nssid=Home\n\n"
      "[wifi-security]\nauth-alg=open\nkey-mgmt=wpa-psk\npsk=@0@\n\n[ipv4]\nmethod=auto\n", (PASS, g("nm1", ALNUM, 14))),
    c("nm-keyfile-psk-symbols", "[wifi-security]\nkey-mgmt=sae\npsk=@0@\n", (PASS, g("nm2", PW, 16))),
    # --- msmtprc with a Google app password -------------------------------------------------------------------
    c("msmtprc-app-password", "$ cat ~/.msmtprc\naccount gmail\nhost smtp.gmail.com\nport 587\nauth on\ntls on\n"
      "user bob\npassword @0@\naccount default : gmail\n", (NETRC, app_password("msmtp1"))),
    # --- Ansible vault password file -------------------------------------------------------------------------------
    c("ansible-vault-pass-file", "$ cat ~/.vault_pass.txt\n@0@\n$ ansible-playbook site.yml --vault-password-file ~/.vault_pass.txt\n",
      (SECRET, g("avp1", ALNUM, 24))),
    c("ansible-vault-password-dotfile", "$ cat .ansible/vault-password\n@0@\n", (SECRET, g("avp2", PW, 20))),
    # --- keepassxc-cli reads the database password from stdin ------------------------------------------------------
    c("keepassxc-echo", "$ echo \"@0@\" | keepassxc-cli show -s ~/vault.kdbx github\nTitle: github\nUserName: bob\n",
      (PASS, g("kp1", ALNUM, 14))),
    # --- package managers and deploy CLIs ---------------------------------------------------------------------------
    c("poetry-pypi-token-repo", "$ poetry config repositories.acme https://pkgs.acme.dev/simple/\n"
      "$ poetry config pypi-token.acme @0@\n", (PASS, g("poetry1", ALNUM, 40))),
    c("composer-http-basic", "$ composer config --global http-basic.repo.packagist.com bob @0@\n", (PASS, g("comp1", ALNUM, 24))),
    c("composer-github-oauth", "$ composer config -g github-oauth.github.com @0@\n", (PASS, g("comp2", ALNUM, 40))),
    c("netlify-auth-flag", "$ netlify deploy --prod --dir dist --auth @0@\nDeploy path: dist\n",
      (PASS, g("ntl1", ALNUM + "-_", 43))),
    c("aws-secretsmanager-secret-string", "$ aws secretsmanager create-secret --name prod/stripe --secret-string '@0@'\n"
      "$ aws secretsmanager put-secret-value --secret-id prod/db --secret-string @1@\n",
      (SECRET, g("asm1", ALNUM, 32)), (SECRET, g("asm2", ALNUM, 20))),
    # --- a Markdown table of variables and values -------------------------------------------------------------------
    c("markdown-env-table", "Set these on the server:\n\n| Variable | Value |\n|---|---|\n| LOG_LEVEL | info |\n"
      "| API_SECRET | @0@ |\n| DB_PASSWORD | @1@ |\n| STRIPE_API_KEY | @2@ |\n",
      (SECRET, g("tbl1", ALNUM, 32)), (SECRET, g("tbl2", PW, 16)), (SECRET, g("tbl3", ALNUM, 40))),
]

NEGATIVES = {
    "ids-and-digests": IDS_AND_DIGESTS,
    "nm-keyfile-agent-owned": ("[wifi-security]\nkey-mgmt=wpa-psk\npsk-flags=1\n\n[802-1x]\neap=peap;\nidentity=bob\n"
                               "password-flags=1\n"),
    "nm-keyfile-reference": "[wifi-security]\nkey-mgmt=wpa-psk\npsk=$WIFI_PSK\n",
    "password-line-prose": "the password reset flow\nYour password requirements:\n",
    "vault-pass-docs": ("$ cat ~/.vault_pass.txt\ncat: .vault_pass.txt: No such file or directory\n"
                        "$ ansible-playbook site.yml --vault-password-file ~/.vault_pass.txt\nPLAY [all] ***\n"
                        "$ cat scripts/vault-pass.sh\n#!/bin/sh\n"),
    "keepassxc-references": ("$ echo \"$KP_PW\" | keepassxc-cli show -s ~/vault.kdbx github\n"
                             "$ keepassxc-cli ls ~/vault.kdbx\n"),
    "package-manager-refs": ("$ poetry config pypi-token.pypi $PYPI_TOKEN\n"
                             "$ composer config --global http-basic.repo.packagist.com bob\n"
                             "$ composer config -g github-oauth.github.com \"$GITHUB_TOKEN\"\n"
                             "$ composer config repositories.foo vcs https://github.com/acme/foo\n"
                             "$ netlify deploy --auth $NETLIFY_AUTH_TOKEN --prod\n$ netlify login\n"),
    "secretsmanager-refs": ("$ aws secretsmanager create-secret --name prod/db --secret-string file://creds.json\n"
                            "$ aws secretsmanager put-secret-value --secret-id prod/db --secret-string \"$DB_JSON\"\n"
                            "$ aws secretsmanager get-secret-value --secret-id prod/db --query SecretString\n"),
    "markdown-tables-describing-values": ("| Variable | Default |\n|---|---|\n| SESSION_SECRET | auto-generated |\n"
                                          "| NEXTAUTH_SECRET | openssl-rand-base64 |\n| NPM_TOKEN | secrets.NPM_TOKEN |\n"
                                          "| GITHUB_TOKEN | ${{ secrets.GITHUB_TOKEN }} |\n| API_TOKEN | `required` |\n"
                                          "| DB_PASSWORD | ******** |\n| commit | 3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e7f8091a2 |\n"),
    "lockfile-integrity-rows": ("| package | version | integrity |\n|---|---|---|\n"
                                "| left-pad | 1.3.0 | sha512-kJf8Qm2bVxR7tLp3HsN9wZc4YdE6uA1oGiK5rT0yXqWvBn7MjS8fPlD2eC3hUa9Zg4Xk1Rb6Tn0Ys5Wq7Lm8Vp== |\n"
                                "\n| integrity_token | sha512-kJf8Qm2bVxR7tLp3HsN9wZc4YdE6uA1oGiK5rT0yXqWvBn7MjS8fPlD2eC3hUa9Zg4Xk1Rb6Tn0Ys5Wq7Lm8Vp== |\n"),
}


red, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(
    KEY, CASES, NEGATIVES)
