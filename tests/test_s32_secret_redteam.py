"""s32 secrets red team (round 3): credential kinds no earlier sweep planted and common ones in the
places a coding agent meets them (a CLI's config file, a command line, a header, a tool's output), each
in six session shapes: a Claude Code tool_result with its toolUseResult sidecar (JSON-escaped in a
JSONL line), a Codex function_call_output, a file-history backup (a plain file), an SQLite TEXT cell,
a `git diff` adding it (in a Claude tool_result) and a user's prose. The redacted text is asserted
byte for byte: the secret replaced by its keyed token, every other byte kept. Texts that hold no
secret (git SHAs, UUIDs, digests, integrity hashes, ULIDs, Go sums, base64 images, k8s names,
placeholders, near misses of the new rules) come out unchanged in the same shapes.

Values are fake: drawn at import from a seeded RNG (or made of EXAMPLE/FAKE runs), none from a provider."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string

from tests.fx_redteam import Case, redteam_tests

KEY = b"s32-secret-redteam-test-key-0123456789abcdef"

HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
UPNUM = string.ascii_uppercase + string.digits
LOWNUM = string.ascii_lowercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
PW = ALNUM + "!#%*-_.@"


def g(seed: str, alphabet: str, n: int) -> str:
    """n characters of `alphabet` drawn with a RNG seeded by `seed` (the same value on every run),
    with at least two letters and two digits when the alphabet has both (a drawn value reads as one)."""
    rng = random.Random(f"s32:{seed}")
    while True:
        v = "".join(rng.choice(alphabet) for _ in range(n))
        if not any(c.isalpha() for c in alphabet) or not any(c.isdigit() for c in alphabet) or n < 8:
            return v
        if sum(c.isalpha() for c in v) >= 2 and sum(c.isdigit() for c in v) >= 2:
            return v


def uid(seed: str) -> str:
    h = g(seed, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def b64(seed: str, nbytes: int) -> str:
    return base64.b64encode(random.Random(f"s32:{seed}").randbytes(nbytes)).decode()


def c(name: str, template: str, *secrets: tuple[str, str], carriers: tuple[str, ...] | None = None) -> Case:
    return Case(name, template, secrets, carriers or Case.carriers)


CF_TUNNEL = base64.b64encode(json.dumps({"a": g("cft-a", HEX, 32), "t": uid("cft-t"), "s": b64("cft-s", 32)},
                                        separators=(",", ":")).encode()).decode()
PEM_PKCS8_ENC = "\n".join(b64(f"p8-{i}", 48) for i in range(6))


CASES = [
    # --- kinds with a prefix of their own ---------------------------------------------------------
    c("inngest-signing-key", "INNGEST_EVENT_KEY=local\nINNGEST_SIGNING_KEY=@0@\n", ("API_KEY", "signkey-prod-" + g("inngest", HEX, 64))),
    c("inngest-signing-key-bare", "serve({ client, functions, signingKey: process.env.KEY })\n# rotated key: @0@\n",
      ("API_KEY", "signkey-prod-" + g("inngest2", HEX, 64))),
    c("trigger-dev-key-log", "Trigger.dev (3.3.7)\nUsing secret key @0@ for project proj_abcd\n", ("API_KEY", "tr_dev_" + g("trigger", ALNUM, 20))),
    c("stytch-secret-call", 'client = stytch.Client(\n    project_id="project-live-3f9a0c2e",\n    secret="@0@",\n)\n',
      ("SECRET", "secret-live-" + g("stytch", URLSAFE, 36))),
    c("ory-pat-kubectl", "$ kubectl create secret generic ory --from-literal=token=@0@\nsecret/ory created\n", ("API_KEY", "ory_pat_" + g("ory", ALNUM, 32))),
    c("honeybadger-ruby", "Honeybadger.configure do |config|\n  config.api_key = ENV.fetch('HB_KEY', '@0@')\nend\n", ("API_KEY", "hbp_" + g("hb", ALNUM, 30))),
    c("coralogix-helm", "$ helm upgrade --install otel coralogix/otel-integration --set global.privateKey=@0@\n", ("API_KEY", "cxtp_" + g("cx", ALNUM, 30))),
    c("riot-header", 'resp = requests.get(url, headers={"X-Riot-Token": "@0@"})\n', ("API_KEY", "RGAPI-" + uid("riot"))),
    c("infura-url", "networks: {\n  mainnet: { url: 'https://mainnet.infura.io/v3/@0@', accounts },\n}\n", ("SECRET", g("infura", HEX, 32))),
    c("alchemy-url", "ALCHEMY_RPC=https://eth-mainnet.g.alchemy.com/v2/@0@\n", ("SECRET", g("alchemy", URLSAFE, 32))),
    c("cloudflared-tunnel-token", "$ cloudflared tunnel run --token @0@\n2026-03-02T10:11:12Z INF Starting tunnel\n", ("API_KEY", CF_TUNNEL)),
    c("cloudflared-tunnel-token-k8s", "        args:\n        - tunnel\n        - run\n        - --token\n        - @0@\n", ("API_KEY", CF_TUNNEL)),
    c("matrix-token-prose", "the bot logs in with @0@ on matrix.org\n", ("API_KEY", "syt_Ym90_" + g("matrix", ALNUM, 20) + "_" + g("matrix2", ALNUM, 6))),
    c("turnstile-curl", "$ curl -X POST https://challenges.cloudflare.com/turnstile/v0/siteverify -d 'response=XXXX.DUMMY.TOKEN' -d 'secret=@0@'\n",
      ("SECRET", "0x4AAAAAAA" + g("turnstile", URLSAFE, 22))),
    c("akamai-edgerc", "[default]\nclient_secret = @0@\nhost = akab-lx2k3m4n5o6p7q8r-s9t0u1v2w3x4y5z6.luna.akamaiapis.net\naccess_token = @1@\nclient_token = @2@\n",
      ("SECRET", b64("akamai", 33)), ("SECRET", "akab-" + g("ak1", LOWNUM, 16) + "-" + g("ak2", LOWNUM, 16)),
      ("SECRET", "akab-" + g("ak3", LOWNUM, 16) + "-" + g("ak4", LOWNUM, 16))),
    c("exoscale-toml", '[[accounts]]\n  account = "acme"\n  key = "@0@"\n  secret = "@1@"\n  defaultZone = "ch-gva-2"\n',
      ("SECRET", "EXO" + g("exo", HEX, 24)), ("SECRET", g("exo2", URLSAFE, 43))),
    c("mailersend-php", "$mailersend = new MailerSend(['api_key' => '@0@']);\n", ("API_KEY", "mlsn." + g("mlsn", HEX, 64))),
    c("woocommerce-js", 'const api = new WooCommerceRestApi({\n  url: "https://shop.example.com",\n  consumerKey: "@0@",\n  consumerSecret: "@1@",\n});\n',
      ("SECRET", "ck_" + g("wc1", HEX, 40)), ("SECRET", "cs_" + g("wc2", HEX, 40))),
    c("mollie-bare", "mollie profile: acme\nkey in use: @0@\n", ("API_KEY", "live_" + g("mollie", ALNUM, 30))),
    c("statsig-init", 'await Statsig.initialize("@0@", { environment: { tier: "production" } });\n', ("API_KEY", "secret-" + g("statsig", ALNUM, 43))),
    c("unleash-header", "const unleash = initialize({\n  url: 'https://flags.example.com/api/',\n  customHeaders: { Authorization: '*:@0@' },\n});\n",
      ("API_KEY", "production." + g("unleash", HEX, 64))),
    c("qstash-signing-key", "QSTASH_URL=https://qstash.upstash.io\nQSTASH_CURRENT_SIGNING_KEY=@0@\n", ("SECRET", "sig_" + g("qstash", ALNUM, 28))),
    c("appwrite-setkey", "client\n  .setEndpoint('https://cloud.appwrite.io/v1')\n  .setProject('acme')\n  .setKey('@0@');\n",
      ("API_KEY", "standard_" + g("appwrite", HEX, 256))),
    c("modal-token-set", "$ modal token set --token-id @0@ --token-secret @1@ --profile=acme\nToken verified successfully\n",
      ("API_KEY", "ak-" + g("modal1", ALNUM, 22)), ("API_KEY", "as-" + g("modal2", ALNUM, 22))),
    c("modal-toml", '[acme]\ntoken_id = "@0@"\ntoken_secret = "@1@"\nactive = true\n',
      ("API_KEY", "ak-" + g("modal3", ALNUM, 22)), ("API_KEY", "as-" + g("modal4", ALNUM, 22))),
    c("do-spaces-s3cfg", "[default]\naccess_key = @0@\nhost_base = nyc3.digitaloceanspaces.com\nsecret_key = @1@\n",
      ("SECRET", "DO00" + g("dosp", UPNUM, 16)), ("SECRET", g("dosp2", B64, 43))),
    c("azure-appconfig-connstr", 'AZURE_APPCONFIG_CONNECTION_STRING="Endpoint=https://acme.azconfig.io;Id=Ab1c-l0-s0:' + g("azac1", ALNUM, 20) + ';Secret=@0@"\n',
      ("SECRET", b64("azac2", 33))),
    c("huawei-ak-sk", "HUAWEICLOUD_SDK_AK=@0@\nHUAWEICLOUD_SDK_SK=@1@\nHUAWEICLOUD_SDK_REGION=cn-north-4\n",
      ("SECRET", g("hw1", UPNUM, 20)), ("SECRET", g("hw2", ALNUM, 40))),
    c("ovh-conf", "[default]\nendpoint=ovh-eu\n\n[ovh-eu]\napplication_key=" + g("ovh1", ALNUM, 16) + "\napplication_secret=@0@\nconsumer_key=@1@\n",
      ("SECRET", g("ovh2", ALNUM, 32)), ("SECRET", g("ovh3", ALNUM, 32))),
    c("vultr-cli-yaml", "api-key: @0@\noutput: text\n", ("API_KEY", g("vultr", UPNUM, 36))),
    c("linode-cli-ini", "[DEFAULT]\ndefault-user = acme\n\n[acme]\ntoken = @0@\nregion = eu-west\n", ("SECRET", g("linode", HEX, 64))),
    c("hcloud-cli-toml", 'active_context = "prod"\n\n[[contexts]]\n  name = "prod"\n  token = "@0@"\n', ("SECRET", g("hcloud", ALNUM, 64))),
    c("oci-config-passphrase", "[DEFAULT]\nuser=ocid1.user.oc1..aaaaaaaa3f9a0c2e7b14d58a\nfingerprint=3f:9a:0c:2e:7b:14:d5:8a:9c:6e:1f:2a:3b:4c:5d:6e\n"
      "key_file=~/.oci/oci_api_key.pem\npass_phrase=@0@\nregion=eu-frankfurt-1\n", ("PASSWORD", g("oci", PW, 18))),
    c("confluent-api-key-table", "$ confluent api-key create --resource lkc-abc123\n+------------+------------------------------------------------------------------+\n"
      "| API Key    | " + g("cfk1", UPNUM, 16) + "                                                 |\n| API Secret | @0@ |\n"
      "+------------+------------------------------------------------------------------+\n",
      ("SECRET", g("cfk2", B64, 64))),
    c("fal-key-environ", 'os.environ["FAL_KEY"] = "@0@"\n', ("API_KEY", uid("fal") + ":" + g("fal2", HEX, 32))),
    c("runpod-cli-flag", "$ runpodctl config --apiKey @0@\nsaved apiKey into config file\n", ("API_KEY", "rpa_" + g("runpod", UPNUM, 44))),
    c("feishu-webhook", "curl -X POST -H 'Content-Type: application/json' https://open.feishu.cn/open-apis/bot/v2/hook/@0@ -d '{\"msg_type\":\"text\"}'\n",
      ("SECRET", uid("feishu"))),
    c("dingtalk-webhook", "DINGTALK_HOOK=https://oapi.dingtalk.com/robot/send?access_token=@0@\n", ("SECRET", g("dingtalk", HEX, 64))),
    c("wecom-webhook", "webhook: https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=@0@\n", ("API_KEY", uid("wecom"))),
    c("google-chat-webhook", "url = 'https://chat.googleapis.com/v1/spaces/AAAAbCdEfGh/messages?key=@0@&token=@1@'\n",
      ("GOOGLE_API_KEY", "AIzaSy" + g("gchat", URLSAFE, 33)), ("SECRET", g("gchat2", URLSAFE, 43))),
    c("mattermost-webhook", "$ curl -i -X POST -d 'payload={\"text\": \"deploy done\"}' https://chat.example.dev/hooks/@0@\n", ("SECRET", g("mm", LOWNUM, 26))),
    c("ifttt-webhook", "requests.post('https://maker.ifttt.com/trigger/deploy/with/key/@0@')\n", ("SECRET", g("ifttt", URLSAFE, 22))),
    c("make-webhook", "MAKE_HOOK_URL=https://hook.eu1.make.com/@0@\n", ("SECRET", g("make", LOWNUM, 32))),
    c("sumologic-collector-url", "endpoint: https://endpoint4.collection.eu.sumologic.com/receiver/v1/http/@0@\n", ("SECRET", g("sumo", URLSAFE, 96) + "==")),
    c("splunk-hec-header", "$ curl -k https://splunk.example.com:8088/services/collector -H 'Authorization: Splunk @0@' -d '{\"event\": \"hi\"}'\n",
      ("AUTH_TOKEN", uid("splunk"))),
    c("pagerduty-routing-key", '{"routing_key": "@0@", "event_action": "trigger", "payload": {"summary": "disk full"}}\n', ("SECRET", g("pd", HEX, 32))),
    c("microk8s-join", "$ microk8s add-node\nFrom the node you wish to join to this cluster, run the following:\nmicrok8s join 10.0.0.5:25000/@0@/3f9a0c2e7b14\n",
      ("PASSWORD", g("mk8s", HEX, 32))),
    c("consul-acl-bootstrap", "$ consul acl bootstrap\nAccessorID:       " + uid("consul-acc") + "\nSecretID:         @0@\nDescription:      Bootstrap Token (Global Management)\n",
      ("SECRET", uid("consul-sec"))),
    c("nomad-acl-bootstrap", "$ nomad acl bootstrap\nAccessor ID  = " + uid("nomad-acc") + "\nSecret ID    = @0@\nName         = Bootstrap Token\n",
      ("SECRET", uid("nomad-sec"))),
    c("rancher-kubeconfig-token", "users:\n- name: prod\n  user:\n    token: @0@\n", ("SECRET", "kubeconfig-user-" + g("rancher", LOWNUM, 5) + ":" + g("rancher2", LOWNUM, 54))),
    c("add-mask-log", "##[group]Run echo \"::add-mask::$TOKEN\"\n::add-mask::@0@\n##[endgroup]\n", ("SECRET", g("mask", ALNUM, 32))),
    c("jupyter-url-token", "    To access the server, open this file in a browser:\n    Or copy and paste one of these URLs:\n        http://127.0.0.1:8888/lab?token=@0@\n",
      ("SECRET", g("jupyter", HEX, 48))),
    c("jupyter-config-token", "c.ServerApp.token = '@0@'\nc.ServerApp.ip = '0.0.0.0'\n", ("SECRET", g("jupyter2", HEX, 48))),
    c("code-server-config", "bind-addr: 127.0.0.1:8080\nauth: password\npassword: @0@\ncert: false\n", ("PASSWORD", g("codeserver", HEX, 24))),
    c("firebase-rtdb-auth", "$ curl 'https://acme-default-rtdb.firebaseio.com/users.json?auth=@0@'\n", ("SECRET", g("fbauth", ALNUM, 40))),
    c("pkcs8-encrypted-pem", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n@0@-----END ENCRYPTED PRIVATE KEY-----\n", ("PRIVATE_KEY", PEM_PKCS8_ENC + "\n"),
      carriers=("claude", "codex", "sidecar", "sqlite", "prose")),  # in a diff the body's lines carry + markers
    c("pem-in-python-string", 'PRIVATE_KEY = "-----BEGIN PRIVATE KEY-----\\n@0@-----END PRIVATE KEY-----\\n"\n', ("PRIVATE_KEY", b64("pemstr", 96) + "\\n")),
    # --- common kinds in unusual places ---------------------------------------------------------------
    c("haproxy-userlist", "userlist admins\n  user admin insecure-password @0@\n", ("PASSWORD", g("haproxy", PW, 16))),
    c("postfix-sasl-passwd", "[smtp.gmail.com]:587 alerts@example.com:@0@\n", ("PASSWORD", g("postfix", PW, 16))),
    c("muttrc-pass", 'set smtp_url = "smtps://alerts@smtp.example.com"\nset smtp_pass = "@0@"\nset imap_pass = "@1@"\n',
      ("PASSWORD", g("mutt1", PW, 16)), ("PASSWORD", g("mutt2", PW, 16))),
    c("msmtprc", "account default\nhost smtp.example.com\npassword @0@\n", ("NETRC_PASSWORD", g("msmtp", PW, 16))),
    c("fetchmailrc", 'poll imap.example.com proto IMAP user "alerts" password "@0@" ssl\n', ("PASSWORD", g("fetchmail", PW, 14))),
    c("wireguard-psk", "[Peer]\nPublicKey = " + b64("wgpub", 32) + "\nPresharedKey = @0@\nAllowedIPs = 10.0.0.2/32\n", ("WIREGUARD_KEY", b64("wgpsk", 32))),
    c("ipsec-psk", "# /etc/ipsec.secrets\n203.0.113.5 198.51.100.7 : PSK \"@0@\"\n", ("PASSWORD", g("ipsec", PW, 20))),
    c("redis-config-set", "127.0.0.1:6379> CONFIG SET requirepass \"@0@\"\nOK\n", ("DB_PASSWORD", g("redisset", PW, 18))),
    c("redis-masterauth", "replicaof 10.0.0.5 6379\nmasterauth @0@\n", ("DB_PASSWORD", g("masterauth", PW, 18))),
    c("postgres-create-role", "postgres=# CREATE ROLE app WITH LOGIN PASSWORD '@0@';\nCREATE ROLE\n", ("PASSWORD", g("pgrole", PW, 16))),
    c("postgres-alter-user", "ALTER USER reporting WITH ENCRYPTED PASSWORD '@0@';\n", ("PASSWORD", g("pgalter", PW, 16))),
    c("libpq-keyword-dsn", '$ psql "host=db.example.com port=5432 dbname=app user=app password=@0@ sslmode=require"\n', ("PASSWORD", g("libpq", PW, 16))),
    c("dotnet-connstr-json", '{\n  "ConnectionStrings": {\n    "Default": "Server=tcp:acme.database.windows.net,1433;Database=app;User ID=app;Password=@0@"\n  }\n}\n',
      ("PASSWORD", g("dotnet", PW, 16))),
    c("sqlplus-login", "$ sqlplus scott/@0@@//db.example.com:1521/ORCLPDB1\nSQL*Plus: Release 21.0.0.0.0\n", ("PASSWORD", g("sqlplus", ALNUM, 14))),
    c("sqlcmd-P", "$ sqlcmd -S localhost -U sa -P '@0@' -Q 'SELECT 1'\n", ("PASSWORD", g("sqlcmd", PW, 16))),
    c("rabbitmqctl-add-user", "$ rabbitmqctl add_user deploy @0@\nAdding user \"deploy\" ...\n", ("PASSWORD", g("rabbit", ALNUM, 18))),
    c("openssl-passout", "$ openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:@0@\n", ("PASSWORD", g("p12", PW, 16))),
    c("keytool-storepass", "$ keytool -importcert -alias ca -file ca.pem -keystore truststore.jks -storepass @0@ -noprompt\n", ("PASSWORD", g("keytool", PW, 16))),
    c("7z-password", "$ 7z a -p@0@ -mhe=on backup.7z ./secrets\n", ("PASSWORD", g("7z", ALNUM, 16))),
    c("unzip-P", "$ unzip -P @0@ export.zip\nArchive:  export.zip\n", ("PASSWORD", g("unzip", ALNUM, 16))),
    c("gpg-passphrase", "$ gpg --batch --pinentry-mode loopback --passphrase '@0@' -d secrets.gpg\n", ("PASSWORD", g("gpg", PW, 18))),
    c("ssh-keygen-N", "$ ssh-keygen -t ed25519 -N '@0@' -f ~/.ssh/deploy\n", ("PASSWORD", g("sshkg", PW, 16))),
    c("curl-proxy-user", "$ curl --proxy http://proxy.example.com:3128 --proxy-user bob:@0@ https://example.org\n", ("PASSWORD", g("proxyuser", ALNUM, 16))),
    c("wget-password", "$ wget --user=deploy --password=@0@ https://files.example.com/build.tgz\n", ("PASSWORD", g("wget", ALNUM, 16))),
    c("cmdkey-pass", "C:\\> cmdkey /add:fileserver /user:ACME\\svc /pass:@0@\nCMDKEY: Credential added successfully.\n", ("PASSWORD", g("cmdkey", PW, 16))),
    c("net-use-password", "C:\\> net use Z: \\\\fileserver\\share @0@ /user:ACME\\svc\nThe command completed successfully.\n", ("PASSWORD", g("netuse", ALNUM, 16))),
    c("psexec-p", "C:\\> psexec \\\\web01 -u ACME\\admin -p @0@ cmd /c ipconfig\n", ("PASSWORD", g("psexec", ALNUM, 16))),
    c("setx-secret", "C:\\> setx OPENAI_KEY @0@\nSUCCESS: Specified value was saved.\n", ("PASSWORD", g("setx", ALNUM, 40))),
    c("cmd-set-quoted", 'C:\\app> set "API_SECRET=@0@"\nC:\\app> node server.js\n', ("SECRET", g("cmdset", ALNUM, 32))),
    c("powershell-env", '$env:AZURE_CLIENT_SECRET = "@0@"\n$env:AZURE_TENANT_ID = "' + uid("ps-tenant") + '"\n', ("SECRET", g("psenv", PW, 34))),
    c("powershell-setenv", '[Environment]::SetEnvironmentVariable("SNOWFLAKE_PASSWORD", "@0@", "User")\n', ("SECRET", g("pssetenv", PW, 16))),
    c("docker-inspect-env", '        "Env": [\n            "POSTGRES_PASSWORD=@0@",\n            "API_TOKEN=@1@",\n            "PATH=/usr/local/bin:/usr/bin"\n        ],\n',
      ("PASSWORD", g("dinsp", ALNUM, 16)), ("SECRET", g("dinsp2", ALNUM, 32))),
    c("heroku-config-output", "=== acme-api Config Vars\nDATABASE_URL:    postgres://u:@0@@ec2-1-2-3-4.compute-1.amazonaws.com:5432/d1\nSECRET_KEY_BASE: @1@\n",
      ("DB_PASSWORD", g("herokupg", LOWNUM, 64)), ("SECRET", g("herokuskb", HEX, 128))),
    c("kubectl-from-literal", "$ kubectl create secret generic db --from-literal=username=app --from-literal=password=@0@\nsecret/db created\n",
      ("PASSWORD", g("kfl", PW, 16))),
    c("kubectl-docker-registry", "$ kubectl create secret docker-registry regcred --docker-server=ghcr.io --docker-username=bot --docker-password=@0@\n",
      ("PASSWORD", g("kdr", ALNUM, 24))),
    c("az-login-sp", "$ az login --service-principal -u " + uid("az-app") + " -p @0@ --tenant " + uid("az-tenant") + "\n",
      ("PASSWORD", g("azsp", PW, 34))),
    c("vault-login-userpass", "$ vault login -method=userpass username=ops password=@0@\nSuccess! You are now authenticated.\n", ("PASSWORD", g("vaultup", PW, 16))),
    c("mc-alias-set", "$ mc alias set minio http://localhost:9000 admin @0@\nAdded `minio` successfully.\n", ("PASSWORD", g("mc", ALNUM, 32))),
    c("poetry-http-basic", "$ poetry config http-basic.acme deploy @0@\n", ("PASSWORD", g("poetry", ALNUM, 20))),
    c("aws-secretsmanager-string", '{\n    "Name": "prod/db",\n    "SecretString": "{\\"username\\":\\"admin\\",\\"password\\":\\"@0@\\"}",\n    "VersionStages": ["AWSCURRENT"]\n}\n',
      ("PASSWORD", g("asm", ALNUM, 20))),
    c("tfstate-sensitive-output", '  "outputs": {\n    "db_password": {\n      "value": "@0@",\n      "type": "string",\n      "sensitive": true\n    }\n  },\n',
      ("SECRET", g("tfout", PW, 20))),
    c("ansible-inventory-pass", "[web]\nweb01 ansible_host=10.0.0.5 ansible_user=deploy ansible_ssh_pass=@0@ ansible_become_pass=@1@\n",
      ("PASSWORD", g("ans1", ALNUM, 14)), ("PASSWORD", g("ans2", ALNUM, 14))),
    c("composer-auth-bearer", '{\n  "bearer": {\n    "repo.example.org": "@0@"\n  },\n  "http-basic": {\n    "repo.packagist.com": {"username": "token", "password": "@1@"}\n  }\n}\n',
      # parsed, the token sits under its host's name, read under its parent's (`bearer`) since s33
      ("SECRET", g("composer", ALNUM, 40)), ("PASSWORD", g("composer2", ALNUM, 40))),
    c("nuget-cleartext", '<packageSourceCredentials>\n  <acme>\n    <add key="Username" value="bot" />\n    <add key="ClearTextPassword" value="@0@" />\n  </acme>\n</packageSourceCredentials>\n',
      ("SECRET", g("nuget", ALNUM, 24))),
    c("gradle-properties", "ossrhUsername=acme\nossrhPassword=@0@\nsigning.keyId=24875D73\nsigning.password=@1@\n",
      ("PASSWORD", g("gradle1", PW, 16)), ("PASSWORD", g("gradle2", PW, 16))),
    c("pip-extra-index-url", "[global]\nextra-index-url = https://deploy:@0@@nexus.example.com/repository/pypi/simple\n", ("URL_PASSWORD", g("pipconf", ALNUM, 20))),
    c("git-credentials-store", "https://ci-bot:@0@@git.example.com\n", ("URL_PASSWORD", g("gitcred", ALNUM, 20))),
    c("docker-identitytoken", '{\n  "auths": {\n    "acme.azurecr.io": {\n      "identitytoken": "@0@"\n    }\n  }\n}\n', ("SECRET", g("idtok", URLSAFE, 48))),
    c("apim-subscription-key", "$ curl -H 'Ocp-Apim-Subscription-Key: @0@' https://acme.azure-api.net/orders\n", ("API_KEY", g("apim", HEX, 32))),
    c("rapidapi-key", "headers = {\n    'X-RapidAPI-Key': '@0@',\n    'X-RapidAPI-Host': 'weatherapi.p.rapidapi.com'\n}\n", ("API_KEY", g("rapid", ALNUM, 50))),
    c("proxy-authorization-basic", "> GET http://example.org/ HTTP/1.1\n> Proxy-Authorization: Basic @0@\n", ("BASIC_AUTH", base64.b64encode(b"bob:" + g("pab", ALNUM, 16).encode()).decode())),
    c("express-session-cookie", "> Cookie: connect.sid=@0@\n", ("SESSION_COOKIE", "s%3A" + g("csid", URLSAFE, 32) + "." + g("csid2", ALNUM, 43))),
    c("phpsessid-cookie", "$ curl -b 'PHPSESSID=@0@' https://example.com/admin\n", ("SESSION_COOKIE", g("phpsess", LOWNUM, 26))),
    c("nextauth-session-cookie", "document.cookie\n'__Secure-next-auth.session-token=@0@; theme=dark'\n", ("SECRET", g("nextauth", URLSAFE, 120))),
    c("firebase-functions-config", "$ firebase functions:config:set mailer.secret=\"@0@\" mailer.host=smtp.example.com\n", ("SECRET", g("fbcfg", ALNUM, 32))),
    c("fly-secrets-set", "$ fly secrets set SESSION_SECRET=@0@ -a acme-api\nUpdating existing machines\n", ("SECRET", g("flysec", HEX, 64))),
    c("heroku-config-set", "$ heroku config:set API_TOKEN=@0@ -a acme-api\nSetting API_TOKEN and restarting acme-api... done\n", ("SECRET", g("herokuset", ALNUM, 32))),
    c("flask-secret-bytes", "app = Flask(__name__)\napp.secret_key = b'@0@'\n", ("SECRET", g("flask", ALNUM, 32))),
    c("go-jwt-secret-bytes", 'var jwtSecret = []byte("@0@")\n', ("SECRET", g("gojwt", ALNUM, 32))),
    c("secrets-token-urlsafe", "$ python3 -c 'import secrets; print(secrets.token_urlsafe(32))'\n@0@\n", ("SECRET", g("tokurl", URLSAFE, 43))),
    c("openssl-rand-base64", "$ openssl rand -base64 32\n@0@\n", ("SECRET", b64("osslrand", 32))),
    c("rails-secret", "$ bin/rails secret\n@0@\n", ("SECRET", g("railssec", HEX, 128))),
    c("secret-quoted-15", 'jwt:\n  secret: "@0@"\n', ("SECRET", g("sq15", PW, 15))),
    c("password-quoted-15", 'db:\n  password: "@0@"\n', ("PASSWORD", g("pq15", PW, 15))),
    c("password-quoted-11-json", '{"user": "svc", "password": "@0@"}\n', ("PASSWORD", g("pq11", ALNUM, 11))),
    c("percy-token-yaml", "env:\n  PERCY_TOKEN: @0@\n", ("SECRET", "web_" + g("percy", HEX, 64))),
    # in a diff too: the table pass reads a row's +/- mark as a space (s33)
    c("markdown-table-password", "| Service | User | Password |\n|---|---|---|\n| staging db | app | @0@ |\n", ("PASSWORD", g("mdpw", PW, 16))),
    c("gh-actions-log-env", "2026-03-02T10:11:12.0000000Z   DEPLOY_KEY: @0@\n2026-03-02T10:11:12.0000000Z   NODE_ENV: production\n",
      ("SECRET", g("ghalog", ALNUM, 40))),
    c("keycloak-json-credentials", '{\n  "realm": "acme",\n  "resource": "api",\n  "credentials": {\n    "secret": "@0@"\n  }\n}\n', ("SECRET", g("keycloak", ALNUM, 32))),
    c("spring-client-secret", "spring.security.oauth2.client.registration.auth0.client-id=abc\nspring.security.oauth2.client.registration.auth0.client-secret=@0@\n",
      ("SECRET", g("springcs", URLSAFE, 64))),
    c("pgpassword-env-cmd", "$ PGPASSWORD=@0@ psql -h ep-cool-darkness-123456.us-east-2.aws.neon.tech neondb\n", ("PASSWORD", "npg_" + g("npg", ALNUM, 12))),
    c("db-url-clickhouse", "CLICKHOUSE_URL=clickhouse://default:@0@@ch.example.com:9440/analytics?secure=true\n", ("DB_PASSWORD", g("chpw", ALNUM, 18))),
    c("db-url-neo4j", "uri = 'neo4j+s://neo4j:@0@@3f9a0c2e.databases.neo4j.io'\n", ("DB_PASSWORD", g("neo4j", URLSAFE, 43))),
    c("db-url-amqps", "broker_url = 'amqps://worker:@0@@rabbit.example.com:5671/vhost'\n", ("DB_PASSWORD", g("amqps", ALNUM, 20))),
    c("db-url-snowflake", "engine = create_engine('snowflake://svc_etl:@0@@acme-xy12345/analytics/public?warehouse=wh')\n", ("DB_PASSWORD", g("sfurl", ALNUM, 18))),
    c("db-url-mssql-pyodbc", "DATABASE_URL=mssql+pyodbc://sa:@0@@sql.example.com:1433/app?driver=ODBC+Driver+18\n", ("DB_PASSWORD", g("mssqlurl", ALNUM, 18))),
    c("db-url-nats", "nats sub -s nats://svc:@0@@nats.example.com:4222 'orders.>'\n", ("DB_PASSWORD", g("natsurl", ALNUM, 18))),
    c("sqlite-stored-stripe", "stripe_key=@0@\n", ("STRIPE_SECRET_KEY", "sk_live_" + g("stripe-sq", ALNUM, 99))),
]

NEGATIVES = {
    "git-and-digests": (f"commit {hashlib.sha1(b's32').hexdigest()}\nMerge: 4b825dc 9fceb02\n"
                        f"sha256:{hashlib.sha256(b's32').hexdigest()}\nsha512-{base64.b64encode(hashlib.sha512(b'x').digest()).decode()}\n"),
    "uuids-and-ulids": "request 5b0e1c9a-3f52-4f7e-9a51-2d7c0d7c9e10 took 12ms\ncreated 01HZX3K5QG7V8M2N4P6R9T1W3Y\n",
    "go-sum": "github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=\ngithub.com/google/uuid v1.6.0/go.mod h1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo=\n",
    "lockfile-hashes": ('[[package]]\nname = "requests"\nversion = "2.32.3"\nfiles = [\n    {file = "requests-2.32.3-py3-none-any.whl", '
                        f'hash = "sha256:{hashlib.sha256(b"req").hexdigest()}"}},\n]\n'),
    "k8s-names": "NAME                                READY   STATUS\napi-7d9f8c6b5d-x2k4p                1/1     Running\nsecret/db-credentials-5t9hk2m8cf   Opaque  2\n",
    "placeholders": ("API_KEY=your-api-key-here\nSECRET=xxx\nTOKEN=<TOKEN>\nPASSWORD=${DB_PASSWORD}\n"
                     "client_secret: \"<your client secret>\"\npassword: \"changeme\"\n"),
    "png-data-uri": "<img src=\"data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + hashlib.sha512(b"img").digest() * 3).decode() + "\">\n",
    "near-misses": ("signkey-prod- is the prefix of Inngest's signing keys\n"
                    "the cache key is 9e107d9d372bb6826bd81d3542a419d6e277d4d731479571562b82f74494341f\n"
                    "see https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot\n"
                    "::add-mask::$TOKEN\n::add-mask::${{ secrets.NPM_TOKEN }}\n"
                    "jupyter lab --ServerApp.token=''\n"
                    "http://127.0.0.1:8888/lab?token=...\n"
                    "SecretID: <hidden>\n"
                    "The key fingerprint is SHA256:" + base64.b64encode(hashlib.sha256(b"k").digest()).decode().rstrip("=") + "\n"
                    "user admin insecure-password ${HAPROXY_PW}\n"),
}


red, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(
    KEY, CASES, NEGATIVES)
