"""Generator of secrets and people where coding-agent sessions hold them (s14 outside-in leak audit).

The s11 generator (tests/test_s11_leak_gen.py) covers provider token formats, the common env/config
names and connection URLs; s12 covers generic `*_key` names, s13 base64 of whole files. This one adds
what a transcript shows around them: shell commands and their output (curl/httpie flags, database and
cluster CLIs, `env`/`git config --list` dumps, password-manager output), HTTP traces (request and
response headers, vendor headers, cookies of web frameworks, http.client debug lines), URLs (secret
query parameters, userinfo in more schemes, presigned URLs), framework config (Rails, Django, Laravel,
Symfony, NextAuth, keystores, Ansible inventories, kubeconfig auth-providers, cloud CLI caches), code
literals (setters, constructors, HTTP client calls), logs that print DSNs or headers, key material
(WireGuard, OpenVPN static keys, TOTP seeds) and home paths / e-mails in odd spellings.

Every value is random from a seeded RNG, in the provider's or format's shape; `samples(seed)` gives
(family, text, values): each value must be gone from the redacted text. `negatives(seed)` gives the
twins that must stay byte for byte.
"""

from __future__ import annotations

import base64
import json
import string
import uuid

from tests.test_s11_leak_gen import AL, HEX, URLSAFE
from tests.test_s11_leak_gen import Gen as S11Gen

B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
DJANGO = string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)"
NAMES = ("bquince", "tmarlowe", "ozymandias", "hfairweather", "cvandermeer", "pkowalczyk")

Sample = tuple[str, str, list[str]]


class Gen(S11Gen):
    """s11's generator (s, mixed, b64, b64url, jwt), plus passwords and uuids."""

    def pw(self, n: int = 16) -> str:
        """A generated password: base62 plus a symbol or two, as password managers make them."""
        v = list(self.mixed(n))
        for _ in range(2):
            v[self.r.randrange(1, n - 1)] = self.r.choice("!%*+-.?^_~")
        return "".join(v)

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.r.getrandbits(128), version=4))


def samples(seed: int = 14) -> list[Sample]:  # noqa: C901, PLR0915
    g = Gen(seed)
    out: list[Sample] = []
    user = g.r.choice(NAMES)

    def add(family: str, text: str, *values: str) -> None:
        out.append((family, text, list(values)))

    # ---- shell commands with credentials in flags and bodies
    pw = g.pw(16)
    tok = g.mixed(40, URLSAFE)
    add("curl-data-urlencoded-password",
        f"$ curl -s -X POST https://auth.acme.io/login --data 'username=ci-bot&password={pw}&remember=1'\n", pw)
    csec = g.mixed(40)
    add("curl-data-json-client-secret",
        f"$ curl -s https://auth.acme.io/oauth/token -H 'content-type: application/json' "
        f"-d '{{\"client_id\":\"acme-cli\",\"client_secret\":\"{csec}\",\"grant_type\":\"client_credentials\"}}'\n", csec)
    gl_tok = g.mixed(20, URLSAFE)
    add("curl-private-token-header",
        f"$ curl --header \"PRIVATE-TOKEN: {gl_tok}\" \"https://git.acme.io/api/v4/projects?per_page=5\"\n", gl_tok)
    add("httpie-bearer-header", f"$ http GET https://api.acme.io/v2/me 'Authorization:Bearer {tok}'\n", tok)
    add("httpie-auth-flag", f"$ http -a deploy:{pw} POST https://nexus.acme.io/service/rest/v1/script name=x\n", pw)
    tok2 = g.mixed(43, URLSAFE)
    add("httpie-auth-type-bearer", f"$ http --auth-type=bearer --auth={tok2} https://api.acme.io/v1/items\n", tok2)
    add("wget-password-flag", f"$ wget --user=ci --password={pw} https://repo.acme.io/releases/app-1.2.tgz\n", pw)
    add("mysql-long-password", f"$ mysql --host=db.acme.io --user=root --password={pw} shop -e 'show tables'\n", pw)
    add("mysqldump-quoted-p", f"$ mysqldump -uroot -p'{pw}' --single-transaction shop > shop.sql\n", pw)
    add("redis-cli-a", f"$ redis-cli -h cache.acme.internal -p 6379 -a {pw} --no-auth-warning INFO keyspace\n", pw)
    add("mongosh-password-flag", f"$ mongosh --host mongo.acme.io --username admin --password {pw} --authenticationDatabase admin\n", pw)
    add("helm-repo-add-password",
        f"$ helm repo add acme https://charts.acme.io --username ci --password {pw}\n\"acme\" has been added to your repositories\n", pw)
    api_lit = g.mixed(32)
    add("kubectl-from-literal",
        f"$ kubectl create secret generic app-env --from-literal=DB_PASSWORD={pw} --from-literal=api-key={api_lit}\nsecret/app-env created\n",
        pw, api_lit)
    az_sec = g.mixed(34, URLSAFE + "~.")
    add("az-login-sp-password",
        f"$ az login --service-principal -u {g.uuid()} -p {az_sec} --tenant {g.uuid()}\n", az_sec)
    ghe = g.s(HEX, 40)
    add("gh-auth-with-token-herestring",
        f"$ gh auth login --hostname ghe.acme.io --with-token <<< {ghe}\n", ghe)
    add("podman-login-password-eq", f"$ podman login --username ci --password={pw} registry.acme.io\nLogin Succeeded!\n", pw)
    add("keytool-storepass",
        f"$ keytool -importcert -alias acme -file ca.pem -keystore truststore.jks -storepass {pw} -noprompt\n", pw)
    add("openssl-pkcs12-passout",
        f"$ openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{pw}\n", pw)
    add("sqlcmd-password",
        f"$ sqlcmd -S tcp:db.acme.io,1433 -U sa -P '{pw}' -Q 'SELECT @@VERSION'\n", pw)
    add("psql-pgpassword-export",
        f"$ export PGPASSWORD='{pw}'\n$ psql -h db.acme.io -U app -c '\\dt'\n", pw)

    # ---- environment dumps and echoes
    sess_secret = g.mixed(48)
    cookie_secret = g.s(HEX, 64)
    add("env-dump-app-secrets",
        f"$ env | sort\nHOME=/root\nHOSTNAME=web-7f9c\nCOOKIE_SECRET={cookie_secret}\nNODE_ENV=production\nSESSION_SECRET={sess_secret}\n",
        cookie_secret, sess_secret)
    enc = g.b64(32)
    add("printenv-named", f"$ printenv | grep -i key\nENCRYPTION_KEY={enc}\nSIGNING_KEY_ID=k1\n", enc)
    sig = g.s(HEX, 32)
    add("set-dump-quoted", f"$ set | grep -i secret\nSLACK_SIGNING_SECRET='{sig}'\n", sig)
    add("export-then-echo", f"$ export API_SECRET={sess_secret[::-1]}; echo $API_SECRET\n{sess_secret[::-1]}\n", sess_secret[::-1])
    add("printenv-one-var", f"$ printenv GITLAB_DEPLOY_TOKEN\n{gl_tok[::-1]}\n", gl_tok[::-1])
    add("ps-eww-environ",
        f"$ ps eww 4242\n  PID TTY      STAT   TIME COMMAND\n 4242 ?        Ssl    0:03 node server.js NODE_ENV=production API_SECRET={sess_secret} PORT=3000\n",
        sess_secret)

    # ---- git and package manager configuration output
    xat = "ghs_" + g.mixed(36)
    extra = base64.b64encode(f"x-access-token:{xat}".encode()).decode()
    add("git-config-list-extraheader",
        f"$ git config --list\nuser.name=CI\ncredential.helper=store\nhttp.https://github.com/.extraheader=AUTHORIZATION: basic {extra}\ncore.bare=false\n",
        extra)
    gitea = g.s(HEX, 40)
    add("git-config-remote-url-token",
        f"$ cat .git/config\n[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = https://ci-bot:{gitea}@git.acme.io/acme/api.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
        gitea)
    npm_auth = base64.b64encode(f"ci:{pw}".encode()).decode()
    add("npmrc-legacy-auth", f"$ npm config get _auth\n{npm_auth}\n$ cat .npmrc\n_auth={npm_auth}\nalways-auth=true\n", npm_auth)
    add("poetry-http-basic",
        f"$ poetry config --list\nhttp-basic.acme.password = \"{pw}\"\nhttp-basic.acme.username = \"ci\"\n", pw)
    add("requirements-git-plus-token",
        f"git+https://{tok}@git.acme.io/acme/acme-core.git@v1.4.2#egg=acme-core\n", tok)
    add("proxy-env-userinfo",
        f"$ echo $HTTPS_PROXY\nhttp://corp%5Cci:{pw}@proxy.acme.io:3128\n", pw)

    # ---- HTTP traces
    neg = "YII" + g.b64(600)
    add("authorization-negotiate", f"> GET /api/reports HTTP/1.1\n> Host: intranet.acme.io\n> Authorization: Negotiate {neg}\n", neg[:80])
    xauth = g.mixed(32)
    add("x-auth-token-header", f"< HTTP/1.1 201 Created\n< X-Subject-Token: {xauth}\n> X-Auth-Token: {xauth}\n", xauth)
    apim = g.s(HEX, 32)
    add("azure-apim-subscription-key",
        f"$ curl -H 'Ocp-Apim-Subscription-Key: {apim}' https://api.acme.io/orders\n", apim)
    rapid = g.mixed(50)
    add("rapidapi-key-header", f"headers = {{'X-RapidAPI-Key': '{rapid}', 'X-RapidAPI-Host': 'weather.p.rapidapi.com'}}\n", rapid)
    apikey2 = g.mixed(32)
    add("api-key-header-bare", f"POST /v1/embed HTTP/1.1\r\nHost: api.acme.io\r\napi-key: {apikey2}\r\n\r\n", apikey2)
    njwe = g.b64url(40) + ".." + g.b64url(12) + "." + g.b64url(300) + "." + g.b64url(16)
    add("set-cookie-nextauth",
        f"< set-cookie: __Secure-next-auth.session-token={njwe}; Path=/; Expires=Fri, 01 Jan 2027 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax\n",
        njwe[:60])
    csid = "s%3A" + g.b64url(24) + "." + g.b64url(32)
    add("cookie-express-connect-sid", f"> Cookie: connect.sid={csid}; theme=dark\n", csid)
    lara = base64.b64encode(json.dumps({"iv": g.b64(16), "value": g.b64(120), "mac": g.s(HEX, 64), "tag": ""}).encode()).decode().replace("=", "%3D")
    add("set-cookie-laravel", f"Set-Cookie: laravel_session={lara}; expires=Tue, 01-Dec-2026 10:00:00 GMT; Max-Age=7200; path=/; httponly; samesite=lax\n", lara[:60])
    jsess = g.s("0123456789ABCDEF", 32)
    add("cookie-jsessionid", f"Cookie: JSESSIONID={jsess}; Path=/app\n", jsess)
    aspnet = g.s(string.ascii_lowercase + "012345", 24)
    add("cookie-aspnet-session", f"Cookie: ASP.NET_SessionId={aspnet}; .AspNetCore.Antiforgery.x=CfDJ8{g.b64url(60)}\n", aspnet)
    bearer = g.mixed(48, URLSAFE)
    add("python-http-client-debug",
        f"send: b'GET /v1/me HTTP/1.1\\r\\nHost: api.acme.io\\r\\nUser-Agent: python-requests/2.31.0\\r\\nAuthorization: Bearer {bearer}\\r\\n\\r\\n'\nreply: 'HTTP/1.1 200 OK\\r\\n'\n",
        bearer)
    add("requests-headers-repr",
        f">>> r.request.headers\n{{'User-Agent': 'python-requests/2.31.0', 'Accept': '*/*', 'x-api-key': '{apikey2}', 'Content-Length': '2'}}\n", apikey2)
    add("axios-error-dump",
        f"AxiosError: Request failed with status code 401\n    at settle (node_modules/axios/lib/core/settle.js:19:12) {{\n  config: {{\n    headers: Object [AxiosHeaders] {{\n      Accept: 'application/json',\n      Authorization: 'Bearer {bearer}',\n    }},\n    auth: {{ username: 'ci', password: '{pw}' }},\n",
        bearer, pw)

    # ---- URLs
    add("url-query-uppercase-token", f"GET /export?ACCESS_TOKEN={tok}&format=csv\n", tok)
    add("url-query-private-token", f"$ curl 'https://git.acme.io/api/v4/projects/42/jobs?private_token={gl_tok}'\n", gl_tok)
    fb = g.mixed(40)
    add("url-query-firebase-auth", f"$ curl 'https://acme-prod.firebaseio.com/users.json?auth={fb}&print=pretty'\n", fb)
    add("url-query-client-secret",
        f"POST https://login.acme.io/oauth2/token?client_id=web&client_secret={csec}&grant_type=client_credentials\n", csec)
    add("url-query-password", f"ws://10.0.0.5:8080/socket?user=admin&Password={pw}\n", pw)
    add("url-query-apikey-camel", f"fetch(`https://api.acme.io/v1/geo?apiKey={api_lit}&q=${{q}}`)\n", api_lit)
    s3_sig = g.s(HEX, 64)
    akid = "ASIA" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    sts = "IQoJb3JpZ2luX2Vj" + g.s(AL + "%", 200)
    add("s3-presigned-url",
        f"https://acme-uploads.s3.eu-west-3.amazonaws.com/exports/r.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={akid}%2F20261130%2Feu-west-3%2Fs3%2Faws4_request&X-Amz-Date=20261130T100000Z&X-Amz-Expires=3600&X-Amz-Security-Token={sts}&X-Amz-SignedHeaders=host&X-Amz-Signature={s3_sig}\n",
        s3_sig, sts[:60])
    gcs_sig = g.s(HEX, 512)
    add("gcs-signed-url",
        f"https://storage.googleapis.com/acme-private/backup.tar?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=signer%40acme.iam.gserviceaccount.com%2F20261130%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261130T100000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature={gcs_sig}\n",
        gcs_sig[:80])
    cf_sig = g.b64(128).replace("+", "-").replace("=", "_").replace("/", "~")
    add("cloudfront-signed-url",
        f"https://d111111abcdef8.cloudfront.net/video.mp4?Expires=1764500000&Signature={cf_sig}&Key-Pair-Id=K2JCJMDEHXQW5F\n", cf_sig[:60])
    for scheme in ("amqps", "sftp", "ldaps", "nats", "mqtt", "clickhouse"):
        p = g.pw(14)
        add(f"url-userinfo-{scheme}", f"BROKER_URL={scheme}://svc-app:{p}@{scheme}.acme.internal/vhost\n", p)
    p = g.pw(14)
    add("jdbc-mysql-userinfo", f"jdbc:mysql://app:{p}@db.acme.io:3306/shop?useSSL=true\n", p)
    p2 = g.pw(14)
    add("socks5-proxy-userinfo", f"ALL_PROXY=socks5h://ci:{p2}@10.1.2.3:1080\n", p2)

    # ---- framework and tool configuration
    skb = g.s(HEX, 128)
    add("rails-credentials-show",
        f"$ bin/rails credentials:show\nsecret_key_base: {skb}\naws:\n  access_key_id: AKIA{g.s('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}\n  secret_access_key: {g.mixed(40)}\n",
        skb)
    dj = "django-insecure-" + g.s(DJANGO, 50)
    add("django-secret-key-insecure", f"# SECURITY WARNING: keep the secret key used in production secret!\nSECRET_KEY = '{dj}'\n", dj)
    dj2 = g.s(DJANGO, 50)
    add("django-secret-key-env", f"DJANGO_SECRET_KEY=\"{dj2}\"\n", dj2)
    lk = "base64:" + g.b64(32)
    add("laravel-app-key", f"APP_NAME=Shop\nAPP_ENV=production\nAPP_KEY={lk}\nAPP_DEBUG=false\n", lk[7:])
    sym = g.s(HEX, 32)
    add("symfony-app-secret", f"###> symfony/framework-bundle ###\nAPP_ENV=prod\nAPP_SECRET={sym}\n###< symfony/framework-bundle ###\n", sym)
    nas = g.b64(32)
    add("nextauth-secret", f"NEXTAUTH_URL=https://shop.acme.io\nNEXTAUTH_SECRET={nas}\n", nas)
    jwts = g.mixed(64)
    add("jwt-secret-yaml", f"auth:\n  jwt:\n    secret: {jwts}\n    expiresIn: 1h\n", jwts)
    whs = g.mixed(40)
    add("github-webhook-secret", f"GITHUB_WEBHOOK_SECRET={whs}\n", whs)
    add("tomcat-keystore-pass",
        f"<Connector port=\"8443\" protocol=\"org.apache.coyote.http11.Http11NioProtocol\" SSLEnabled=\"true\"\n  keystoreFile=\"conf/acme.jks\" keystorePass=\"{pw}\" />\n", pw)
    add("spring-ssl-keystore-password", f"server.ssl.key-store=classpath:acme.p12\nserver.ssl.key-store-password={pw}\nserver.ssl.key-alias=acme\n", pw)
    add("ansible-inventory-inline",
        f"[web]\nweb1 ansible_host=10.0.0.5 ansible_user=deploy ansible_password={pw} ansible_become_pass={pw[::-1]}\n", pw, pw[::-1])
    add("yaml-anchor-password", f"x-db: &db\n  POSTGRES_USER: app\n  POSTGRES_PASSWORD: &pgpw {pw}\nservices:\n  api:\n    environment:\n      DB_PASS: *pgpw\n", pw)
    add("hcl-provider-block",
        f"provider \"vault\" {{\n  address = \"https://vault.acme.io\"\n  token   = \"{tok}\"\n}}\n", tok)
    add("tfvars-map-password",
        f"db_creds = {{\n  username = \"app\"\n  password = \"{pw}\"\n}}\n", pw)
    rt = "0.A" + g.b64url(700)
    add("azure-cli-token-cache",
        json.dumps([{"tokenType": "Bearer", "expiresIn": 3599, "_clientId": "04b07795-8ddb-461a-bbee-02f9e1bf7b46",
                     "accessToken": g.jwt({"aud": "https://management.core.windows.net/", "iss": "https://sts.windows.net/x/"}), "refreshToken": rt}], indent=2),
        rt[:80])
    aoa = "aoaAAAAAG" + g.b64url(300)
    aor = "aorAAAAAG" + g.b64url(300)
    add("aws-sso-cache-json",
        json.dumps({"startUrl": "https://acme.awsapps.com/start", "region": "eu-west-1", "accessToken": aoa,
                    "expiresAt": "2026-11-30T18:00:00Z", "clientId": g.b64url(40), "clientSecret": g.jwt({"serialized": "x"}), "refreshToken": aor}),
        aoa[:80], aor[:80])
    kc_sec = g.mixed(32)
    kc_rt = g.mixed(80, URLSAFE)
    add("kubeconfig-auth-provider",
        f"users:\n- name: oidc\n  user:\n    auth-provider:\n      config:\n        client-id: kubernetes\n        client-secret: {kc_sec}\n        idp-issuer-url: https://sso.acme.io/realms/k8s\n        refresh-token: {kc_rt}\n      name: oidc\n",
        kc_sec, kc_rt)
    add("gradle-init-credentials",
        f"repositories {{\n    maven {{\n        url = uri(\"https://maven.acme.io/releases\")\n        credentials {{\n            username = \"ci\"\n            password = \"{pw}\"\n        }}\n    }}\n}}\n", pw)
    add("docker-compose-env-list",
        f"services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_PASSWORD={pw}\n      - MINIO_ROOT_PASSWORD={pw[::-1]}\n", pw, pw[::-1])

    # ---- code literals
    add("java-setter-password", f"dataSource.setUsername(\"app\");\ndataSource.setPassword(\"{pw}\");\n", pw)
    add("java-password-authentication",
        f"return new PasswordAuthentication(\"mailer\", \"{pw}\".toCharArray());\n", pw)
    add("csharp-network-credential", f"client.Credentials = new NetworkCredential(\"svc-smtp\", \"{pw}\");\n", pw)
    add("csharp-client-secret-prop", f"options.ClientId = \"acme-web\";\noptions.ClientSecret = \"{csec}\";\n", csec)
    add("python-smtp-login", f"server = smtplib.SMTP_SSL('smtp.acme.io', 465)\nserver.login('noreply@acme.io', '{pw}')\n", pw)
    add("python-psycopg-kwargs", f"conn = psycopg2.connect(host='db', dbname='app', user='app', password='{pw}')\n", pw)
    add("python-setdefault-env", f"os.environ.setdefault('STRIPE_WEBHOOK_SECRET', '{whs}')\n", whs)
    add("rust-bearer-auth", f"let resp = client.get(url).bearer_auth(\"{bearer}\").send().await?;\n", bearer)
    add("rust-basic-auth", f"let resp = client.get(url).basic_auth(\"ci\", Some(\"{pw}\")).send()?;\n", pw)
    add("go-struct-password-field", f"cfg := &mysql.Config{{\n\tUser:   \"app\",\n\tPasswd: \"{pw}\",\n\tNet:    \"tcp\",\n}}\n", pw)
    add("go-set-basic-auth", f"req.SetBasicAuth(\"ci\", \"{pw}\")\n", pw)
    add("php-pdo-constructor", f"$pdo = new PDO('mysql:host=db;dbname=shop', 'root', '{pw}');\n", pw)
    add("ruby-octokit-token", f"client = Octokit::Client.new(access_token: '{tok}')\n", tok)
    add("swift-set-value-bearer", f"request.setValue(\"Bearer {bearer}\", forHTTPHeaderField: \"Authorization\")\n", bearer)
    add("kotlin-header-bearer", f"val req = Request.Builder().url(url).header(\"Authorization\", \"Bearer {bearer}\").build()\n", bearer)
    add("js-pg-pool-config", f"const pool = new Pool({{ host: 'db', user: 'app', password: '{pw}', database: 'app' }});\n", pw)
    add("js-axios-api-key-header", f"await axios.get(url, {{ headers: {{ 'x-api-key': '{apikey2}' }} }});\n", apikey2)

    # ---- logs and stack traces
    add("hikari-log-password",
        f"2026-11-30 10:00:01.123  INFO 1 --- [main] com.zaxxer.hikari.HikariConfig : password................................{pw}\n", pw)
    add("urllib3-debug-query-token",
        f"DEBUG:urllib3.connectionpool:https://api.acme.io:443 \"GET /v1/items?token={tok}&page=2 HTTP/1.1\" 200 1532\n", tok)
    add("sqlalchemy-error-dsn",
        f"sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect to server\n[SQL: SELECT 1]\nEngine(postgresql+psycopg2://app:{pw}@db.acme.internal:5432/app)\n", pw)
    add("nginx-access-log-token",
        f"203.0.113.9 - - [30/Nov/2026:10:00:00 +0000] \"GET /api/download?file=r.pdf&signature={sig}&expires=1764500000 HTTP/1.1\" 200 5120\n", sig)

    # ---- key material and second factors
    wg = g.b64(32)
    psk = g.b64(32)
    add("wireguard-conf", f"$ sudo cat /etc/wireguard/wg0.conf\n[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {wg}\n\n[Peer]\nPublicKey = {g.b64(32)}\nPresharedKey = {psk}\nEndpoint = vpn.acme.io:51820\n", wg, psk)
    ovpn = [g.s(HEX, 32) for _ in range(16)]
    add("openvpn-static-key",
        "<tls-crypt>\n#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n" + "\n".join(ovpn) + "\n-----END OpenVPN Static key V1-----\n</tls-crypt>\n",
        ovpn[1], ovpn[14])
    totp = g.s(B32, 32)
    add("otpauth-url", f"otpauth://totp/ACME:ci-bot?secret={totp}&issuer=ACME&algorithm=SHA1&digits=6&period=30\n", totp)
    totp2 = g.s(B32, 32)
    add("totp-secret-env", f"TOTP_SECRET={totp2}\n", totp2)
    totp3 = g.s(B32, 32)
    add("totp-setup-key-grouped", f"Can't scan? Enter this setup key: {' '.join(totp3[i:i + 4] for i in range(0, 32, 4))}\n",
        " ".join(totp3[i:i + 4] for i in range(0, 32, 4)))
    codes = [g.s(HEX[:10] + "abcdef", 5) + "-" + g.s(HEX, 5) for _ in range(8)]
    add("github-recovery-codes", "github-recovery-codes.txt\n" + "\n".join(codes) + "\n", codes[0], codes[5])

    # ---- password-manager CLI output
    add("op-read-output", f"$ op read \"op://Private/prod-db/password\"\n{pw}\n", pw)
    add("bw-get-password-output", f"$ bw get password github.com\n{pw[::-1]}\n", pw[::-1])
    p3 = g.pw(20)
    add("pass-show-output", f"$ pass show acme/smtp\n{p3}\nlogin: noreply@acme.io\n", p3)
    add("op-item-get-fields",
        f"$ op item get 'Prod DB' --fields label=username,label=password\napp,{p3}\n", p3)
    add("vault-kv-get-table",
        f"$ vault kv get secret/app\n====== Data ======\nKey         Value\n---         -----\napi_key     {api_lit}\npassword    {pw}\n",
        api_lit, pw)

    # ---- people: e-mails and home paths in odd spellings
    add("email-json-unicode-escape", f"{{\"author\": \"{user}\\u0040acme-corp.com\"}}\n", f"{user}\\u0040acme-corp.com")
    add("email-html-entity", f"<a href=\"mailto:{user}&#64;acme-corp.com\">{user}&#64;acme-corp.com</a>\n", f"{user}&#64;acme-corp.com")
    add("email-uppercase", f"RCPT TO:<{user.upper()}@ACME-CORP.COM>\n", f"{user.upper()}@ACME-CORP.COM")
    add("email-quoted-local", f"From: \"{user} at work\" <\"{user}.x\"@acme-corp.com>\n", f"\"{user}.x\"@acme-corp.com")
    add("path-windows-long-prefix", f"\\\\?\\C:\\Users\\{user}\\source\\repos\\api\\bin\\Debug\\api.dll\n", user)
    add("path-wsl-localhost", f"\\\\wsl.localhost\\Ubuntu\\home\\{user}\\src\\api\\package.json\n", user)
    add("path-macos-volume", f"/Volumes/Macintosh HD/Users/{user}/Library/Logs/app.log\n", user)
    add("path-file-url-linux", f"Open file:///home/{user}/src/api/coverage/index.html in a browser\n", user)
    add("path-file-url-windows", f"file:///C:/Users/{user}/Desktop/report.html\n", user)
    add("path-json-escaped-slash", f"{{\"cwd\":\"\\/home\\/{user}\\/src\\/api\"}}\n", user)
    add("path-cygdrive", f"/cygdrive/c/Users/{user}/AppData/Local/Temp\n", user)
    add("path-documents-and-settings", f"C:\\Documents and Settings\\{user}\\Application Data\\app.ini\n", user)
    add("path-double-escaped-json", json.dumps({"output": json.dumps({"cwd": f"C:\\Users\\{user}\\dev"})}), user)
    add("path-home-env", f"HOME=/home/{user}\nUSERPROFILE=C:\\Users\\{user}\n", user)
    return out


def negatives(seed: int = 14) -> list[tuple[str, str]]:
    """Shapes near the positives that must stay byte for byte: references to secrets (not values),
    public material, digests, ids, and outputs that are no credential."""
    g = Gen(seed + 1000)
    sha = g.s(HEX, 40)
    return [
        ("gha-secret-reference", "      - run: echo \"$TOKEN\" | docker login ghcr.io -u ci --password-stdin\n        env:\n          TOKEN: ${{ secrets.GHCR_TOKEN }}\n"),
        ("kubectl-from-file", "$ kubectl create secret generic tls --from-file=tls.crt=cert.pem --from-file=tls.key=key.pem\n"),
        ("helm-password-env-ref", "$ helm repo add acme https://charts.acme.io --username ci --password \"$HELM_PASSWORD\"\n"),
        ("curl-password-prompt", "$ curl -u ci https://nexus.acme.io/\nEnter host password for user 'ci':\n"),
        ("op-read-reference", "DB_PASSWORD=op://Private/prod-db/password\n"),
        ("hub-signature-header", f"> X-GitHub-Delivery: {g.uuid()}\n> X-Hub-Signature-256: sha256={g.s(HEX, 64)}\n"),
        ("git-log-sha", f"commit {sha}\nMerge: {sha[:7]} {sha[7:14]}\n"),
        ("lockfile-integrity", f"  integrity sha512-{g.b64(64)}\n"),
        ("uuid-request-id", f"< x-request-id: {g.uuid()}\n"),
        ("wireguard-public-only", f"[Peer]\nPublicKey = {g.b64(32)}\nAllowedIPs = 10.8.0.0/24\n"),
        ("ansible-vault-encrypted", "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(g.s("0123456789", 80) for _ in range(3)) + "\n"),
        ("otpauth-docs-placeholder", "otpauth://totp/{issuer}:{account}?secret={secret}&issuer={issuer}\n"),
        ("path-users-shared", "/Users/Shared/Jenkins/workspace\n"),
        ("set-cookie-no-session", "< set-cookie: theme=dark; Path=/; SameSite=Lax\n< set-cookie: lang=en-GB; Path=/\n"),
        ("url-query-code-sample", "GET /search?q=password+reset&page=2\n"),
        ("pass-ls-tree", "$ pass ls\nPassword Store\n|-- acme\n|   |-- smtp\n|   `-- prod-db\n"),
        ("printenv-harmless", "$ printenv | grep -i key\nKEYBOARD_LAYOUT=fr\nSSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.42\n"),
    ]
