"""s41 secrets red team (round 9): what rounds 1-8 left, in the six session shapes of tests/fx_redteam.py (a
Claude Code tool_result with its toolUseResult sidecar, a Codex function_call_output, a file-history backup, an
SQLite TEXT cell, a `git diff` adding the text, a user's prose), the redacted text asserted byte for byte. Each
gap closed by widening an existing rule, no new rule or program:

- a Java .properties password with a space for separator (`spring.datasource.password VALUE`), on a line of its
  own (password-assignment-unquoted);
- a YAML `pwd: VALUE` and glued names (`remotepass = VALUE` offlineimap, `adminpass = "VALUE"` Nix)
  (password-assignment-unquoted, password-assignment-quoted);
- a Terraform variable's `default` under a password / secret / token name, lines below its `variable "..." {`
  (password-assignment-quoted, secret-assignment-quoted);
- the ASP.NET auth cookies (.ASPXAUTH after another cookie, .AspNetCore.Cookies, .AspNetCore.Identity.*) and
  WordPress's wordpress_logged_in_<hash> (cookie-session);
- a Datadog browser client token (DD_CLIENT_TOKEN: pub + 32 hex) and a Terraform datadog provider's
  `app_key = "<40 hex>"` (datadog-api-key, datadog-app-key);
- MongoDB Atlas service account secrets (mdb_sa_sk_...), Unkey root keys (unkey_...), Apify tokens (apify_api_...),
  Kaggle API tokens (KGAT_...), PayPal OAuth access tokens (A21AA...) (service-prefixed-token); GitLab workspace
  tokens (glwt-..., gitlab-token-odd-length); a Honeycomb key in OTEL_EXPORTER_OTLP_HEADERS (url-query-api-key);
- PagerDuty Events v1 integration URLs, Grafana OnCall integration URLs and healthchecks.io ping URLs, whose path
  holds the key
  (url-path-secret);
- `cypher-shell -p PW` (cli-tool-password-flag); `cat .erlang.cookie` output (secret-printing-command-output);
- strongSwan ipsec.secrets `user : EAP "PW"` / `XAUTH "PW"`, WeeChat `/set ...sasl_password "PW"`, slapd.conf
  `rootpw PW`, the generated password Elasticsearch prints (`Password for the [elastic] user ...` and the next
  line) and Jenkins's setup log (config-cli-password);
- `cat .../initialAdminPassword` (Jenkins) and `argocd admin initial-password` output
  (secret-printing-command-output); `grafana-cli admin reset-admin-password PW` (cli-tool-password-flag).

Negatives that must stay whole: git SHAs, UUIDs, lockfile integrity hashes, the same tools' docs, references to
variables, masked values, cookies and names that are no credentials.

Values are fake: drawn at import from a seeded RNG, none from a provider."""

from __future__ import annotations

import string

from tests.fx_redteam import IDS_AND_DIGESTS, case, fake_value, redteam_tests

KEY = b"s41-secret-redteam-test-key-0123456789abcdef"

ALNUM = string.ascii_letters + string.digits
PW = ALNUM + "!#%*-_.@"
HEX = "0123456789abcdef"
UHEX = "0123456789ABCDEF"


def g(seed: str, alphabet: str, n: int) -> str:
    return fake_value("s41", seed, alphabet, n)


c = case

PASS = "PASSWORD"
SECRET = "SECRET"
COOKIE = "SESSION_COOKIE"
DD = "DATADOG_KEY"
API = "API_KEY"
QKEY = "API_KEY"

CASES = [
    # --- Java .properties, `key value` ----------------------------------------------------------------------
    c("properties-space-separator", "$ cat src/main/resources/application.properties\n"
      "spring.datasource.url=jdbc:postgresql://db:5432/app\nspring.datasource.username=app\n"
      "spring.datasource.password @0@\nmail.smtp.password   @1@\nserver.port 8080\n",
      (PASS, g("props1", PW, 16)), (PASS, g("props2", ALNUM, 14))),
    # --- YAML pwd, glued names ------------------------------------------------------------------------------
    c("yaml-pwd", "db:\n  host: db.internal\n  user: app\n  pwd: @0@\n", (PASS, g("pwd1", ALNUM, 14))),
    c("offlineimap-remotepass", "[Repository remote]\ntype = IMAP\nremoteuser = bob\nremotepass = @0@\n",
      (PASS, g("oimap1", ALNUM, 14))),
    c("nix-adminpass", "services.nextcloud.config.adminuser = \"root\";\nservices.nextcloud.config.adminpass = \"@0@\";\n",
      (PASS, g("nix1", ALNUM, 16))),
    # --- Terraform variable defaults ------------------------------------------------------------------------
    c("tf-variable-default-password", "variable \"admin_password\" {\n  type    = string\n  default = \"@0@\"\n}\n",
      (PASS, g("tfv1", PW, 18))),
    c("tf-variable-default-token", "variable \"github_token\" {\n  type      = string\n  sensitive = true\n"
      "  default   = \"@0@\"\n}\n", (SECRET, g("tfv2", ALNUM, 40))),
    # --- cookies --------------------------------------------------------------------------------------------
    c("cookie-aspxauth-after-another", "> GET /admin HTTP/1.1\n> Cookie: ASP.NET_SessionId=@0@; .ASPXAUTH=@1@\n",
      (COOKIE, g("asp1", "abcdefghijklmnopqrstuvwxyz012345", 24)), (COOKIE, g("asp2", UHEX, 160))),
    c("cookie-aspnetcore", "Cookie: .AspNetCore.Cookies=@0@\n", (COOKIE, g("aspc1", ALNUM + "-_", 120))),
    c("cookie-wordpress-logged-in", "Cookie: wordpress_logged_in_3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e=@0@\n",
      (COOKIE, "admin%7C1767225600%7C" + g("wp1", ALNUM, 43) + "%7C" + g("wp2", HEX, 64))),
    # --- Datadog ---------------------------------------------------------------------------------------------
    c("datadog-client-token", "DD_CLIENT_TOKEN: @0@\nDD_SITE: datadoghq.eu\n", (DD, "pub" + g("ddc1", HEX, 32))),
    c("datadog-provider-app-key", "provider \"datadog\" {\n  api_key = var.datadog_api_key\n  app_key = \"@0@\"\n}\n",
      (DD, g("dda1", HEX, 40))),
    # --- provider prefixes ------------------------------------------------------------------------------------
    c("atlas-service-account-secret", "export MONGODB_ATLAS_CLIENT_ID=mdb_sa_id_0123456789abcdef01234567\n"
      "export MONGODB_ATLAS_CLIENT_SECRET=@0@\n", (API, "mdb_sa_sk_" + g("mdb1", ALNUM, 40))),
    c("unkey-root-key", "const unkey = new Unkey({ rootKey: \"@0@\" });\n", (API, "unkey_" + g("unk1", ALNUM, 28))),
    # --- webhook URLs with the key in the path ---------------------------------------------------------------
    c("pagerduty-events-v1-url", "$ curl -X POST https://events.pagerduty.com/integration/@0@/enqueue -d @alert.json\n",
      (SECRET, g("pd1", HEX, 32))),
    c("grafana-oncall-url", "receivers:\n- name: oncall\n  webhook_configs:\n"
      "  - url: https://oncall-prod-eu-west-0.grafana.net/integrations/v1/alertmanager/@0@/\n",
      (SECRET, g("goc1", ALNUM, 25))),
    # --- commands and config lines ---------------------------------------------------------------------------
    c("cypher-shell-p", "$ cypher-shell -a neo4j://db:7687 -u neo4j -p @0@ 'RETURN 1'\n", (PASS, g("cy1", ALNUM, 16))),
    c("erlang-cookie-cat", "$ sudo cat /var/lib/rabbitmq/.erlang.cookie\n@0@\n$ rabbitmqctl status\n",
      (SECRET, g("erl1", string.ascii_uppercase + "0123", 20))),
    c("ipsec-secrets-eap-xauth", "$ sudo cat /etc/ipsec.secrets\n: RSA server.key\nbob : EAP \"@0@\"\nalice : XAUTH \"@1@\"\n",
      (PASS, g("eap1", ALNUM, 16)), (PASS, g("xauth1", ALNUM, 16))),
    c("weechat-sasl-password", "/set irc.server.libera.sasl_mechanism plain\n/set irc.server.libera.sasl_password \"@0@\"\n",
      (PASS, g("wee1", ALNUM, 16))),
    # --- generated first passwords printed by installers and admin commands ---------------------------------
    c("jenkins-initial-admin-password", "$ sudo cat /var/lib/jenkins/secrets/initialAdminPassword\n@0@\n",
      (SECRET, g("jen1", HEX, 32))),
    c("jenkins-setup-log", "An admin user has been created and a password generated.\n"
      "Please use the following password to proceed to installation:\n\n@0@\n\n"
      "This may also be found at: /var/jenkins_home/secrets/initialAdminPassword\n", (PASS, g("jen2", HEX, 32))),
    c("argocd-initial-password", "$ argocd admin initial-password -n argocd\n@0@\n\n"
      " This password must be only used for first time login. We strongly recommend you update the password.\n",
      (SECRET, g("argo1", ALNUM + "-", 16))),
    c("elasticsearch-reset-password", "$ bin/elasticsearch-reset-password -u elastic -b\n"
      "Password for the [elastic] user successfully reset.\nNew value: @0@\n", (PASS, g("es1", ALNUM + "*_=-", 20))),
    c("elasticsearch-first-start", "Elasticsearch security features have been automatically configured!\n"
      "Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\n  @0@\n",
      (PASS, g("es2", ALNUM + "*_=-", 20))),
    c("grafana-reset-admin-password", "$ grafana-cli admin reset-admin-password @0@\nAdmin password changed successfully \u2714\n",
      (PASS, g("graf1", ALNUM, 16))),
    c("slapd-rootpw", "database mdb\nsuffix \"dc=acme,dc=dev\"\nrootdn \"cn=admin,dc=acme,dc=dev\"\nrootpw    @0@\n",
      (PASS, g("ldap1", ALNUM, 14))),
    # --- more provider prefixes and monitoring URLs -----------------------------------------------------------
    c("gitlab-workspace-token", "I set the workspace token to @0@ in the agent config\n", ("GITLAB_TOKEN", "glwt-" + g("glwt1", ALNUM, 20))),
    c("apify-token", "$ export APIFY_TOKEN=@0@\n$ apify run\n", (API, "apify_api_" + g("apify1", ALNUM, 36))),
    c("kaggle-kgat-token", "$ cat ~/.kaggle/access_token\n@0@\n$ export KAGGLE_API_TOKEN=@0@\n", (API, "KGAT_" + g("kgat1", HEX, 32))),
    c("paypal-oauth-access-token", "{\"scope\": \"https://uri.paypal.com/services/invoicing\", \"access_token\": \"@0@\", "
      "\"token_type\": \"Bearer\", \"expires_in\": 32400}\n", (API, "A21AA" + g("pp1", ALNUM + "-_", 92))),
    c("healthchecks-ping-url", "0 3 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 https://hc-ping.com/@0@\n",
      (SECRET, "-".join(g(f"hc{i}", HEX, n) for i, n in enumerate((8, 4, 4, 4, 12))))),
    c("otlp-headers-honeycomb", "export OTEL_EXPORTER_OTLP_ENDPOINT=https://api.honeycomb.io\n"
      "export OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=@0@\n", (QKEY, g("hny1", ALNUM, 22))),
]

NEGATIVES = {
    "ids-and-digests": IDS_AND_DIGESTS,
    "lockfile-integrity": ("\"node_modules/left-pad\": {\n  \"version\": \"1.3.0\",\n"
                           "  \"integrity\": \"sha512-kJf8Qm2bVxR7tLp3HsN9wZc4YdE6uA1oGiK5rT0yXqWvBn7MjS8fPlD2eC3hUa9Zg4Xk1Rb6Tn0Ys5Wq7Lm8Vp==\"\n}\n"),
    "properties-references-and-prose": ("$ cat application.properties\nspring.datasource.password ${DB_PASSWORD}\n"
                                        "spring.datasource.password must be set in production\n"
                                        "mail.smtp.password ********\n"),
    "pwd-command": "$ pwd\n/srv/app\n$ echo $PWD\n/srv/app\nPWD=/srv/app\nbash: pwd: command not found\n",
    "pwd-volume-and-bypass": "$ docker run -v $PWD:/src -w /src node:20 npm test\nbypass = true\nsurpass: none\n",
    "tf-variables-without-literal": ("variable \"admin_password\" {\n  type      = string\n  sensitive = true\n}\n"
                                     "variable \"github_token\" {\n  description = \"GitHub token used by the provider\"\n"
                                     "  default     = \"\"\n}\nvariable \"db_password\" {\n  default = var.fallback_password\n}\n"),
    "cookies-no-credentials": ("Cookie: .AspNetCore.Culture=c%3Den-US%7Cuic%3Den-US; .AspNetCore.Antiforgery.9fXoN5jHCXs=FAKE\n"
                               "Cookie: wp-settings-time-1=1767225600; wordpress_logged_in_3f9a0c2e=deleted\n"),
    "datadog-docs": ("DD_CLIENT_TOKEN: <CLIENT_TOKEN>\nDD_CLIENT_TOKEN=${DD_CLIENT_TOKEN}\n"
                     "app_key = var.datadog_app_key\napp_key = \"${DATADOG_APP_KEY}\"\n"),
    "provider-prefix-docs": ("Atlas service account secrets start with mdb_sa_sk_ and client ids with mdb_sa_id_.\n"
                             "import { unkey_client_options } from './unkey';\n"),
    "webhook-url-docs": ("POST https://events.pagerduty.com/integration/<integration_key>/enqueue\n"
                         "url: https://oncall-prod-eu-west-0.grafana.net/integrations/v1/alertmanager/{{ .Values.oncallToken }}/\n"),
    "tool-docs-and-references": ("$ cypher-shell --help\n  -p PASSWORD, --password PASSWORD  Password to connect with.\n"
                                 "$ cypher-shell -u neo4j -p \"$NEO4J_PASSWORD\"\n"
                                 "$ cat ~/.erlang.cookie\ncat: /root/.erlang.cookie: No such file or directory\n"
                                 "bob : EAP \"$EAP_PASSWORD\"\n"
                                 "/set irc.server.libera.sasl_password \"${sec.data.libera}\"\n"),
    "installer-output-without-password": ("$ argocd admin initial-password -n argocd\n"
                                          "FATA[0000] secrets \"argocd-initial-admin-secret\" not found\n"
                                          "Password for the elastic user was changed.\nRestart the node.\n"
                                          "$ sudo cat /var/lib/jenkins/secrets/initialAdminPassword\n"
                                          "cat: /var/lib/jenkins/secrets/initialAdminPassword: No such file or directory\n"
                                          "$ grafana cli admin reset-admin-password --password-from-stdin < pw.txt\n"
                                          "rootpw    secret\n"),
    "more-prefix-docs": ("Apify tokens start with apify_api_, Kaggle API tokens with KGAT_, GitLab workspace tokens with glwt-.\n"
                         "curl -fsS https://hc-ping.com/your-uuid-here\n"
                         "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=${HONEYCOMB_API_KEY}\n"
                         "sha a21aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7 and part A21AA-0042\n"),
}


red, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(
    KEY, CASES, NEGATIVES)
