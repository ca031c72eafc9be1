"""Generator of secrets and people as coding-agent sessions hold them (s11 outside-in leak audit).

Written from the providers' public formats and the gitleaks / detect-secrets token families,
before reading the rule packs. Every value is made here from a seeded RNG; `samples(seed)` gives
(family, text, values) where each value must be gone from the redacted text.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from typing import Callable
from tests.fx_redact import luhn_complete

AL = string.ascii_letters + string.digits
LO = string.ascii_lowercase + string.digits
UP = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = AL + "+/"
URLSAFE = AL + "-_"
BECH = "023456789ACDEFGHJKLMNPQRSTUVWXYZ"

Sample = tuple[str, str, list[str]]


class Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def s(self, alphabet: str, n: int) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def mixed(self, n: int, alphabet: str = AL) -> str:
        """Random but with at least one upper, lower and digit (real tokens look like that)."""
        while True:
            v = self.s(alphabet, n)
            if all(any(c in cls for c in v) for cls in (string.ascii_uppercase, string.ascii_lowercase, string.digits)
                   if any(c in cls for c in alphabet)):
                return v

    def b64(self, nbytes: int) -> str:
        return base64.b64encode(self.r.randbytes(nbytes)).decode()

    def b64url(self, nbytes: int) -> str:
        return base64.urlsafe_b64encode(self.r.randbytes(nbytes)).decode().rstrip("=")

    def pem_body(self, nbytes: int = 900, width: int = 64) -> list[str]:
        body = self.b64(nbytes)
        return [body[i:i + width] for i in range(0, len(body), width)]

    def pem(self, kind: str, nbytes: int = 900) -> tuple[str, list[str]]:
        lines = self.pem_body(nbytes)
        return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----\n", lines

    def jwt(self, claims: dict | None = None) -> str:
        h = base64.urlsafe_b64encode(b'{"alg":"RS256","typ":"JWT","kid":"' + self.s(AL, 20).encode() + b'"}').decode().rstrip("=")
        c = claims or {"sub": "system:serviceaccount:default:deployer", "iat": 1732000000, "exp": 1763536000,
                       "iss": "https://kubernetes.default.svc.cluster.local", "jti": str(uuid.UUID(int=self.r.getrandbits(128)))}
        p = base64.urlsafe_b64encode(json.dumps(c, separators=(",", ":")).encode()).decode().rstrip("=")
        return f"{h}.{p}.{self.b64url(256)}"

    def luhn(self, prefix: str, n: int) -> str:
        return luhn_complete(prefix + self.s("0123456789", n - len(prefix) - 1))

    def iban(self, country: str, bban: str) -> str:
        conv = "".join(str(int(c, 36)) for c in (bban + country + "00"))
        check = 98 - int(conv) % 97
        return f"{country}{check:02d}{bban}"


def _group(v: str, n: int = 4, sep: str = " ") -> str:
    return sep.join(v[i:i + n] for i in range(0, len(v), n))


def samples(seed: int = 11) -> list[Sample]:  # noqa: C901, PLR0915
    g = Gen(seed)
    out: list[Sample] = []

    def add(family: str, text: str, *values: str) -> None:
        out.append((family, text, list(values)))

    # ---- cloud providers
    akid = "AKIA" + g.s(UP.replace("0", "").replace("1", ""), 16)
    asid = "ASIA" + g.s(UP.replace("0", "").replace("1", ""), 16)
    aws_sec = g.s(AL + "+/", 40)
    aws_sess = "IQoJb3JpZ2luX2VjE" + g.s(AL + "+/", 300)
    add("aws-env", f"$ env | grep AWS\nAWS_ACCESS_KEY_ID={akid}\nAWS_SECRET_ACCESS_KEY={aws_sec}\nAWS_DEFAULT_REGION=eu-west-3\n", akid, aws_sec)
    add("aws-sts-env", f"export AWS_ACCESS_KEY_ID={asid}\nexport AWS_SECRET_ACCESS_KEY={aws_sec}\nexport AWS_SESSION_TOKEN={aws_sess}\n", asid, aws_sec, aws_sess)
    add("aws-credentials-ini", f"$ cat ~/.aws/credentials\n[default]\naws_access_key_id = {akid}\naws_secret_access_key = {aws_sec}\n\n[prod]\naws_access_key_id={asid}\naws_secret_access_key={aws_sec[::-1]}\naws_session_token={aws_sess}\n", akid, aws_sec, asid, aws_sec[::-1], aws_sess)
    add("aws-sts-json", json.dumps({"Credentials": {"AccessKeyId": asid, "SecretAccessKey": aws_sec, "SessionToken": aws_sess, "Expiration": "2026-11-30T12:00:00+00:00"}}, indent=4), asid, aws_sec, aws_sess)
    add("aws-code-py", f"s3 = boto3.client('s3', aws_access_key_id='{akid}', aws_secret_access_key='{aws_sec}')\n", akid, aws_sec)
    add("aws-secret-bare-prose", f"the key pair is {akid} / {aws_sec}\n", akid, aws_sec)

    gcp_key = "AIza" + g.s(URLSAFE, 35)
    sa_pem, sa_lines = g.pem("PRIVATE KEY", 1200)
    sa = {"type": "service_account", "project_id": "acme-prod-4821", "private_key_id": g.s(HEX, 40),
          "private_key": sa_pem, "client_email": "deployer@acme-prod-4821.iam.gserviceaccount.com",
          "client_id": g.s("0123456789", 21), "auth_uri": "https://accounts.google.com/o/oauth2/auth",
          "token_uri": "https://oauth2.googleapis.com/token"}
    add("gcp-sa-json", "$ cat key.json\n" + json.dumps(sa, indent=2), sa["private_key_id"], sa_lines[3], sa_lines[10])
    add("gcp-api-key", f"const firebaseConfig = {{\n  apiKey: \"{gcp_key}\",\n  authDomain: \"acme.firebaseapp.com\",\n}};\n", gcp_key)
    add("gcp-api-key-url", f"curl 'https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={gcp_key}'\n", gcp_key)
    gocspx = "GOCSPX-" + g.s(URLSAFE, 28)
    add("gcp-oauth-client-secret", json.dumps({"installed": {"client_id": g.s("0123456789", 12) + "-" + g.s(LO, 32) + ".apps.googleusercontent.com", "client_secret": gocspx}}), gocspx)
    ya29 = "ya29.a0" + g.s(URLSAFE, 150)
    add("gcp-oauth-access-token", f"$ gcloud auth print-access-token\n{ya29}\n", ya29)
    g1 = "1//0" + g.s(URLSAFE, 99)
    add("gcp-refresh-token", json.dumps({"client_id": "x.apps.googleusercontent.com", "refresh_token": g1, "type": "authorized_user"}), g1)

    az_key = g.b64(64)
    add("azure-storage-connstr", f"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeprodstore;AccountKey={az_key};EndpointSuffix=core.windows.net\n", az_key)
    add("azure-storage-key-cli", f"$ az storage account keys list -n acmeprodstore\n[\n  {{\n    \"creationTime\": \"2026-01-01T00:00:00+00:00\",\n    \"keyName\": \"key1\",\n    \"permissions\": \"FULL\",\n    \"value\": \"{az_key}\"\n  }}\n]\n", az_key)
    sas_sig = g.b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    add("azure-sas-url", f"azcopy copy ./dist 'https://acmeprodstore.blob.core.windows.net/web?sv=2022-11-02&ss=b&srt=sco&sp=rwdlac&se=2026-12-31T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig={sas_sig}' --recursive\n", sas_sig)
    az_cs = g.s(AL, 3) + "8Q~" + g.s(URLSAFE + "~.", 34)
    add("azure-client-secret", f"$ az ad sp create-for-rbac --name ci\n{{\n  \"appId\": \"{uuid.UUID(int=g.r.getrandbits(128))}\",\n  \"displayName\": \"ci\",\n  \"password\": \"{az_cs}\",\n  \"tenant\": \"{uuid.UUID(int=g.r.getrandbits(128))}\"\n}}\n", az_cs)
    sb_key = g.b64(32)
    add("azure-servicebus-connstr", f"\"ServiceBus\": \"Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={sb_key}\"\n", sb_key)
    cosmos = g.b64(64)
    add("azure-cosmos-connstr", f"COSMOS=AccountEndpoint=https://acme.documents.azure.com:443/;AccountKey={cosmos};\n", cosmos)

    # ---- code hosting
    for pfx in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"):
        tok = pfx + g.mixed(36)
        add(f"github-{pfx[:-1]}", f"GITHUB_TOKEN={tok}\n", tok)
    pat = "github_pat_11" + g.s(UP, 20) + "_" + g.mixed(59)
    add("github-fine-grained", f"$ gh auth status --show-token\ngithub.com\n  ✓ Logged in to github.com account zelda (keyring)\n  - Active account: true\n  - Git operations protocol: https\n  - Token: {pat}\n  - Token scopes: 'gist', 'read:org', 'repo'\n", pat)
    ghp = "ghp_" + g.mixed(36)
    add("git-remote-token", f"$ git remote -v\norigin\thttps://zelda:{ghp}@github.com/acme/api.git (fetch)\norigin\thttps://zelda:{ghp}@github.com/acme/api.git (push)\n", ghp)
    add("gh-hosts-yml", f"$ cat ~/.config/gh/hosts.yml\ngithub.com:\n    users:\n        zelda:\n            oauth_token: {ghp}\n    git_protocol: https\n    oauth_token: {ghp}\n    user: zelda\n", ghp)
    glpat = "glpat-" + g.mixed(20, URLSAFE)
    add("gitlab-pat", f"git clone https://oauth2:{glpat}@gitlab.com/acme/infra.git\n", glpat)
    glpat2 = "glpat-" + g.mixed(36, URLSAFE) + "." + g.s(LO, 2) + "." + g.s(LO, 9)
    add("gitlab-pat-new", f"GITLAB_TOKEN={glpat2}\n", glpat2)
    gldt = "gldt-" + g.mixed(20, URLSAFE)
    add("gitlab-deploy-token", f"docker login registry.gitlab.com -u gitlab+deploy-token-12 -p {gldt}\n", gldt)
    glrt = "glrt-" + g.mixed(20, URLSAFE)
    add("gitlab-runner-token", f"[[runners]]\n  name = \"ci-1\"\n  url = \"https://gitlab.com/\"\n  token = \"{glrt}\"\n  executor = \"docker\"\n", glrt)
    add("gitlab-ci-job-token", f"$ curl --header \"JOB-TOKEN: $CI_JOB_TOKEN\" ...\n+ export CI_JOB_TOKEN=glcbt-64_{g.mixed(20, URLSAFE)}\n", "glcbt-64_")
    bb = "ATBB" + g.mixed(32)
    add("bitbucket-app-password", f"BITBUCKET_APP_PASSWORD={bb}\n", bb)

    # ---- chat
    xoxb = f"xoxb-{g.s('0123456789', 12)}-{g.s('0123456789', 13)}-{g.mixed(24)}"
    xoxp = f"xoxp-{g.s('0123456789', 12)}-{g.s('0123456789', 12)}-{g.s('0123456789', 13)}-{g.s(HEX, 32)}"
    xapp = f"xapp-1-A{g.s(UP, 10)}-{g.s('0123456789', 13)}-{g.s(HEX, 64)}"
    add("slack-bot", f"SLACK_BOT_TOKEN={xoxb}\n", xoxb)
    add("slack-user", f"slack = WebClient(token=\"{xoxp}\")\n", xoxp)
    add("slack-app", f"SLACK_APP_TOKEN={xapp}\n", xapp)
    hook = f"https://hooks.slack.com/services/T{g.s(UP, 8)}/B{g.s(UP, 10)}/{g.mixed(24)}"
    add("slack-webhook", f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy ok\"}}' {hook}\n", hook.rsplit("/", 1)[1])
    dsc_id = str(g.r.randint(10**17, 10**18))
    discord = base64.b64encode(dsc_id.encode()).decode().rstrip("=") + "." + g.s(URLSAFE, 6) + "." + g.s(URLSAFE, 38)
    add("discord-bot-token", f"client.login('{discord}');\n", discord)
    dhook = f"https://discord.com/api/webhooks/{dsc_id}/{g.s(URLSAFE, 68)}"
    add("discord-webhook", f"DISCORD_WEBHOOK_URL={dhook}\n", dhook.rsplit("/", 1)[1])
    tg = f"{g.r.randint(10**9, 8 * 10**9)}:AA{g.s(URLSAFE, 33)}"
    add("telegram-bot", f"TELEGRAM_BOT_TOKEN={tg}\n", tg)
    teams = f"https://acme.webhook.office.com/webhookb2/{uuid.UUID(int=g.r.getrandbits(128))}@{uuid.UUID(int=g.r.getrandbits(128))}/IncomingWebhook/{g.s(HEX, 32)}/{uuid.UUID(int=g.r.getrandbits(128))}/V2{g.s(URLSAFE, 43)}"
    add("teams-webhook", f"TEAMS_WEBHOOK={teams}\n", teams.split("/IncomingWebhook/")[1][:32])

    # ---- payments
    sk = "sk_live_" + g.mixed(99)
    add("stripe-secret", f"Stripe.api_key = \"{sk}\"\n", sk)
    sk_short = "sk_live_" + g.mixed(24)
    add("stripe-secret-short", f"STRIPE_SECRET_KEY={sk_short}\n", sk_short)
    rk = "rk_live_" + g.mixed(99)
    add("stripe-restricted", f"STRIPE_RESTRICTED={rk}\n", rk)
    whsec = "whsec_" + g.mixed(32)
    add("stripe-webhook", f"$ stripe listen --forward-to localhost:4242/webhook\n> Ready! Your webhook signing secret is {whsec} (^C to quit)\n", whsec)
    sq_at = "EAAA" + g.s(URLSAFE, 60)
    add("square-access", f"SQUARE_ACCESS_TOKEN={sq_at}\n", sq_at)
    sq0 = "sq0csp-" + g.s(URLSAFE, 43)
    add("square-oauth-secret", f"square_secret = '{sq0}'\n", sq0)
    bt = f"access_token$production${g.s(LO, 16)}${g.s(HEX, 32)}"
    add("braintree", f"BRAINTREE_ACCESS_TOKEN={bt}\n", bt)
    pp_secret = "E" + g.s(URLSAFE, 79)
    add("paypal-client-secret", f"PAYPAL_CLIENT_ID=A{g.s(URLSAFE, 79)}\nPAYPAL_CLIENT_SECRET={pp_secret}\n", pp_secret)
    shp = "shpat_" + g.s(HEX, 32)
    add("shopify-access", f"X-Shopify-Access-Token: {shp}\n", shp)
    shpss = "shpss_" + g.s(HEX, 32)
    add("shopify-shared-secret", f"SHOPIFY_API_SECRET={shpss}\n", shpss)

    # ---- messaging / email
    tw_sid = "AC" + g.s(HEX, 32)
    tw_tok = g.s(HEX, 32)
    add("twilio", f"TWILIO_ACCOUNT_SID={tw_sid}\nTWILIO_AUTH_TOKEN={tw_tok}\n", tw_tok)
    tw_sk = "SK" + g.s(HEX, 32)
    add("twilio-api-key", f"client = Client('{tw_sk}', '{g.s(AL, 32)}', '{tw_sid}')\n", tw_sk)
    add("twilio-curl", f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/{tw_sid}/Messages.json -u {tw_sid}:{tw_tok}\n", tw_tok)
    sg = "SG." + g.s(URLSAFE, 22) + "." + g.s(URLSAFE, 43)
    add("sendgrid", f"SENDGRID_API_KEY={sg}\n", sg)
    mg = "key-" + g.s(HEX, 32)
    add("mailgun", f"MAILGUN_API_KEY={mg}\n", mg)
    mg2 = g.s(HEX, 32) + "-" + g.s(HEX, 8) + "-" + g.s(HEX, 8)
    add("mailgun-new", f"MAILGUN_API_KEY={mg2}\n", mg2)
    mc = g.s(HEX, 32) + "-us21"
    add("mailchimp", f"MAILCHIMP_API_KEY={mc}\n", mc)
    pm = str(uuid.UUID(int=g.r.getrandbits(128)))
    add("postmark", f"X-Postmark-Server-Token: {pm}\n", pm)

    # ---- AI providers
    oa = "sk-proj-" + g.mixed(74, URLSAFE) + "T3BlbkFJ" + g.mixed(74, URLSAFE)
    add("openai-proj", f"OPENAI_API_KEY={oa}\n", oa)
    oa_old = "sk-" + g.mixed(20) + "T3BlbkFJ" + g.mixed(20)
    add("openai-legacy", f"openai.api_key = \"{oa_old}\"\n", oa_old)
    oa_svc = "sk-svcacct-" + g.mixed(74, URLSAFE) + "T3BlbkFJ" + g.mixed(74, URLSAFE)
    add("openai-svcacct", f"client = OpenAI(api_key=\"{oa_svc}\")\n", oa_svc)
    ant = "sk-ant-api03-" + g.mixed(93, URLSAFE) + "AA"
    add("anthropic", f"ANTHROPIC_API_KEY={ant}\n", ant)
    ant_admin = "sk-ant-admin01-" + g.mixed(93, URLSAFE) + "AA"
    add("anthropic-admin", f"curl https://api.anthropic.com/v1/organizations/users -H \"x-api-key: {ant_admin}\"\n", ant_admin)
    ant_oat = "sk-ant-oat01-" + g.mixed(93, URLSAFE) + "AA"
    add("anthropic-oauth", json.dumps({"claudeAiOauth": {"accessToken": ant_oat, "refreshToken": "sk-ant-ort01-" + g.mixed(93, URLSAFE) + "AA", "expiresAt": 1764500000000}}), ant_oat)
    hf = "hf_" + g.mixed(34, string.ascii_letters)
    add("huggingface", f"$ huggingface-cli login --token {hf}\n", hf)
    gsk = "gsk_" + g.mixed(52)
    add("groq", f"GROQ_API_KEY={gsk}\n", gsk)
    r8 = "r8_" + g.mixed(37)
    add("replicate", f"REPLICATE_API_TOKEN={r8}\n", r8)
    pplx = "pplx-" + g.mixed(48)
    add("perplexity", f"PERPLEXITY_API_KEY={pplx}\n", pplx)
    ds = "sk-" + g.s(HEX, 32)
    add("deepseek", f"DEEPSEEK_API_KEY={ds}\n", ds)
    xai = "xai-" + g.mixed(80)
    add("xai", f"XAI_API_KEY={xai}\n", xai)
    mistral = g.mixed(32)
    add("mistral", f"MISTRAL_API_KEY={mistral}\n", mistral)
    gem = "AIza" + g.s(URLSAFE, 35)
    add("gemini", f"genai.configure(api_key=\"{gem}\")\n", gem)
    or_ = "sk-or-v1-" + g.s(HEX, 64)
    add("openrouter", f"OPENROUTER_API_KEY={or_}\n", or_)

    # ---- package registries
    npm = "npm_" + g.mixed(36)
    add("npmrc", f"$ cat ~/.npmrc\n//registry.npmjs.org/:_authToken={npm}\n@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={ghp}\n", npm, ghp)
    npm_legacy = str(uuid.UUID(int=g.r.getrandbits(128)))
    add("npmrc-legacy-uuid", f"//registry.npmjs.org/:_authToken={npm_legacy}\n", npm_legacy)
    npm_pw = base64.b64encode(g.mixed(16).encode()).decode()
    add("npmrc-password", f"//nexus.acme.io/repository/npm/:_password={npm_pw}\n//nexus.acme.io/repository/npm/:username=ci\n", npm_pw)
    pypi = "pypi-AgEIcHlwaS5vcmc" + g.s(URLSAFE, 150)
    add("pypirc", f"$ cat ~/.pypirc\n[distutils]\nindex-servers =\n    pypi\n\n[pypi]\nusername = __token__\npassword = {pypi}\n", pypi)
    pypirc_pw = g.mixed(14) + "!"
    add("pypirc-password", f"[private]\nrepository = https://pypi.acme.io/simple\nusername = ci\npassword = {pypirc_pw}\n", pypirc_pw)
    dckr = "dckr_pat_" + g.s(URLSAFE, 27)
    add("dockerhub-pat", f"echo {dckr} | docker login -u zelda --password-stdin\n", dckr)
    dauth_pw = g.mixed(18)
    dauth = base64.b64encode(f"zelda:{dauth_pw}".encode()).decode()
    add("docker-config-json", "$ cat ~/.docker/config.json\n" + json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": dauth}, "ghcr.io": {"auth": base64.b64encode(f"zelda:{ghp}".encode()).decode()}}}, indent="\t"), dauth)
    gem_key = "rubygems_" + g.s(HEX, 48)
    add("rubygems", f"---\n:rubygems_api_key: {gem_key}\n", gem_key)
    nuget = "oy2" + g.s(LO, 43)
    add("nuget", f"dotnet nuget push pkg.nupkg --api-key {nuget} --source https://api.nuget.org/v3/index.json\n", nuget)
    cargo = "cio" + g.mixed(32)
    add("cargo-credentials", f"$ cat ~/.cargo/credentials.toml\n[registry]\ntoken = \"{cargo}\"\n", cargo)

    # ---- observability / ops
    dd_api = g.s(HEX, 32)
    dd_app = g.s(HEX, 40)
    add("datadog", f"DD_API_KEY={dd_api}\nDD_APP_KEY={dd_app}\nDD_SITE=datadoghq.eu\n", dd_api, dd_app)
    add("datadog-curl", f"curl -X GET \"https://api.datadoghq.com/api/v1/validate\" -H \"DD-API-KEY: {dd_api}\"\n", dd_api)
    nrak = "NRAK-" + g.s(UP, 27)
    add("newrelic-user", f"NEW_RELIC_API_KEY={nrak}\n", nrak)
    nrl = g.s(HEX, 36) + "NRAL"
    add("newrelic-license", f"newrelic.license_key = {nrl}\n", nrl)
    sentry = f"https://{g.s(HEX, 32)}@o{g.r.randint(10**5, 10**6)}.ingest.sentry.io/{g.r.randint(10**6, 10**7)}"
    add("sentry-dsn", f"Sentry.init({{ dsn: \"{sentry}\" }});\n", sentry.split("//")[1].split("@")[0])
    sntrys = "sntrys_" + g.b64url(120)
    add("sentry-auth-token", f"SENTRY_AUTH_TOKEN={sntrys}\n", sntrys)
    sntryu = "sntryu_" + g.s(HEX, 64)
    add("sentry-user-token", f"SENTRY_AUTH_TOKEN={sntryu}\n", sntryu)
    glsa = "glsa_" + g.mixed(32) + "_" + g.s(HEX, 8)
    add("grafana-sa", f"GRAFANA_TOKEN={glsa}\n", glsa)
    glc = "glc_" + g.b64url(120)
    add("grafana-cloud", f"GRAFANA_CLOUD_TOKEN={glc}\n", glc)
    pd = "u+" + g.s(URLSAFE, 18)
    add("pagerduty", f"PAGERDUTY_TOKEN={pd}\n", pd)
    hvs = "hvs." + g.mixed(24)
    add("vault-token", f"$ vault login\nToken (will be hidden):\nSuccess! You are now authenticated.\n\nKey                  Value\n---                  -----\ntoken                {hvs}\ntoken_accessor       {g.mixed(24)}\ntoken_duration       768h\n", hvs)
    hvs_long = "hvs.CAESI" + g.mixed(80, URLSAFE)
    add("vault-token-long", f"VAULT_TOKEN={hvs_long}\n", hvs_long)
    hvb = "hvb.AAAAAQ" + g.mixed(120, URLSAFE)
    add("vault-batch", f"export VAULT_TOKEN={hvb}\n", hvb)
    dp = "dp.st.prd." + g.mixed(40)
    add("doppler", f"DOPPLER_TOKEN={dp}\n", dp)
    lin = "lin_api_" + g.mixed(40)
    add("linear", f"LINEAR_API_KEY={lin}\n", lin)
    notion = "secret_" + g.mixed(43)
    add("notion-legacy", f"notion = Client(auth=\"{notion}\")\n", notion)
    ntn = "ntn_" + g.s("0123456789", 11) + g.mixed(35)
    add("notion-ntn", f"NOTION_TOKEN={ntn}\n", ntn)
    atl = "ATATT3xFfGF0" + g.s(URLSAFE, 180) + "=" + g.s("0123456789ABCDEF", 8)
    add("atlassian", f"JIRA_API_TOKEN={atl}\n", atl)
    pmak = f"PMAK-{g.s(HEX, 24)}-{g.s(HEX, 34)}"
    add("postman", f"POSTMAN_API_KEY={pmak}\n", pmak)
    dop = "dop_v1_" + g.s(HEX, 64)
    add("digitalocean", f"$ doctl auth init -t {dop}\n", dop)
    fly = "FlyV1 fm2_" + g.b64(200)
    add("fly", f"FLY_API_TOKEN=\"{fly}\"\n", fly.split(" ")[1][:60])
    pul = "pul-" + g.s(HEX, 40)
    add("pulumi", f"PULUMI_ACCESS_TOKEN={pul}\n", pul)
    tfc = g.s(AL, 14) + ".atlasv1." + g.s(URLSAFE, 67)
    add("terraform-cloud", f"$ cat ~/.terraform.d/credentials.tfrc.json\n{{\n  \"credentials\": {{\n    \"app.terraform.io\": {{\n      \"token\": \"{tfc}\"\n    }}\n  }}\n}}\n", tfc)
    ops = "ops_" + g.b64url(600)
    add("1password-sa", f"OP_SERVICE_ACCOUNT_TOKEN={ops}\n", ops[:80])
    cf = g.mixed(40, URLSAFE)
    add("cloudflare-env", f"CLOUDFLARE_API_TOKEN={cf}\n", cf)
    cf_global = g.s(HEX, 37)
    add("cloudflare-global", f"X-Auth-Key: {cf_global}\nX-Auth-Email: ops@acme.io\n", cf_global)
    heroku = "HRKU-AA" + g.s(URLSAFE, 58)
    add("heroku", f"HEROKU_API_KEY={heroku}\n", heroku)
    netlify = "nfp_" + g.mixed(36)
    add("netlify", f"NETLIFY_AUTH_TOKEN={netlify}\n", netlify)
    vercel = g.mixed(24)
    add("vercel", f"VERCEL_TOKEN={vercel}\n", vercel)
    sbp = "sbp_" + g.s(HEX, 40)
    add("supabase", f"SUPABASE_ACCESS_TOKEN={sbp}\n", sbp)
    sb_jwt = g.jwt({"iss": "supabase", "ref": g.s(LO, 20), "role": "service_role", "iat": 1700000000, "exp": 2000000000})
    add("supabase-service-role", f"SUPABASE_SERVICE_ROLE_KEY={sb_jwt}\n", sb_jwt)
    pscale = "pscale_tkn_" + g.mixed(43, URLSAFE)
    add("planetscale", f"PLANETSCALE_TOKEN={pscale}\n", pscale)
    dapi = "dapi" + g.s(HEX, 32)
    add("databricks", f"DATABRICKS_TOKEN={dapi}\n", dapi)
    okta = "00" + g.mixed(40, URLSAFE)
    add("okta", f"Authorization: SSWS {okta}\n", okta)
    lt = "LTAI" + g.mixed(20)
    add("alibaba", f"ALIBABA_CLOUD_ACCESS_KEY_ID={lt}\nALIBABA_CLOUD_ACCESS_KEY_SECRET={g.mixed(30)}\n", lt)
    figma = "figd_" + g.s(URLSAFE, 40)
    add("figma", f"FIGMA_TOKEN={figma}\n", figma)
    age = "AGE-SECRET-KEY-1" + g.s(BECH, 58)
    add("age-key", f"$ cat ~/.config/sops/age/keys.txt\n# created: 2026-01-01T00:00:00Z\n# public key: age1{g.s(BECH.lower(), 58)}\n{age}\n", age)

    # ---- JWTs, bearer, basic, cookies
    jwt = g.jwt()
    add("jwt-bare", f"token: {jwt}\n", jwt)
    add("k8s-sa-token", f"$ kubectl create token deployer\n{jwt}\n", jwt)
    kubeconf = g.b64(1000)
    kcert_pem, _ = g.pem("RSA PRIVATE KEY", 600)
    kkey = base64.b64encode(kcert_pem.encode()).decode()
    add("kubeconfig", f"apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: {kubeconf}\n    server: https://10.0.0.1:6443\n  name: prod\nusers:\n- name: admin\n  user:\n    client-key-data: {kkey}\n    token: {jwt}\n", kkey[:80], jwt)
    k8s_pw = g.mixed(20)
    add("k8s-secret-yaml", f"$ kubectl get secret db -o yaml\napiVersion: v1\ndata:\n  password: {base64.b64encode(k8s_pw.encode()).decode()}\n  username: YWRtaW4=\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n", base64.b64encode(k8s_pw.encode()).decode())
    add("k8s-secret-stringdata", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n  API_KEY: {g.mixed(32)}\n  DB_PASSWORD: {k8s_pw}\n", k8s_pw)
    bearer = g.mixed(48, URLSAFE)
    add("curl-v-bearer", f"$ curl -v https://api.acme.io/v2/me\n*   Trying 203.0.113.7:443...\n> GET /v2/me HTTP/2\n> Host: api.acme.io\n> user-agent: curl/8.5.0\n> authorization: Bearer {bearer}\n> accept: */*\n>\n< HTTP/2 200\n", bearer)
    basic_pw = g.mixed(14)
    basic = base64.b64encode(f"deploy:{basic_pw}".encode()).decode()
    add("basic-auth-header", f"> Authorization: Basic {basic}\n", basic)
    add("curl-u", f"curl -u deploy:{basic_pw} https://nexus.acme.io/service/rest/v1/components\n", basic_pw)
    sess = g.s(HEX, 64)
    add("cookie-request", f"> Cookie: _acme_session={sess}; csrftoken={g.mixed(32)}\n", sess)
    sid2 = g.mixed(32, URLSAFE)
    add("set-cookie", f"< set-cookie: sessionid={sid2}; expires=Tue, 01 Dec 2026 00:00:00 GMT; HttpOnly; Path=/; SameSite=Lax; Secure\n", sid2)
    phpsess = g.s(LO, 26)
    add("cookie-phpsessid", f"Cookie: PHPSESSID={phpsess}\n", phpsess)
    apikey_hdr = g.mixed(32)
    add("x-api-key-header", f"curl -H 'X-API-Key: {apikey_hdr}' https://api.acme.io/v1/things\n", apikey_hdr)
    add("http-dump-json", json.dumps({"request": {"headers": {"Authorization": f"Bearer {bearer}", "Cookie": f"session={sess}"}}}), bearer, sess)

    # ---- private keys
    for kind in ("RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY"):
        pem, lines = g.pem(kind, 1200 if "RSA" in kind else 400)
        add(f"pem-{kind.split()[0].lower()}", f"$ cat ~/.ssh/id\n{pem}", lines[1], lines[-2])
    pgp_lines = g.pem_body(1500)
    pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(pgp_lines) + "\n=" + g.s(B64, 4) + "\n-----END PGP PRIVATE KEY BLOCK-----\n"
    add("pgp-private", pgp, pgp_lines[1], pgp_lines[-2])
    pem, lines = g.pem("RSA PRIVATE KEY", 1200)
    add("pem-in-json-escaped", json.dumps({"ssh_key": pem}), lines[1], lines[-2])
    add("pem-head-cut", "$ head -n 8 deploy_key\n" + "\n".join(pem.splitlines()[:8]) + "\n", lines[1], lines[5])
    add("pem-tail-cut", "$ tail -n 6 deploy_key\n" + "\n".join(pem.splitlines()[-6:]) + "\n", lines[-2], lines[-4])
    mid = pem.splitlines()[5:15]
    add("pem-middle-sed", "$ sed -n 5,15p deploy_key\n" + "\n".join(mid) + "\n", mid[1], mid[5])
    diff = "diff --git a/deploy/key.pem b/deploy/key.pem\nindex 3b18e51..a9c2f3d 100644\n--- a/deploy/key.pem\n+++ b/deploy/key.pem\n@@ -10,7 +10,7 @@\n" + "\n".join(" " + ln for ln in lines[8:11]) + "\n-" + lines[11] + "\n+" + lines[11][::-1] + "\n" + "\n".join(" " + ln for ln in lines[12:15]) + "\n"
    add("pem-diff-hunk", diff, lines[9], lines[11], lines[11][::-1], lines[13])
    pem_open, olines = g.pem("OPENSSH PRIVATE KEY", 400)
    add("pem-crlf", pem_open.replace("\n", "\r\n"), olines[1], olines[-2])
    add("pem-one-line-spaces", pem_open.replace("\n", " "), olines[1], olines[-2])
    add("pem-env-escaped-n", "PRIVATE_KEY=\"" + pem_open.replace("\n", "\\n") + "\"\n", olines[1], olines[-2])
    putty = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: zelda@laptop\nPublic-Lines: 2\n" + "\n".join(g.pem_body(51)) + "\nPrivate-Lines: 1\n" + g.b64(48) + "\nPrivate-MAC: " + g.s(HEX, 64) + "\n"
    add("putty-ppk", putty, putty.split("Private-Lines: 1\n")[1].split("\n")[0])

    # ---- connection strings / URLs with passwords
    pw = g.mixed(16)
    add("postgres-url", f"DATABASE_URL=postgres://app_user:{pw}@db.prod.acme.internal:5432/app?sslmode=require\n", pw)
    add("postgresql-psql", f"$ psql \"postgresql://admin:{pw}@10.20.30.40:5432/analytics\"\n", pw)
    add("psql-kv", f"$ psql \"host=db.acme.io port=5432 dbname=app user=admin password={pw} sslmode=require\"\n", pw)
    add("pgpass", f"$ cat ~/.pgpass\ndb.acme.io:5432:app:admin:{pw}\n", pw)
    add("pgpassword-env", f"PGPASSWORD={pw} psql -h db.acme.io -U admin app\n", pw)
    add("mongodb-srv", f"MONGODB_URI=mongodb+srv://app:{pw}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true&w=majority\n", pw)
    add("redis-url", f"REDIS_URL=redis://:{pw}@redis.acme.internal:6379/0\n", pw)
    add("rediss-url-user", f"REDIS_URL=rediss://default:{pw}@eu1-cache.upstash.io:6379\n", pw)
    add("amqp-url", f"CELERY_BROKER_URL=amqp://rabbit:{pw}@mq.acme.internal:5672/prod\n", pw)
    add("mysql-url", f"mysql://root:{pw}@127.0.0.1:3306/shop\n", pw)
    add("jdbc-url-password", f"spring.datasource.url=jdbc:postgresql://db:5432/app?user=app&password={pw}\n", pw)
    add("sqlserver-connstr", f"Server=tcp:acme.database.windows.net,1433;Initial Catalog=app;User ID=admin;Password={pw};Encrypt=True;\n", pw)
    pw_special = g.mixed(10) + "#$%^&*"
    add("url-pw-encoded", f"postgres://app:{pw_special.replace('#', '%23').replace('%', '%25', 0)}@db:5432/app\n", pw_special[:10])
    add("ftp-url", f"lftp ftp://deploy:{pw}@ftp.acme.io/public_html\n", pw)
    add("smtp-url", f"EMAIL_URL=smtp+tls://postmaster@mg.acme.io:{pw}@smtp.mailgun.org:587\n", pw)
    add("https-basic-url", f"pip install --index-url https://ci:{pw}@pypi.acme.io/simple acme-core\n", pw)
    add("netrc", f"$ cat ~/.netrc\nmachine api.heroku.com\n  login zelda@acme.io\n  password {g.s(HEX, 8)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 12)}\nmachine github.com login zelda password {ghp}\n", ghp)
    add("netrc-one-line", f"machine nexus.acme.io login ci password {pw}\n", pw)

    # ---- config files
    spw = g.mixed(14)
    jwt_secret = g.mixed(48)
    add("spring-properties", f"spring.datasource.url=jdbc:mysql://db:3306/shop\nspring.datasource.username=shop\nspring.datasource.password={spw}\nspring.mail.password={spw[::-1]}\njwt.secret={jwt_secret}\napp.security.oauth2.client-secret={g.mixed(30)}\n", spw, spw[::-1], jwt_secret)
    add("spring-yaml", f"spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/app\n    username: app\n    password: {spw}\n  security:\n    oauth2:\n      client:\n        registration:\n          github:\n            client-secret: {g.s(HEX, 40)}\n", spw)
    add("dotnet-appsettings", json.dumps({"ConnectionStrings": {"DefaultConnection": f"Server=(localdb)\\mssqllocaldb;Database=App;User Id=sa;Password={spw};"}, "Jwt": {"Key": jwt_secret, "Issuer": "acme"}, "Logging": {"LogLevel": {"Default": "Information"}}}, indent=2), spw, jwt_secret)
    mk = g.s(HEX, 32)
    skb = g.s(HEX, 128)
    add("rails-master-key", f"$ cat config/master.key\n{mk}\n", mk)
    add("rails-credentials", f"$ bin/rails credentials:show\nsecret_key_base: {skb}\naws:\n  access_key_id: {akid}\n  secret_access_key: {aws_sec}\n", skb, akid, aws_sec)
    add("rails-master-key-env", f"RAILS_MASTER_KEY={mk}\n", mk)
    djk = g.s(string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)", 50)
    add("django-secret", f"SECRET_KEY = '{djk}'\n", djk)
    add("django-secret-insecure", f"SECRET_KEY = 'django-insecure-{djk}'\n", djk)
    flask = g.s(HEX, 48)
    add("flask-secret", f"app.config['SECRET_KEY'] = '{flask}'\n", flask)
    add("dotenv", f"$ cat .env\nNODE_ENV=production\nPORT=3000\nDB_PASSWORD={pw}\nJWT_SECRET={jwt_secret}\nSESSION_SECRET={g.s(HEX, 64)}\nENCRYPTION_KEY={g.b64(32)}\nAPI_KEY={apikey_hdr}\n", pw, jwt_secret, apikey_hdr)
    add("dotenv-quoted", f"DB_PASSWORD=\"{pw}\"\nSMTP_PASS='{spw}'\nexport ADMIN_PASSWORD={spw[::-1]}\n", pw, spw, spw[::-1])
    add("docker-inspect-env", json.dumps([{"Id": g.s(HEX, 64), "Config": {"Env": [f"POSTGRES_PASSWORD={pw}", f"MINIO_ROOT_PASSWORD={spw}", "PATH=/usr/local/sbin:/usr/local/bin", f"REDIS_PASSWORD={jwt_secret[:20]}"], "Image": "postgres:16"}}], indent=4), pw, spw, jwt_secret[:20])
    add("docker-compose", f"services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_PASSWORD={pw}\n      POSTGRES_USER: app\n  api:\n    environment:\n      STRIPE_KEY: {sk_short}\n", pw, sk_short)
    add("docker-run-e", f"docker run -d -e MYSQL_ROOT_PASSWORD={pw} -e MYSQL_PASSWORD={spw} mysql:8\n", pw, spw)
    tfpw = g.mixed(16)
    tfstate = {"version": 4, "terraform_version": "1.9.5", "resources": [{"mode": "managed", "type": "aws_db_instance", "name": "main", "instances": [{"attributes": {"id": "db-1", "password": tfpw, "username": "admin", "endpoint": "main.c9akciq32.eu-west-3.rds.amazonaws.com:5432"}}]}, {"type": "aws_iam_access_key", "instances": [{"attributes": {"id": akid, "secret": aws_sec, "ses_smtp_password_v4": g.b64(32)}}]}, {"type": "random_password", "instances": [{"attributes": {"result": tfpw[::-1], "length": 16}}]}]}
    add("terraform-state", json.dumps(tfstate, indent=2), tfpw, aws_sec, tfpw[::-1])
    add("terraform-tfvars", f"db_password = \"{tfpw}\"\ncloudflare_api_token = \"{cf}\"\n", tfpw, cf)
    add("terraform-plan-sensitive", f"  + resource \"aws_db_instance\" \"main\" {{\n      + password = \"{tfpw}\"\n      + username = \"admin\"\n", tfpw)
    add("ansible-vault-pw", f"ansible_become_password: {tfpw}\nansible_ssh_pass: {spw}\n", tfpw, spw)
    add("helm-values", f"postgresql:\n  auth:\n    postgresPassword: {tfpw}\n    password: {spw}\nredis:\n  auth:\n    password: {pw}\n", tfpw, spw, pw)
    add("npm-config-list", f"$ npm config list\n; \"user\" config from /home/zelda/.npmrc\n\n//registry.npmjs.org/:_authToken = {npm}\nemail = \"zelda@acme.io\"\n", npm)
    add("pip-conf", f"[global]\nindex-url = https://ci:{pw}@nexus.acme.io/repository/pypi/simple\n", pw)
    add("git-credentials", f"$ cat ~/.git-credentials\nhttps://zelda:{ghp}@github.com\nhttps://oauth2:{glpat}@gitlab.acme.io\n", ghp, glpat)
    add("maven-settings", f"<settings>\n  <servers>\n    <server>\n      <id>nexus</id>\n      <username>deploy</username>\n      <password>{pw}</password>\n    </server>\n  </servers>\n</settings>\n", pw)
    add("gradle-properties", f"ossrhUsername=zelda\nossrhPassword={pw}\nsigning.password={spw}\n", pw, spw)
    add("composer-auth", json.dumps({"http-basic": {"repo.packagist.com": {"username": "token", "password": g.s(HEX, 40)}}, "github-oauth": {"github.com": ghp}}), ghp)
    add("wp-config", f"define( 'DB_PASSWORD', '{pw}' );\ndefine( 'AUTH_KEY', '{djk}' );\n", pw, djk)
    add("php-env", f"$password = \"{pw}\";\n$apiKey = '{apikey_hdr}';\n", pw, apikey_hdr)
    add("ini-password", f"[database]\nhost = db.acme.io\nuser = app\npasswd = {pw}\n", pw)
    add("xml-connstr", f"<add name=\"Default\" connectionString=\"Data Source=db;Initial Catalog=App;User ID=sa;Password={pw}\" providerName=\"System.Data.SqlClient\" />\n", pw)
    add("yaml-token", f"github:\n  token: {g.mixed(40)}\n  api_key: {apikey_hdr}\n", apikey_hdr)
    add("toml-secret", f"[auth]\nclient_secret = \"{jwt_secret}\"\n", jwt_secret)
    add("properties-key-colon", f"api.key: {apikey_hdr}\nauth.token: {bearer}\n", apikey_hdr, bearer)

    # ---- code with hard-coded keys
    add("go-code", f"package main\n\nconst apiKey = \"{apikey_hdr}\"\n\nfunc main() {{\n\tpassword := \"{pw}\"\n\tdb, _ := sql.Open(\"postgres\", \"user=app password={spw} dbname=app\")\n}}\n", apikey_hdr, pw, spw)
    add("node-code", f"const client = new Client({{\n  apiKey: '{apikey_hdr}',\n  secret: \"{jwt_secret}\",\n}});\nprocess.env.ACCESS_TOKEN = '{bearer}';\n", apikey_hdr, jwt_secret, bearer)
    add("python-code", f"API_TOKEN = \"{apikey_hdr}\"\nheaders = {{\"Authorization\": f\"Token {bearer}\"}}\nrequests.post(url, auth=(\"admin\", \"{pw}\"))\n", apikey_hdr, bearer, pw)
    add("java-code", f"private static final String SECRET_KEY = \"{jwt_secret}\";\nconn = DriverManager.getConnection(url, \"admin\", \"{pw}\");\n", jwt_secret, pw)
    add("csharp-code", f"var client = new SendGridClient(\"{sg}\");\nprivate const string Password = \"{pw}\";\n", sg, pw)
    add("rust-code", f"let token = \"{bearer}\";\nlet client_secret: &str = \"{jwt_secret}\";\n", bearer, jwt_secret)
    add("shell-curl-token-arg", f"curl -s 'https://api.acme.io/v1/items?api_key={apikey_hdr}&limit=10'\n", apikey_hdr)
    add("url-access-token-param", f"GET /oauth/callback?code={g.mixed(40)}&access_token={bearer}&state=xyz\n", bearer)
    add("jupyter-output", json.dumps({"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [{"name": "stdout", "output_type": "stream", "text": ["Connected with key " + oa + "\n", f"db password {pw}\n"]}], "source": ["import os\n", "print(os.environ)\n"]}, indent=1), oa)
    env_dump = "environ({'HOME': '/home/zelda', 'OPENAI_API_KEY': '" + oa + "', 'DB_PASSWORD': '" + pw + "', 'LANG': 'C.UTF-8'})"
    add("python-os-environ-repr", env_dump, oa, pw)
    add("ci-log", f"2026-11-30T10:00:01.123Z ##[group]Run docker login\n2026-11-30T10:00:01.124Z docker login -u zelda -p {pw} ghcr.io\n2026-11-30T10:00:02.000Z WARNING! Using --password via the CLI is insecure.\n", pw)
    add("ci-log-gitlab", f"$ echo \"//registry.npmjs.org/:_authToken=${{NPM_TOKEN}}\" > .npmrc\n$ npm publish\nnpm notice Publishing to https://registry.npmjs.org/ with tag latest\n+ NPM_TOKEN={npm}\n", npm)
    add("mysql-cli-p", f"$ mysql -u root -p{pw} -h 127.0.0.1 shop\n", pw)
    add("htpasswd", f"$ cat .htpasswd\nadmin:$apr1${g.s(AL, 8)}${g.s(AL + './', 22)}\n", "$apr1$")
    shadow = f"$6${g.s(AL, 16)}${g.s(AL + './', 86)}"
    add("shadow-hash", f"zelda:{shadow}:19700:0:99999:7:::\n", shadow)
    bcrypt = f"$2b$12${g.s(AL + './', 53)}"
    add("bcrypt-hash", f"INSERT INTO users (email, password_hash) VALUES ('zelda@acme.io', '{bcrypt}');\n", bcrypt)

    # ---- wrapped tokens
    long_jwt = g.jwt()
    wrapped = "\n".join(long_jwt[i:i + 76] for i in range(0, len(long_jwt), 76))
    add("jwt-wrapped-76", f"Authorization: Bearer\n{wrapped}\n", long_jwt[80:150], long_jwt[-60:])
    oa_w = "\n".join(oa[i:i + 80] for i in range(0, len(oa), 80))
    add("openai-wrapped-80", f"OPENAI_API_KEY=\n{oa_w}\n", oa[85:150])
    ant_w = ant[:64] + "\n" + ant[64:]
    add("anthropic-wrapped-64", f"key: {ant_w}\n", ant[64:])
    sg_w = sg[:40] + "\n" + sg[40:]
    add("sendgrid-wrapped", f"SENDGRID_API_KEY={sg_w}\n", sg[40:])

    # ---- ssh
    add("authorized_keys", f"$ cat ~/.ssh/authorized_keys\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.b64(32)[:43]} zelda@zelda-macbook.local\nssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{g.b64(200)} bartholomew.quince@build-01\n", "zelda@zelda-macbook", "bartholomew.quince")
    add("known_hosts", f"$ cat ~/.ssh/known_hosts\ngit.acme-internal.net,10.14.2.9 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.b64(32)[:43]}\n", "10.14.2.9")
    add("known_hosts-public", f"$ cat ~/.ssh/known_hosts\nbastion.acme.io,81.64.123.45 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.b64(32)[:43]}\n", "81.64.123.45")
    add("ssh-config", "Host prod\n  HostName 198.51.100.23\n  User bquince\n  IdentityFile ~/.ssh/id_prod\n", "bquince")

    # ---- paths / users
    add("path-macos", "Traceback (most recent call last):\n  File \"/Users/bquince/src/acme/api/app.py\", line 12, in <module>\n    import foo\nModuleNotFoundError: No module named 'foo'\n", "bquince")
    add("path-linux", "Error: ENOENT: no such file or directory, open '/home/bquince/projects/web/.env.local'\n    at Object.openSync (node:fs:596:3)\n", "bquince")
    add("path-windows", "   at Acme.Api.Startup.Configure() in C:\\Users\\bquince\\source\\repos\\Acme\\Api\\Startup.cs:line 42\n", "bquince")
    add("path-windows-fwd", "error: could not open 'C:/Users/bquince/AppData/Local/Temp/x.txt'\n", "bquince")
    add("path-windows-json", json.dumps({"cwd": "C:\\Users\\bquince\\dev\\acme"}), "bquince")
    add("path-wsl", "fatal: not a git repository: /mnt/c/Users/bquince/dev/acme/.git\n", "bquince")
    add("path-tilde-user", "ls ~bquince/.config\n", "bquince")
    add("path-file-url", "open file:///Users/bquince/Downloads/report.pdf\n", "bquince")
    add("path-root-home", "PermissionError: [Errno 13] Permission denied: '/root/.cache/pip'\n")
    add("path-unc", "\\\\fileserver\\home$\\bquince\\docs\\plan.docx\n", "bquince")
    add("path-var-users", "/var/folders/xy/abc123/T/ and /private/var/folders ... Users/bquince/Library/Caches\n", "bquince")
    add("path-windows-lower", "c:\\users\\bquince\\appdata\\roaming\\npm\\node_modules\n", "bquince")
    add("path-docker-mount", "-v /home/bquince/data:/data\n", "bquince")

    # ---- PII
    add("email-plain", "Contact: Bartholomew Quince <bartholomew.quince@acme-corp.com>\n", "bartholomew.quince@acme-corp.com")
    add("email-plus", "signed up as zelda+newsletter@gmail.com\n", "zelda+newsletter")
    add("email-subdomain", "mail to ops@eu.mail.acme-corp.co.uk failed\n", "ops@eu.mail.acme-corp.co.uk")
    add("email-idn", "jörg.müller@bücher.de und info@xn--bcher-kva.de\n", "jörg.müller", "info@xn--bcher-kva.de")
    add("email-git-log", "commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad\nAuthor: Bartholomew Quince <bquince@users.noreply.github.com>\nDate:   Mon Nov 30 10:00:00 2026 +0100\n", "bquince@users.noreply.github.com")
    add("email-mailto", "<a href=\"mailto:press@acme-corp.com?subject=Hi\">press</a>\n", "press@acme-corp.com")
    add("email-url-encoded", "GET /invite?email=zelda%40acme-corp.com&role=admin\n", "zelda%40acme-corp.com")
    add("phone-e164", "Twilio to=+14155552671 from=+33612345678\n", "+14155552671", "+33612345678")
    add("phone-fr-spaces", "Tél : 06 12 34 56 78\n", "06 12 34 56 78")
    add("phone-fr-dots", "Portable: 06.12.34.56.78\n", "06.12.34.56.78")
    add("phone-fr-intl", "Appelez le +33 6 12 34 56 78 ou le +33 (0)1 42 68 53 00\n", "+33 6 12 34 56 78", "42 68 53 00")
    add("phone-fr-landline", "Standard : 01 42 68 53 00\n", "01 42 68 53 00")
    add("phone-de", "Telefon: +49 30 12345678, Mobil: +49 (0)170 1234567, Büro 030 12345678\n", "+49 30 12345678", "170 1234567", "030 12345678")
    add("phone-de-slash", "Tel. 0171/1234567\n", "0171/1234567")
    add("phone-uk", "Call +44 20 7946 0958 or 07700 900123\n", "+44 20 7946 0958", "07700 900123")
    add("phone-in", "Mobile: +91 98765 43210 / +91-98765-43210\n", "+91 98765 43210", "+91-98765-43210")
    add("phone-br", "WhatsApp: +55 11 91234-5678, fixo (11) 3456-7890\n", "+55 11 91234-5678", "(11) 3456-7890")
    add("phone-us", "Phone: (415) 555-2671, cell 415-555-0199, +1 (212) 555-0142\n", "(415) 555-2671", "415-555-0199", "+1 (212) 555-0142")
    add("phone-json", json.dumps({"name": "x", "phone": "+33 6 12 34 56 78", "tel": "+4915112345678"}), "+33 6 12 34 56 78", "+4915112345678")
    iban_de = g.iban("DE", g.s("0123456789", 18))
    iban_fr = g.iban("FR", g.s("0123456789", 10) + g.s(UP, 11) + g.s("0123456789", 2))
    iban_gb = g.iban("GB", "WEST" + g.s("0123456789", 14))
    add("iban-compact", f"IBAN: {iban_de}\n", iban_de)
    add("iban-spaced", f"IBAN : {_group(iban_fr)}\nBIC : BNPAFRPPXXX\n", _group(iban_fr))
    add("iban-gb-spaced", f"Pay to {_group(iban_gb)}\n", _group(iban_gb))
    visa = g.luhn("4", 16)
    mc_ = g.luhn("5" + g.s("12345", 1), 16)
    amex = g.luhn("37", 15)
    add("card-spaces", f"card: {_group(visa)} exp 12/28 cvc 123\n", _group(visa))
    add("card-dashes", f"card_number={_group(mc_, 4, '-')}\n", _group(mc_, 4, "-"))
    add("card-plain", f"{{\"number\": \"{visa}\", \"exp_month\": 12}}\n", visa)
    add("card-amex", f"AMEX {amex[:4]} {amex[4:10]} {amex[10:]}\n", f"{amex[:4]} {amex[4:10]} {amex[10:]}")
    ssn = f"{g.r.randint(100, 665)}-{g.r.randint(10, 99)}-{g.r.randint(1000, 9999)}"
    add("ssn", f"SSN: {ssn}\n", ssn)
    add("ssn-json", json.dumps({"ssn": ssn.replace("-", "")}), ssn.replace("-", ""))
    add("ipv4-public", "Connection from 81.64.123.45 port 51234\n", "81.64.123.45")
    add("ipv4-private", "inet 192.168.1.23/24 brd 192.168.1.255\n", "192.168.1.23")
    add("ipv6", "inet6 2a01:e0a:1b2:3c40:8d1e:5f2a:9b3c:4d5e/64 scope global\n", "2a01:e0a:1b2:3c40:8d1e:5f2a:9b3c:4d5e")
    add("ipv6-compressed", "Connected to 2a02:8071:85a3::8a2e:370:7334\n", "2a02:8071:85a3::8a2e:370:7334")
    add("mac-address", "link/ether 3c:22:fb:a1:b2:c3 brd ff:ff:ff:ff:ff:ff\n", "3c:22:fb:a1:b2:c3")
    add("mac-dashes", "Physical Address. . . . : 3C-22-FB-A1-B2-C3\n", "3C-22-FB-A1-B2-C3")
    add("postal-address", "Ship to: 42 rue de Rivoli, 75001 Paris\n", "42 rue de Rivoli")
    add("name-git-config", "[user]\n\tname = Bartholomew Quince\n\temail = bq@acme-corp.com\n", "Bartholomew Quince", "bq@acme-corp.com")
    return out


def carriers(text: str) -> dict[str, bytes]:
    """The text where sessions hold it: a Claude Code tool_result (string and text block), a Read
    result with line numbers, a Bash tool_use input, a Codex function_call_output whose output is
    JSON in a string, and a Codex exec_command_end aggregated output."""
    numbered = "\n".join(f"{i:>6}\u2192{ln}" for i, ln in enumerate(text.split("\n"), 1))
    recs = {
        "cc-tool_result": {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Ab", "content": text}]}},
        "cc-text-block": {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Ab", "content": [{"type": "text", "text": text}]}]}},
        "cc-read-numbered": {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Ab", "content": numbered}]}},
        "cc-tool_use": {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01Ab", "name": "Bash", "input": {"command": text}}]}},
        "codex-fco": {"timestamp": "2026-11-30T10:00:00.000Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_1",
            "output": json.dumps({"output": text, "metadata": {"exit_code": 0, "duration_seconds": 0.1}})}},
        "codex-fco-plain": {"timestamp": "2026-11-30T10:00:00.000Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_1", "output": "Process exited with code 0\nOutput:\n" + text}},
    }
    return {k: json.dumps(v).encode() for k, v in recs.items()}


def decoded_views(raw: bytes) -> str:
    """Every string in a JSON line, decoded, and JSON-in-strings decoded once more."""
    parts: list[str] = [raw.decode("utf-8", "replace")]

    def walk(o: object) -> None:
        if isinstance(o, str):
            parts.append(o)
            if o[:1] in "{[":
                try:
                    walk(json.loads(o))
                except ValueError:
                    pass
        elif isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    try:
        walk(json.loads(raw))
    except ValueError:
        pass
    return "\n".join(parts)


def leaks(values: list[str], out: str, window: int = 0) -> list[str]:
    """The values still in `out`; with window > 0, also any value a `window`-char slice of which survived."""
    bad = []
    for v in values:
        if v in out:
            bad.append(v)
        elif window and len(v) > window + 4:
            if any(v[i:i + window] in out for i in range(0, len(v) - window + 1)):
                bad.append(v + "  [partial]")
    return bad


LeakCheck = Callable[[list[str], str], list[str]]
