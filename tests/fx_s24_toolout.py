"""s24 recall audit: credentials as command-line tools and HTTP clients print them, inside
coding-agent transcripts (a Bash tool_result, a Read of a config file, an assistant quoting it).

Data, not tests: `SHAPES` is one list of shape builders. Each takes a seeded RNG and returns a
`Shape`: the text a tool prints (curl -v, HAR, httpie, docker, kubectl, helm, terraform, aws, gcloud,
az, vault, heroku, vercel, supabase, firebase, stripe, env dumps, git/npm/pip config, .netrc,
.pgpass, ps and /proc cmdlines, CI logs, openssl, JDBC/ODBC strings, stack traces, requests logs,
Postman, Insomnia, REST Client .http files), the secrets planted in it and the words around them
that must stay (hosts, service users, header names). Secret bodies are drawn at test time from each
format's alphabet and length; no provider token literal sits in the repository.

`KEPT` is the other half: look-alikes that must come out byte for byte (ids, digests, csrf tokens,
masks, references, placeholders)."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote

HEX = "0123456789abcdef"
LOW = string.ascii_lowercase
UP = string.ascii_uppercase
NUM = string.digits
ALNUM = string.ascii_letters + NUM
LOWNUM = LOW + NUM
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
B32U = UP + "234567"


@dataclass(frozen=True)
class Shape:
    name: str
    text: str
    secrets: list[str]
    keep: list[str] = field(default_factory=list)


class Draw:
    """Secret bodies from a format's alphabet and length."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def run(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def pw(self, n: int = 18) -> str:
        """A generated password: letters and digits with a few of the symbols every config format
        takes unquoted (no quote, #, @, $, & or space)."""
        chars = [self.rng.choice(ALNUM) for _ in range(n)]
        for i in self.rng.sample(range(1, n - 1), 2):
            chars[i] = self.rng.choice("-_.!")
        return "".join(chars)

    def alnum(self, n: int) -> str:
        return self.run(ALNUM, n)

    def hex(self, n: int) -> str:
        return self.run(HEX, n)

    def b64_bytes(self, n: int) -> str:
        return base64.b64encode(self.rng.randbytes(n)).decode()

    def b64url_bytes(self, n: int) -> str:
        return base64.urlsafe_b64encode(self.rng.randbytes(n)).decode().rstrip("=")

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def jwt(self, alg: str = "RS256", **claims: object) -> str:
        head = {"alg": alg, "typ": "JWT", "kid": self.hex(16)}
        body = {"iss": "https://auth.acme-internal.io/", "sub": self.uuid(), "iat": 1767225600,
                "exp": 1767229200, "jti": self.hex(24), **claims}
        enc = [base64.urlsafe_b64encode(json.dumps(p, separators=(",", ":")).encode()).decode().rstrip("=")
               for p in (head, body)]
        return ".".join(enc + [self.b64url_bytes(256 if alg.startswith("RS") else 32)])

    def aws_id(self, prefix: str = "AKIA") -> str:
        return prefix + self.run(B32U, 16)

    def aws_secret(self) -> str:
        return self.run(B64, 40)

    def aws_session(self) -> str:
        return "IQoJb3JpZ2luX2Vj" + self.run(B64, 340) + "="

    def ghp(self, prefix: str = "ghp_") -> str:
        return prefix + self.alnum(36)

    def laravel_cookie(self) -> str:
        doc = {"iv": self.b64_bytes(16), "value": self.b64_bytes(48), "mac": self.hex(64), "tag": ""}
        return quote(base64.b64encode(json.dumps(doc, separators=(",", ":")).encode()).decode(), safe="")

    def basic(self, user: str, password: str) -> str:
        return base64.b64encode(f"{user}:{password}".encode()).decode()


Builder = Callable[[Draw], Shape]
SHAPES: list[Builder] = []


def shape(fn: Builder) -> Builder:
    SHAPES.append(fn)
    return fn


# ------------------------------------------------------------------ HTTP clients

@shape
def curl_verbose_bearer(d: Draw) -> Shape:
    tok = d.run(URLSAFE, 43)
    text = ("*   Trying 10.20.0.15:443...\n* Connected to api.acme-internal.io (10.20.0.15) port 443\n"
            "> GET /v1/projects HTTP/2\n> Host: api.acme-internal.io\n> User-Agent: curl/8.5.0\n"
            f"> Authorization: Bearer {tok}\n> Accept: application/json\n>\n< HTTP/2 200\n"
            "< content-type: application/json\n")
    return Shape("curl-verbose-bearer", text, [tok], ["api.acme-internal.io", "Authorization: Bearer", "User-Agent"])


@shape
def curl_verbose_basic(d: Draw) -> Shape:
    pw = d.pw()
    cred = d.basic("deploy-bot", pw)
    text = ("* Server auth using Basic with user 'deploy-bot'\n> POST /api/v4/hooks HTTP/1.1\n"
            f"> Host: ci.acme-internal.io\n> Authorization: Basic {cred}\n> Content-Length: 52\n")
    return Shape("curl-verbose-basic", text, [cred], ["deploy-bot", "ci.acme-internal.io", "Authorization: Basic"])


@shape
def curl_verbose_proxy_auth(d: Draw) -> Shape:
    cred = d.basic("squid-user", d.pw())
    text = (f"> CONNECT registry.npmjs.org:443 HTTP/1.1\n> Host: registry.npmjs.org:443\n"
            f"> Proxy-Authorization: Basic {cred}\n> User-Agent: curl/8.5.0\n"
            "> Proxy-Connection: Keep-Alive\n< HTTP/1.1 200 Connection established\n")
    return Shape("curl-verbose-proxy-auth", text, [cred], ["Proxy-Authorization", "registry.npmjs.org"])


@shape
def curl_verbose_set_cookie(d: Draw) -> Shape:
    sid = d.run(LOWNUM, 32)
    text = ("< HTTP/1.1 302 Found\n< Location: /dashboard\n"
            f"< Set-Cookie: sessionid={sid}; expires=Thu, 01 Jan 2026 00:00:00 GMT; HttpOnly; Path=/; SameSite=Lax\n"
            "< Set-Cookie: csrftoken=JqX2mVbL9pR4tY7uIoAs3dF6gH1jK8lZ; Path=/\n")
    return Shape("curl-verbose-set-cookie", text, [sid], ["Set-Cookie", "HttpOnly", "csrftoken"])


@shape
def curl_copy_as_curl_cookie(d: Draw) -> Shape:
    lv = d.laravel_cookie()
    text = ("curl 'https://app.acme-internal.io/api/user' \\\n  -H 'accept: application/json' \\\n"
            f"  -H 'cookie: _ga=GA1.1.1234567890.1767225600; laravel_session={lv}' \\\n"
            "  -H 'x-requested-with: XMLHttpRequest' \\\n  --compressed\n")
    return Shape("copy-as-curl-cookie", text, [lv], ["app.acme-internal.io", "laravel_session", "x-requested-with"])


@shape
def curl_cookie_flag(d: Draw) -> Shape:
    sid = d.alnum(40)
    text = f"$ curl -s -b 'connect.sid=s%3A{sid}' https://admin.acme-internal.io/api/me\n{{\"user\":\"ops\"}}\n"
    return Shape("curl-cookie-flag", text, [sid], ["admin.acme-internal.io", "connect.sid"])


@shape
def httpie_verbose(d: Draw) -> Shape:
    tok = d.ghp("gho_")
    text = ("$ http -v GET https://api.github.com/user \"Authorization:token " + tok + "\"\n"
            "GET /user HTTP/1.1\nAccept: */*\nAccept-Encoding: gzip, deflate\n"
            f"Authorization: token {tok}\nHost: api.github.com\nUser-Agent: HTTPie/3.2.2\n\n"
            "HTTP/1.1 200 OK\nX-GitHub-Request-Id: C0A8:3B2E:1F4D5A:2E6B7C:6789ABCD\n")
    return Shape("httpie-verbose", text, [tok], ["api.github.com", "HTTPie/3.2.2", "X-GitHub-Request-Id"])


@shape
def httpie_session_file(d: Draw) -> Shape:
    pw, sid = d.pw(), d.alnum(32)
    doc = {"__meta__": {"about": "HTTPie session file", "httpie": "3.2.2"},
           "auth": {"type": "basic", "raw_auth": None, "username": "svc-reporting", "password": pw},
           "cookies": [{"name": "sessionid", "value": sid, "domain": "", "path": "/", "secure": False}],
           "headers": [{"name": "Accept", "value": "application/json"}]}
    return Shape("httpie-session-file", json.dumps(doc, indent=4), [pw, sid], ["svc-reporting", "sessionid", "Accept"])


@shape
def har_cookie_header(d: Draw) -> Shape:
    lv = d.laravel_cookie()
    entry = {"request": {"method": "GET", "url": "https://shop.acme-internal.io/cart", "httpVersion": "HTTP/1.1",
                         "headers": [{"name": "Host", "value": "shop.acme-internal.io"},
                                     {"name": "Cookie", "value": f"laravel_session={lv}"},
                                     {"name": "Accept", "value": "text/html"}]}}
    return Shape("har-cookie-header", json.dumps(entry, indent=2), [lv], ["shop.acme-internal.io", "Cookie", "laravel_session"])


@shape
def har_cookie_header_h2(d: Draw) -> Shape:
    lv, xs = d.laravel_cookie(), d.laravel_cookie()
    entry = {"request": {"method": "POST", "url": "https://shop.acme-internal.io/checkout", "httpVersion": "h2",
                         "headers": [{"name": ":authority", "value": "shop.acme-internal.io"},
                                     {"name": "cookie", "value": f"XSRF-TOKEN={xs}; acme_session={lv}"}]}}
    # the XSRF-TOKEN cookie is a csrf token (fine to keep); only the session is planted
    return Shape("har-cookie-header-h2", json.dumps(entry, indent=2), [lv], [":authority", "acme_session", "XSRF-TOKEN"])


@shape
def har_set_cookie(d: Draw) -> Shape:
    sid = d.run(URLSAFE, 48)
    entry = {"response": {"status": 200, "statusText": "OK", "headers": [
        {"name": "content-type", "value": "application/json"},
        {"name": "set-cookie", "value": f"__Host-sid={sid}; Path=/; Secure; HttpOnly; SameSite=Strict"}]}}
    return Shape("har-set-cookie", json.dumps(entry, indent=2), [sid], ["set-cookie", "__Host-sid", "SameSite=Strict"])


@shape
def har_set_cookie_opaque_name(d: Draw) -> Shape:
    v = d.run(URLSAFE, 64)
    entry = {"response": {"status": 200, "headers": [
        {"name": "Set-Cookie", "value": f"_gitlab_prod={v}; path=/; secure; HttpOnly"}]}}
    return Shape("har-set-cookie-opaque-name", json.dumps(entry, indent=2), [v], ["Set-Cookie", "_gitlab_prod"])


@shape
def har_authorization(d: Draw) -> Shape:
    jwt = d.jwt()
    entry = {"request": {"method": "GET", "url": "https://graph.acme-internal.io/v1.0/me",
                         "headers": [{"name": "authorization", "value": f"Bearer {jwt}"},
                                     {"name": "accept", "value": "application/json"}]}}
    return Shape("har-authorization", json.dumps(entry, indent=2), [jwt], ["graph.acme-internal.io", "authorization"])


@shape
def har_basic_authorization(d: Draw) -> Shape:
    cred = d.basic("jenkins", d.pw())
    entry = {"request": {"headers": [{"name": "Authorization", "value": f"Basic {cred}"},
                                     {"name": "Host", "value": "jenkins.acme-internal.io"}]}}
    return Shape("har-basic-authorization", json.dumps(entry), [cred], ["jenkins.acme-internal.io", "Authorization"])


@shape
def har_proxy_authorization(d: Draw) -> Shape:
    cred = d.basic("proxyuser", d.pw())
    entry = {"request": {"headers": [{"name": "Proxy-Authorization", "value": f"Basic {cred}"}]}}
    return Shape("har-proxy-authorization", json.dumps(entry, indent=2), [cred], ["Proxy-Authorization"])


@shape
def har_cookies_array(d: Draw) -> Shape:
    sess, rem = d.alnum(40), d.run(LOWNUM, 48)
    entry = {"request": {"method": "GET", "url": "https://wiki.acme-internal.io/",
                         "cookies": [{"name": "session", "value": sess, "path": "/", "httpOnly": True},
                                     {"name": "remember_token", "value": rem},
                                     {"name": "theme", "value": "dark"}]}}
    return Shape("har-cookies-array", json.dumps(entry, indent=2), [sess, rem], ["wiki.acme-internal.io", "theme", "dark"])


@shape
def har_cookies_array_opaque(d: Draw) -> Shape:
    v = d.run(URLSAFE, 44)
    entry = {"response": {"cookies": [{"name": "__Secure-3PSID", "value": v, "domain": ".acme-internal.io",
                                       "secure": True, "httpOnly": True}]}}
    return Shape("har-cookies-array-opaque", json.dumps(entry, indent=2), [v], ["__Secure-3PSID", ".acme-internal.io"])


@shape
def har_query_string(d: Draw) -> Shape:
    key = d.hex(32)
    entry = {"request": {"method": "GET",
                         "url": f"https://api.openweathermap.org/data/2.5/weather?q=Lisbon&units=metric&appid={key}",
                         "queryString": [{"name": "q", "value": "Lisbon"}, {"name": "units", "value": "metric"},
                                         {"name": "appid", "value": key}]}}
    return Shape("har-query-string", json.dumps(entry, indent=2), [key], ["api.openweathermap.org", "Lisbon", "appid"])


@shape
def copy_as_fetch(d: Draw) -> Shape:
    tok = d.jwt("HS256")
    text = ('fetch("https://api.acme-internal.io/graphql", {\n  "headers": {\n    "accept": "*/*",\n'
            f'    "authorization": "Bearer {tok}",\n    "content-type": "application/json"\n  }},\n'
            '  "body": "{\\"query\\":\\"{ me { id } }\\"}",\n  "method": "POST"\n});\n')
    return Shape("copy-as-fetch", text, [tok], ["api.acme-internal.io", "authorization", "content-type"])


# ------------------------------------------------------------------ keys in query strings

@shape
def query_appid(d: Draw) -> Shape:
    key = d.hex(32)
    text = (f"$ curl -s 'https://api.openweathermap.org/data/2.5/weather?q=Paris&appid={key}' | jq .main\n"
            '{\n  "temp": 284.2,\n  "humidity": 81\n}\n')
    return Shape("query-appid", text, [key], ["api.openweathermap.org", "appid", "humidity"])


@shape
def query_api_key(d: Draw) -> Shape:
    key = d.alnum(32)
    text = f'INFO:httpx:HTTP Request: GET https://api.nasa-mirror.acme-internal.io/planetary/apod?api_key={key}&count=3 "HTTP/1.1 200 OK"\n'
    return Shape("query-api-key", text, [key], ["api.nasa-mirror.acme-internal.io", "count=3"])


@shape
def query_apikey(d: Draw) -> Shape:
    key = d.run(UP + NUM, 16)
    text = f"DEBUG:urllib3.connectionpool:https://www.alphavantage.co:443 \"GET /query?function=TIME_SERIES_DAILY&symbol=IBM&apikey={key} HTTP/1.1\" 200 None\n"
    return Shape("query-apikey", text, [key], ["www.alphavantage.co", "symbol=IBM"])


@shape
def query_key_generic(d: Draw) -> Shape:
    key = d.hex(32)
    text = f"GET https://api.geo.acme-internal.io/v1/reverse?lat=38.72&lon=-9.14&key={key}&format=json\n"
    return Shape("query-key-hex", text, [key], ["api.geo.acme-internal.io", "format=json"])


@shape
def query_key_google(d: Draw) -> Shape:
    key = "AIza" + d.run(URLSAFE, 35)
    text = f"Fetching https://maps.googleapis.com/maps/api/geocode/json?address=Lisbon&key={key}\n"
    return Shape("query-key-google", text, [key], ["maps.googleapis.com", "address=Lisbon"])


@shape
def query_access_token(d: Draw) -> Shape:
    tok = "EAA" + d.alnum(180)
    text = f"127.0.0.1 - - [01/Jan/2026:10:00:00 +0000] \"GET /webhook?access_token={tok}&fields=id,name HTTP/1.1\" 200 512\n"
    return Shape("query-access-token", text, [tok], ["fields=id,name", "GET /webhook"])


@shape
def query_client_secret(d: Draw) -> Shape:
    sec = d.run(URLSAFE, 40)
    text = ("POST https://login.acme-internal.io/oauth/token?grant_type=client_credentials"
            f"&client_id=reporting-svc&client_secret={sec}\n")
    return Shape("query-client-secret", text, [sec], ["login.acme-internal.io", "client_id=reporting-svc"])


@shape
def query_auth_firebase(d: Draw) -> Shape:
    sec = d.alnum(40)
    text = f"$ curl 'https://acme-prod-default-rtdb.firebaseio.com/users.json?auth={sec}&shallow=true'\n{{\"u1\":true}}\n"
    return Shape("query-auth-firebase", text, [sec], ["acme-prod-default-rtdb.firebaseio.com", "shallow=true"])


@shape
def query_sig(d: Draw) -> Shape:
    sig = quote(d.b64_bytes(32), safe="")
    text = ("azcopy copy 'https://acmebackups.blob.core.windows.net/db/dump.sql?sv=2022-11-02&ss=b&srt=co"
            f"&sp=rl&se=2026-01-02T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig={sig}' ./dump.sql\n")
    return Shape("query-sig-sas", text, [sig], ["acmebackups.blob.core.windows.net", "dump.sql"])


@shape
def query_signature_webhook(d: Draw) -> Shape:
    sig = d.hex(64)
    text = f"POST https://hooks.acme-internal.io/deploy?project=api&signature={sig} -> 202 Accepted\n"
    return Shape("query-signature", text, [sig], ["hooks.acme-internal.io", "project=api"])


@shape
def query_token_wss(d: Draw) -> Shape:
    tok = d.alnum(48)
    text = f"$ wscat -c 'wss://stream.acme-internal.io/v2/events?token={tok}'\nConnected (press CTRL+C to quit)\n"
    return Shape("query-token-wss", text, [tok], ["stream.acme-internal.io", "Connected"])


# ------------------------------------------------------------------ containers, k8s, helm

@shape
def docker_inspect_env(d: Draw) -> Shape:
    pw, key = d.pw(), d.alnum(40)
    doc = [{"Id": d.hex(64), "Name": "/api-1", "Config": {"Hostname": "a1b2c3d4e5f6", "Env": [
        f"POSTGRES_PASSWORD={pw}", f"STRIPE_SECRET=sk_live_{key}", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin",
        "LANG=C.UTF-8"], "Image": "registry.acme-internal.io/api:1.42.0"}}]
    return Shape("docker-inspect-env", json.dumps(doc, indent=4), [pw, key], ["registry.acme-internal.io", "POSTGRES_PASSWORD", "LANG=C.UTF-8"])


@shape
def docker_inspect_cmd(d: Draw) -> Shape:
    pw = d.pw()
    doc = [{"Name": "/cache", "Config": {"Cmd": ["redis-server", "--appendonly", "yes", "--requirepass", pw],
                                         "Image": "redis:7.2"}}]
    return Shape("docker-inspect-cmd", json.dumps(doc, indent=4), [pw], ["redis-server", "--requirepass", "redis:7.2"])


@shape
def docker_compose_config(d: Draw) -> Shape:
    pw, kb = d.pw(), d.hex(128)
    text = ("name: shop\nservices:\n  web:\n    environment:\n"
            f"      DATABASE_URL: postgres://shop:{pw}@db:5432/shop\n      RAILS_ENV: production\n"
            f"      SECRET_KEY_BASE: {kb}\n    image: registry.acme-internal.io/shop:2.3.1\n")
    return Shape("docker-compose-config", text, [pw, kb], ["RAILS_ENV: production", "registry.acme-internal.io"])


@shape
def docker_compose_list_env(d: Draw) -> Shape:
    pw = d.pw()
    text = f"services:\n  db:\n    image: mysql:8.4\n    environment:\n      - MYSQL_ROOT_PASSWORD={pw}\n      - MYSQL_DATABASE=wordpress\n"
    return Shape("docker-compose-list-env", text, [pw], ["MYSQL_DATABASE=wordpress", "mysql:8.4"])


@shape
def docker_run_e(d: Draw) -> Shape:
    pw, tok = d.pw(), d.alnum(32)
    text = f"$ docker run -d --name pg -e POSTGRES_USER=app -e POSTGRES_PASSWORD={pw} -e API_TOKEN={tok} -p 5432:5432 postgres:16\n{d.hex(64)}\n"
    return Shape("docker-run-e", text, [pw, tok], ["POSTGRES_USER=app", "postgres:16"])


@shape
def kubectl_secret_yaml(d: Draw) -> Shape:
    pw = d.pw()
    b = base64.b64encode(pw.encode()).decode()
    text = ("apiVersion: v1\ndata:\n"
            f"  password: {b}\n  username: {base64.b64encode(b'orders').decode()}\n"
            "kind: Secret\nmetadata:\n  name: orders-db\n  namespace: prod\ntype: Opaque\n")
    return Shape("kubectl-secret-yaml", text, [b], ["orders-db", "namespace: prod", "type: Opaque"])


@shape
def kubectl_secret_json(d: Draw) -> Shape:
    tok = d.alnum(40)
    b = base64.b64encode(tok.encode()).decode()
    doc = {"apiVersion": "v1", "data": {"api-token": b, "region": base64.b64encode(b"eu-west-1").decode()},
           "kind": "Secret", "metadata": {"name": "billing-api", "namespace": "payments"}, "type": "Opaque"}
    return Shape("kubectl-secret-json", json.dumps(doc, indent=4), [b], ["billing-api", "payments"])


@shape
def kubectl_describe_secret(d: Draw) -> Shape:
    jwt = d.jwt(**{"kubernetes.io/serviceaccount/namespace": "ci"})
    text = ("Name:         ci-deployer-token\nNamespace:    ci\nType:  kubernetes.io/service-account-token\n\n"
            "Data\n====\nca.crt:     1099 bytes\nnamespace:  2 bytes\n"
            f"token:      {jwt}\n")
    return Shape("kubectl-describe-secret", text, [jwt], ["ci-deployer-token", "kubernetes.io/service-account-token"])


@shape
def kubectl_describe_pod_env(d: Draw) -> Shape:
    pw = d.pw()
    text = ("    Environment:\n      DB_HOST:      orders-db.prod.svc.cluster.local\n"
            f"      DB_PASSWORD:  {pw}\n      LOG_LEVEL:    info\n    Mounts:\n")
    return Shape("kubectl-describe-pod-env", text, [pw], ["orders-db.prod.svc.cluster.local", "LOG_LEVEL:    info"])


@shape
def kubectl_config_view_raw(d: Draw) -> Shape:
    key = base64.b64encode(b"-----BEGIN RSA PRIVATE KEY-----\n" + base64.b64encode(d.rng.randbytes(600))
                           + b"\n-----END RSA PRIVATE KEY-----\n").decode()
    tok = d.run(LOWNUM, 6) + "." + d.run(LOWNUM, 16)
    text = ("apiVersion: v1\nclusters:\n- cluster:\n    server: https://k8s.acme-internal.io:6443\n  name: prod\n"
            "users:\n- name: admin\n  user:\n"
            f"    client-key-data: {key}\n- name: bootstrap\n  user:\n    token: {tok}\n")
    return Shape("kubectl-config-view-raw", text, [key, tok], ["k8s.acme-internal.io:6443", "client-key-data"])


@shape
def helm_get_values(d: Draw) -> Shape:
    pw, pw2 = d.pw(), d.pw(22)
    text = ("USER-SUPPLIED VALUES:\npostgresql:\n  auth:\n"
            f"    password: {pw}\n    postgresPassword: {pw2}\n    username: keycloak\n")
    return Shape("helm-get-values", text, [pw, pw2], ["USER-SUPPLIED VALUES", "username: keycloak"])


@shape
def helm_set(d: Draw) -> Shape:
    pw, tok = d.pw(), d.alnum(32)
    text = (f"$ helm upgrade --install api ./charts/api --set db.password={pw} "
            f"--set-string slack.webhookToken={tok} --namespace prod\nRelease \"api\" has been upgraded.\n")
    return Shape("helm-set", text, [pw, tok], ["./charts/api", "Release \"api\" has been upgraded"])


# ------------------------------------------------------------------ clouds

@shape
def terraform_output_json(d: Draw) -> Shape:
    pw = d.pw(24)
    doc = {"db_endpoint": {"sensitive": False, "type": "string", "value": "orders.c9akciq32.eu-west-1.rds.amazonaws.com"},
           "db_password": {"sensitive": True, "type": "string", "value": pw}}
    return Shape("terraform-output-json", json.dumps(doc, indent=2), [pw], ["orders.c9akciq32.eu-west-1.rds.amazonaws.com"])


@shape
def terraform_show_json(d: Draw) -> Shape:
    pw, key = d.pw(20), d.aws_secret()
    doc = {"format_version": "1.0", "values": {"root_module": {"resources": [
        {"address": "random_password.db", "mode": "managed", "type": "random_password", "name": "db",
         "values": {"length": 20, "result": pw, "special": True}, "sensitive_values": {}},
        {"address": "aws_iam_access_key.ci", "type": "aws_iam_access_key", "name": "ci",
         "values": {"id": d.aws_id(), "secret": key, "user": "ci-deployer"}}]}}}
    return Shape("terraform-show-json", json.dumps(doc), [pw, key], ["random_password.db", "ci-deployer"])


@shape
def aws_export_credentials(d: Draw) -> Shape:
    kid, sec, st = d.aws_id("ASIA"), d.aws_secret(), d.aws_session()
    doc = {"Version": 1, "AccessKeyId": kid, "SecretAccessKey": sec, "SessionToken": st,
           "Expiration": "2026-01-01T12:00:00+00:00"}
    return Shape("aws-export-credentials", json.dumps(doc, indent=2), [kid, sec, st], ["Expiration"])


@shape
def aws_export_credentials_env(d: Draw) -> Shape:
    kid, sec, st = d.aws_id("ASIA"), d.aws_secret(), d.aws_session()
    text = (f"export AWS_ACCESS_KEY_ID={kid}\nexport AWS_SECRET_ACCESS_KEY={sec}\n"
            f"export AWS_SESSION_TOKEN={st}\nexport AWS_CREDENTIAL_EXPIRATION=2026-01-01T12:00:00+00:00\n")
    return Shape("aws-export-credentials-env", text, [kid, sec, st], ["AWS_CREDENTIAL_EXPIRATION"])


@shape
def aws_sts_assume_role(d: Draw) -> Shape:
    kid, sec, st = d.aws_id("ASIA"), d.aws_secret(), d.aws_session()
    doc = {"Credentials": {"AccessKeyId": kid, "SecretAccessKey": sec, "SessionToken": st,
                           "Expiration": "2026-01-01T12:00:00Z"},
           "AssumedRoleUser": {"AssumedRoleId": "AROA3XFRBF535PLBIFPI4:deploy",
                               "Arn": "arn:aws:sts::123456789012:assumed-role/deployer/deploy"}}
    return Shape("aws-sts-assume-role", json.dumps(doc, indent=4), [kid, sec, st], ["assumed-role/deployer/deploy"])


@shape
def aws_ssm_get_parameter(d: Draw) -> Shape:
    key = d.alnum(99)
    doc = {"Parameter": {"Name": "/prod/payments/stripe-secret", "Type": "SecureString", "Value": f"sk_live_{key}",
                         "Version": 3, "ARN": "arn:aws:ssm:eu-west-1:123456789012:parameter/prod/payments/stripe-secret"}}
    return Shape("aws-ssm-get-parameter", json.dumps(doc, indent=4), [key], ["/prod/payments/stripe-secret", "SecureString"])


@shape
def aws_ssm_opaque_name(d: Draw) -> Shape:
    v = d.pw(24)
    doc = {"Parameters": [{"Name": "/prod/orders/db-master", "Type": "SecureString", "Value": v, "Version": 1},
                          {"Name": "/prod/orders/db-host", "Type": "String", "Value": "orders.internal"}]}
    return Shape("aws-ssm-get-parameters-by-path", json.dumps(doc, indent=4), [v], ["orders.internal", "/prod/orders/db-master"])


@shape
def aws_secretsmanager(d: Draw) -> Shape:
    pw = d.pw()
    inner = json.dumps({"username": "orders_app", "password": pw, "engine": "postgres",
                        "host": "orders.cluster-c9akciq32.eu-west-1.rds.amazonaws.com", "port": 5432})
    doc = {"ARN": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/orders/db-AbCdEf",
           "Name": "prod/orders/db", "VersionId": d.uuid(), "SecretString": inner,
           "VersionStages": ["AWSCURRENT"], "CreatedDate": "2026-01-01T10:00:00.000000+00:00"}
    return Shape("aws-secretsmanager", json.dumps(doc, indent=4), [pw], ["orders_app", "AWSCURRENT"])


@shape
def gcloud_print_access_token(d: Draw) -> Shape:
    tok = "ya29.a0" + d.run(URLSAFE, 160)
    text = f"$ gcloud auth print-access-token\n{tok}\n"
    return Shape("gcloud-print-access-token", text, [tok], ["gcloud auth print-access-token"])


@shape
def gcloud_adc_file(d: Draw) -> Shape:
    sec, rt = "GOCSPX-" + d.run(URLSAFE, 28), "1//0" + d.run(URLSAFE, 99)
    doc = {"account": "", "client_id": "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com",
           "client_secret": sec, "quota_project_id": "acme-prod", "refresh_token": rt, "type": "authorized_user",
           "universe_domain": "googleapis.com"}
    return Shape("gcloud-adc-file", json.dumps(doc, indent=2), [sec, rt], ["acme-prod", "authorized_user"])


@shape
def az_get_access_token(d: Draw) -> Shape:
    jwt = d.jwt(aud="https://management.core.windows.net/")
    doc = {"accessToken": jwt, "expiresOn": "2026-01-01 12:00:00.000000", "expires_on": 1767268800,
           "subscription": d.uuid(), "tenant": d.uuid(), "tokenType": "Bearer"}
    return Shape("az-get-access-token", json.dumps(doc, indent=2), [jwt], ["tokenType", "Bearer"])


@shape
def az_storage_keys(d: Draw) -> Shape:
    k1, k2 = d.b64_bytes(64), d.b64_bytes(64)
    doc = [{"creationTime": "2026-01-01T10:00:00Z", "keyName": "key1", "permissions": "FULL", "value": k1},
           {"creationTime": "2026-01-01T10:00:00Z", "keyName": "key2", "permissions": "FULL", "value": k2}]
    return Shape("az-storage-account-keys", json.dumps(doc, indent=2), [k1, k2], ["keyName", "FULL"])


@shape
def vault_kv_get_table(d: Draw) -> Shape:
    pw = d.pw()
    text = ("====== Secret Path ======\nsecret/data/orders/db\n\n======= Metadata =======\n"
            "Key                Value\n---                -----\ncreated_time       2026-01-01T10:00:00.000Z\nversion            4\n\n"
            "====== Data ======\nKey         Value\n---         -----\n"
            f"password    {pw}\nusername    orders_app\n")
    return Shape("vault-kv-get-table", text, [pw], ["secret/data/orders/db", "orders_app"])


@shape
def vault_kv_get_json(d: Draw) -> Shape:
    key = d.alnum(40)
    doc = {"request_id": d.uuid(), "lease_id": "", "lease_duration": 0, "renewable": False,
           "data": {"data": {"api_key": key, "endpoint": "https://billing.acme-internal.io"},
                    "metadata": {"created_time": "2026-01-01T10:00:00Z", "version": 2}}}
    return Shape("vault-kv-get-json", json.dumps(doc, indent=2), [key], ["billing.acme-internal.io"])


@shape
def vault_token_lookup(d: Draw) -> Shape:
    tok = "hvs." + d.run(URLSAFE, 24)
    text = ("Key                 Value\n---                 -----\naccessor            " + d.alnum(24) + "\n"
            f"display_name        token-ci\nid                  {tok}\npolicies            [default ci]\n")
    return Shape("vault-token-lookup", text, [tok], ["token-ci", "policies"])


@shape
def heroku_config(d: Draw) -> Shape:
    pw, rpw, kb = d.alnum(64), d.alnum(64), d.hex(128)
    text = ("=== acme-api Config Vars\n"
            f"DATABASE_URL:    postgres://u8f2k1:{pw}@ec2-52-1-2-3.compute-1.amazonaws.com:5432/d9k2m\n"
            f"REDIS_URL:       rediss://:{rpw}@ec2-34-5-6-7.compute-1.amazonaws.com:12345\n"
            f"SECRET_KEY_BASE: {kb}\nWEB_CONCURRENCY: 2\n")
    return Shape("heroku-config", text, [pw, rpw, kb], ["acme-api Config Vars", "WEB_CONCURRENCY: 2"])


@shape
def vercel_env_pull(d: Draw) -> Shape:
    oidc, pw, kv = d.jwt(), d.alnum(24), d.run(URLSAFE, 60)
    text = ("# Created by Vercel CLI\nNX_DAEMON=\"false\"\n"
            f"POSTGRES_PASSWORD=\"{pw}\"\nPOSTGRES_HOST=\"ep-cool-tree-123456.eu-central-1.aws.neon.tech\"\n"
            f"KV_REST_API_TOKEN=\"{kv}\"\nVERCEL_OIDC_TOKEN=\"{oidc}\"\n")
    return Shape("vercel-env-pull", text, [oidc, pw, kv], ["ep-cool-tree-123456.eu-central-1.aws.neon.tech", "NX_DAEMON"])


@shape
def supabase_status(d: Draw) -> Shape:
    sec, anon, srv = d.alnum(40), d.jwt("HS256", role="anon"), d.jwt("HS256", role="service_role")
    text = ("supabase local development setup is running.\n\n         API URL: http://127.0.0.1:54321\n"
            "          DB URL: postgresql://postgres:postgres@127.0.0.1:54322/postgres\n"
            f"      JWT secret: {sec}\n        anon key: {anon}\nservice_role key: {srv}\n")
    return Shape("supabase-status", text, [sec, anon, srv], ["API URL: http://127.0.0.1:54321"])


@shape
def firebase_sdkconfig(d: Draw) -> Shape:
    key = "AIza" + d.run(URLSAFE, 35)
    text = ("// Copy and paste this into your JavaScript code to initialize the Firebase SDK.\n"
            "firebase.initializeApp({\n  \"projectId\": \"acme-shop-prod\",\n"
            "  \"appId\": \"1:123456789012:web:0a1b2c3d4e5f67890a1b2c\",\n"
            f"  \"apiKey\": \"{key}\",\n  \"authDomain\": \"acme-shop-prod.firebaseapp.com\"\n}});\n")
    return Shape("firebase-apps-sdkconfig", text, [key], ["acme-shop-prod.firebaseapp.com", "projectId"])


@shape
def stripe_config_list(d: Draw) -> Shape:
    rk, sk = d.alnum(99), d.alnum(99)
    text = ("[default]\n  device_name = 'dev-mbp'\n  display_name = 'Acme Inc.'\n"
            f"  live_mode_api_key = 'rk_live_{rk}'\n  test_mode_api_key = 'sk_test_{sk}'\n"
            "  test_mode_key_expires_at = '2026-04-01'\n")
    return Shape("stripe-config-list", text, [rk, sk], ["display_name = 'Acme Inc.'", "test_mode_key_expires_at"])


@shape
def rclone_config_show(d: Draw) -> Shape:
    kid, sec = d.aws_id(), d.aws_secret()
    text = f"[backups]\ntype = s3\nprovider = AWS\naccess_key_id = {kid}\nsecret_access_key = {sec}\nregion = eu-west-1\n"
    return Shape("rclone-config-show", text, [kid, sec], ["provider = AWS", "region = eu-west-1"])


# ------------------------------------------------------------------ env and config dumps

@shape
def env_dump(d: Draw) -> Shape:
    pw, key = d.pw(), "sk-proj-" + d.run(URLSAFE, 156)
    text = (f"SHELL=/bin/bash\nHOSTNAME=worker-7\nPGPASSWORD={pw}\nOPENAI_API_KEY={key}\n"
            "PATH=/usr/local/bin:/usr/bin:/bin\nTERM=xterm-256color\n")
    return Shape("env-dump", text, [pw, key], ["HOSTNAME=worker-7", "TERM=xterm-256color"])


@shape
def printenv_one(d: Draw) -> Shape:
    pw = d.pw()
    text = f"$ printenv DATABASE_PASSWORD\n{pw}\n"
    return Shape("printenv-one", text, [pw], ["printenv DATABASE_PASSWORD"])


@shape
def bash_set_dump(d: Draw) -> Shape:
    pw, tok = d.pw(), d.alnum(40)
    text = (f"BASH=/bin/bash\nBASHOPTS=checkwinsize:cmdhist\nDB_PASS={pw}\n"
            f"DEPLOY_TOKEN='{tok}'\nEUID=1000\nHISTFILE=/home/ci/.bash_history\n")
    return Shape("bash-set-dump", text, [pw, tok], ["BASHOPTS=checkwinsize:cmdhist", "EUID=1000"])


@shape
def declare_x(d: Draw) -> Shape:
    sec, gh = d.aws_secret(), d.ghp()
    text = (f'declare -x AWS_DEFAULT_REGION="eu-west-1"\ndeclare -x AWS_SECRET_ACCESS_KEY="{sec}"\n'
            f'declare -x GITHUB_TOKEN="{gh}"\ndeclare -x HOME="/home/runner"\n')
    return Shape("declare-x", text, [sec, gh], ['AWS_DEFAULT_REGION="eu-west-1"', "declare -x GITHUB_TOKEN"])


@shape
def git_config_list(d: Draw) -> Shape:
    pw, cred = d.pw(), d.basic("x-access-token", d.ghp("ghs_"))
    text = ("user.name=CI Bot\ncredential.helper=store\ncore.autocrlf=input\n"
            f"remote.origin.url=https://deploy:{pw}@git.acme-internal.io/platform/api.git\n"
            f"http.https://github.com/.extraheader=AUTHORIZATION: basic {cred}\nbranch.main.remote=origin\n")
    return Shape("git-config-list", text, [pw, cred], ["git.acme-internal.io/platform/api.git", "credential.helper=store"])


@shape
def npm_config_list(d: Draw) -> Shape:
    tok, auth = "npm_" + d.alnum(36), d.basic("ci", d.pw())
    text = ('; "user" config from /home/dev/.npmrc\n\n'
            f'//npm.acme-internal.io/:_authToken = "{tok}"\n//registry.npmjs.org/:_authToken = (protected)\n'
            f'_auth = "{auth}"\nregistry = "https://npm.acme-internal.io/"\n')
    return Shape("npm-config-list", text, [tok, auth], ["(protected)", 'registry = "https://npm.acme-internal.io/"'])


@shape
def pip_config_list(d: Draw) -> Shape:
    pw = d.pw()
    text = (f"global.extra-index-url='https://pypi-reader:{pw}@pypi.acme-internal.io/simple'\n"
            "global.timeout='60'\n")
    return Shape("pip-config-list", text, [pw], ["pypi-reader", "pypi.acme-internal.io/simple", "global.timeout"])


@shape
def netrc_file(d: Draw) -> Shape:
    pw, pw2 = d.pw(), d.ghp()
    text = f"machine api.heroku.com\n  login ops@acme.test\n  password {pw}\nmachine github.com login ci-bot password {pw2}\n"
    return Shape("netrc", text, [pw, pw2], ["api.heroku.com", "ci-bot"])


@shape
def pgpass_file(d: Draw) -> Shape:
    pw, pw2 = d.pw(), d.pw(24)
    text = f"# hostname:port:database:username:password\norders-db.acme-internal.io:5432:orders:orders_app:{pw}\n*:*:*:replicator:{pw2}\n"
    return Shape("pgpass", text, [pw, pw2], ["orders-db.acme-internal.io", "orders_app", "replicator"])


@shape
def docker_config_json(d: Draw) -> Shape:
    auth = d.basic("robot$ci", d.alnum(32))
    doc = {"auths": {"harbor.acme-internal.io": {"auth": auth}}, "credsStore": "desktop"}
    return Shape("docker-config-json", json.dumps(doc, indent="\t"), [auth], ["harbor.acme-internal.io", "credsStore"])


@shape
def aws_credentials_file(d: Draw) -> Shape:
    kid, sec = d.aws_id(), d.aws_secret()
    text = f"[default]\naws_access_key_id = {kid}\naws_secret_access_key = {sec}\n\n[ci]\nrole_arn = arn:aws:iam::123456789012:role/ci\n"
    return Shape("aws-credentials-file", text, [kid, sec], ["role_arn = arn:aws:iam::123456789012:role/ci"])


@shape
def redis_config_get(d: Draw) -> Shape:
    pw = d.pw()
    text = f'$ redis-cli -h cache.acme-internal.io CONFIG GET requirepass\n1) "requirepass"\n2) "{pw}"\n'
    return Shape("redis-config-get", text, [pw], ["cache.acme-internal.io", "requirepass"])


# ------------------------------------------------------------------ command lines

@shape
def ps_aux(d: Draw) -> Shape:
    pw, pw2 = d.pw(), d.pw()
    text = ("USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
            f"backup   41210  2.0  0.1  23456  8120 ?        S    02:00   0:03 mysqldump -h db.acme-internal.io -u backup -p{pw} --all-databases\n"
            f"app      41388  0.5  4.2 812340 98112 ?        Sl   02:01   0:41 java -Dspring.datasource.password={pw2} -jar /opt/app/app.jar\n")
    return Shape("ps-aux", text, [pw, pw2], ["db.acme-internal.io", "/opt/app/app.jar", "--all-databases"])


@shape
def proc_cmdline(d: Draw) -> Shape:
    pw, pw2 = d.pw(), d.pw()
    text = ("$ cat /proc/41210/cmdline\n"
            f"/usr/bin/python3\x00manage.py\x00dbshell\x00--password\x00{pw}\x00"
            f"redis-server\x00--requirepass\x00{pw2}\x00--port\x006379\x00")
    return Shape("proc-cmdline-nul", text, [pw, pw2], ["manage.py", "--requirepass", "6379"])


@shape
def mysql_p(d: Draw) -> Shape:
    pw = d.pw()
    text = f"$ mysql -h db.acme-internal.io -u admin -p'{pw}' orders -e 'SELECT COUNT(*) FROM orders'\nmysql: [Warning] Using a password on the command line interface can be insecure.\n"
    return Shape("mysql-p", text, [pw], ["db.acme-internal.io", "SELECT COUNT(*) FROM orders"])


@shape
def redis_cli_a(d: Draw) -> Shape:
    pw = d.pw()
    text = f"$ redis-cli -h cache.acme-internal.io -p 6380 -a {pw} --no-auth-warning PING\nPONG\n"
    return Shape("redis-cli-a", text, [pw], ["cache.acme-internal.io", "--no-auth-warning"])


@shape
def mongosh_srv(d: Draw) -> Shape:
    pw = d.pw()
    text = f'$ mongosh "mongodb+srv://reporting:{pw}@cluster0.ab1cd.mongodb.net/orders?retryWrites=true"\nCurrent Mongosh Log ID: {d.hex(24)}\n'
    return Shape("mongosh-srv", text, [pw], ["cluster0.ab1cd.mongodb.net", "reporting"])


@shape
def ci_log_set_x(d: Draw) -> Shape:
    pw, tok = d.pw(), "npm_" + d.alnum(36)
    text = ("2026-01-01T10:00:01.000Z + docker login -u ci-robot -p " + pw + " registry.acme-internal.io\n"
            "2026-01-01T10:00:02.000Z WARNING! Using --password via the CLI is insecure. Use --password-stdin.\n"
            f"2026-01-01T10:00:03.000Z + export NPM_TOKEN={tok}\n"
            "2026-01-01T10:00:04.000Z + curl -H 'Authorization: token ***' https://api.github.com\n")
    return Shape("ci-log-set-x", text, [pw, tok], ["ci-robot", "registry.acme-internal.io", "token ***"])


@shape
def ssh_sshpass_verbose(d: Draw) -> Shape:
    pw = d.pw()
    text = (f"$ sshpass -p '{pw}' ssh -v deploy@bastion.acme-internal.io\n"
            "OpenSSH_9.6p1, OpenSSL 3.0.13 30 Jan 2024\ndebug1: Connecting to bastion.acme-internal.io [10.0.0.5] port 22.\n"
            "debug1: Authenticating to bastion.acme-internal.io:22 as 'deploy'\n")
    return Shape("ssh-sshpass-verbose", text, [pw], ["port 22", "as 'deploy'", "OpenSSH_9.6p1"])


@shape
def openssl_pass(d: Draw) -> Shape:
    pw, pw2, pw3 = d.pw(), d.pw(), d.pw()
    text = (f"$ openssl enc -aes-256-cbc -pbkdf2 -salt -in backup.tar -out backup.tar.enc -pass pass:{pw}\n"
            f"$ openssl enc -d -aes-256-cbc -in legacy.enc -out legacy.tar -k {pw2}\n"
            f"$ openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{pw3}\n")
    return Shape("openssl-pass", text, [pw, pw2, pw3], ["backup.tar.enc", "bundle.p12"])


@shape
def java_system_props(d: Draw) -> Shape:
    pw, pw2 = d.pw(), d.pw()
    text = (f"exec java -Djavax.net.ssl.keyStorePassword={pw} -Djavax.net.ssl.keyStore=/etc/app/ks.p12 "
            f"-Dapp.db.password={pw2} -Dapp.db.user=orders -jar /opt/app/orders.jar\n")
    return Shape("java-system-props", text, [pw, pw2], ["/etc/app/ks.p12", "-Dapp.db.user=orders"])


@shape
def jdbc_urls(d: Draw) -> Shape:
    pw, pw2 = d.pw(), d.pw()
    text = (f"spring.datasource.url=jdbc:postgresql://db.acme-internal.io:5432/orders?user=orders&password={pw}&ssl=true\n"
            f"legacy.url=jdbc:sqlserver://sql.acme-internal.io:1433;databaseName=erp;user=sa;password={pw2};encrypt=true\n")
    return Shape("jdbc-urls", text, [pw, pw2], ["db.acme-internal.io:5432/orders", "databaseName=erp"])


@shape
def ado_odbc_strings(d: Draw) -> Shape:
    pw, pw2 = d.pw(), d.pw()
    text = (f'"ConnectionStrings": {{ "Default": "Server=tcp:acme.database.windows.net,1433;Initial Catalog=erp;'
            f'User ID=erp_svc;Password={pw};Encrypt=True;" }}\n'
            f"DSN string: Driver={{ODBC Driver 18 for SQL Server}};Server=sql.acme-internal.io;Uid=etl;Pwd={pw2};\n")
    return Shape("ado-odbc-strings", text, [pw, pw2], ["acme.database.windows.net", "erp_svc", "Uid=etl"])


# ------------------------------------------------------------------ traces and debug logs

@shape
def python_traceback_locals(d: Draw) -> Shape:
    pw, key = d.pw(), d.alnum(50)
    text = ("Traceback (most recent call last):\n  File \"/srv/app/db.py\", line 42, in connect\n"
            "    conn = psycopg.connect(**cfg)\n"
            f"cfg = {{'host': 'orders-db.acme-internal.io', 'user': 'orders_app', 'password': '{pw}', 'dbname': 'orders'}}\n"
            f"settings.SECRET_KEY = '{key}'\n"
            "psycopg.OperationalError: connection failed: FATAL:  password authentication failed for user \"orders_app\"\n")
    return Shape("python-traceback-locals", text, [pw, key], ["orders-db.acme-internal.io", "orders_app"])


@shape
def requests_debug_log(d: Draw) -> Shape:
    tok, sid = d.run(URLSAFE, 40), d.run(LOWNUM, 32)
    text = (f"send: b'GET /v2/items HTTP/1.1\\r\\nHost: api.acme-internal.io\\r\\nAuthorization: Bearer {tok}\\r\\n"
            "Accept: */*\\r\\n\\r\\n'\nreply: 'HTTP/1.1 200 OK\\r\\n'\n"
            f"header: Set-Cookie: sessionid={sid}; HttpOnly; Path=/\nheader: Content-Type: application/json\n")
    return Shape("requests-debug-log", text, [tok, sid], ["api.acme-internal.io", "Content-Type"])


@shape
def node_axios_error(d: Draw) -> Shape:
    tok, key, pw = d.run(URLSAFE, 40), d.hex(32), d.pw()
    text = ("AxiosError: Request failed with status code 401\n    at settle (/app/node_modules/axios/lib/core/settle.js:19:12)\n"
            "  config: {\n    headers: Object [AxiosHeaders] {\n      Accept: 'application/json',\n"
            f"      Authorization: 'Bearer {tok}',\n      'X-Api-Key': '{key}'\n    }},\n"
            f"    auth: {{ username: 'svc-sync', password: '{pw}' }},\n    url: 'https://crm.acme-internal.io/api/contacts'\n  }}\n")
    return Shape("node-axios-error", text, [tok, key, pw], ["svc-sync", "crm.acme-internal.io", "X-Api-Key"])


@shape
def flask_config_repr(d: Draw) -> Shape:
    key, pw = d.hex(64), d.pw()
    text = ("(Pdb) p app.config\n<Config {'DEBUG': False, 'TESTING': False, 'SECRET_KEY': '" + key + "', "
            f"'SQLALCHEMY_DATABASE_URI': 'postgresql://shop:{pw}@db.acme-internal.io/shop', 'SESSION_COOKIE_NAME': 'session'}}>\n")
    return Shape("flask-config-repr", text, [key, pw], ["db.acme-internal.io", "SESSION_COOKIE_NAME"])


@shape
def playwright_storage_state(d: Draw) -> Shape:
    sid, opaque = d.run(URLSAFE, 43), d.alnum(64)
    doc = {"cookies": [{"name": "_gh_sess", "value": sid, "domain": "github.com", "path": "/", "expires": -1,
                        "httpOnly": True, "secure": True, "sameSite": "Lax"},
                       {"name": "user_session_same_site", "value": opaque, "domain": "github.com", "path": "/",
                        "expires": 1767225600, "httpOnly": True, "secure": True, "sameSite": "Strict"},
                       {"name": "color_mode", "value": "auto", "domain": ".github.com", "path": "/"}],
           "origins": []}
    return Shape("playwright-storage-state", json.dumps(doc, indent=2), [sid, opaque], ["color_mode", "sameSite"])


# ------------------------------------------------------------------ API clients' files

@shape
def postman_collection(d: Draw) -> Shape:
    tok, key, v = d.run(URLSAFE, 40), d.alnum(32), d.alnum(40)
    doc = {"info": {"name": "Orders API", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
           "auth": {"type": "bearer", "bearer": [{"key": "token", "value": tok, "type": "string"}]},
           "item": [{"name": "List orders", "request": {"method": "GET", "header": [
               {"key": "X-API-Key", "value": key, "type": "text"}],
               "url": {"raw": "{{baseUrl}}/orders", "host": ["{{baseUrl}}"], "path": ["orders"]}}}],
           "variable": [{"key": "baseUrl", "value": "https://orders.acme-internal.io"},
                        {"key": "clientSecret", "value": v}]}
    return Shape("postman-collection", json.dumps(doc, indent="\t"), [tok, key, v], ["Orders API", "orders.acme-internal.io", "X-API-Key"])


@shape
def postman_apikey_auth(d: Draw) -> Shape:
    v = d.alnum(40)
    doc = {"auth": {"type": "apikey", "apikey": [{"key": "value", "value": v, "type": "string"},
                                                 {"key": "key", "value": "X-Acme-Key", "type": "string"},
                                                 {"key": "in", "value": "header", "type": "string"}]}}
    return Shape("postman-apikey-auth", json.dumps(doc, indent="\t"), [v], ["X-Acme-Key", "apikey"])


@shape
def insomnia_export(d: Draw) -> Shape:
    tok, key, sid = d.run(URLSAFE, 40), d.alnum(32), d.alnum(32)
    doc = {"_type": "export", "__export_format": 4, "resources": [
        {"_id": "req_" + d.hex(32), "_type": "request", "name": "Me", "url": "{{ _.base_url }}/me",
         "authentication": {"type": "bearer", "token": tok, "prefix": ""},
         "headers": [{"name": "Cookie", "value": f"sid={sid}"}]},
        {"_id": "env_" + d.hex(32), "_type": "environment", "name": "Prod",
         "data": {"base_url": "https://api.acme-internal.io", "api_key": key}}]}
    return Shape("insomnia-export", json.dumps(doc, indent=2), [tok, key, sid], ["api.acme-internal.io", "Prod"])


@shape
def rest_client_http_file(d: Draw) -> Shape:
    tok, pw = d.run(URLSAFE, 40), d.pw()
    text = (f"@baseUrl = https://api.acme-internal.io\n@token = {tok}\n@password = {pw}\n\n###\n"
            "GET {{baseUrl}}/me\nAuthorization: Bearer {{token}}\n\n###\n"
            "POST {{baseUrl}}/login\nContent-Type: application/json\n\n{\"user\": \"ops\", \"password\": \"{{password}}\"}\n")
    return Shape("rest-client-http-file", text, [tok, pw], ["api.acme-internal.io", "Bearer {{token}}"])


@shape
def rest_client_inline(d: Draw) -> Shape:
    tok, key = d.run(URLSAFE, 40), d.alnum(32)
    text = ("GET https://api.acme-internal.io/v1/reports HTTP/1.1\n"
            f"Authorization: Bearer {tok}\nX-Api-Key: {key}\nAccept: application/json\n")
    return Shape("rest-client-inline", text, [tok, key], ["api.acme-internal.io", "X-Api-Key"])


# ------------------------------------------------------------------ look-alikes that stay

KEPT: list[tuple[str, str]] = [
    ("query-id", "GET https://api.acme-internal.io/v1/orders?id=4815162342&page=2 200\n"),
    ("query-session-id-uuid", "GET /checkout/success?session_id=8d3f2c1a-5b6e-4f7a-9c8d-0e1f2a3b4c5d HTTP/1.1\n"),
    ("query-v-sha", "<script src=\"/static/app.js?v=3f786850e387550fdab836ed7e6dc881de23001b\"></script>\n"),
    ("query-sig-masked", "https://acmebackups.blob.core.windows.net/db/dump.sql?sv=2022-11-02&sp=r&sig=REDACTED\n"),
    ("query-appid-ref", "curl \"https://api.openweathermap.org/data/2.5/weather?q=Paris&appid=${OWM_API_KEY}\"\n"),
    ("query-key-placeholder", "https://maps.example.test/api/js?key=YOUR_API_KEY&callback=initMap\n"),
    ("query-appid-android", "GET /store/apps/details?id=com.acme.shop&hl=en HTTP/1.1\n"),
    ("har-cookie-plain", json.dumps({"name": "Cookie", "value": "theme=dark; lang=en-GB"})),
    ("har-cookie-redacted", json.dumps({"name": "cookie", "value": "<redacted>"})),
    ("har-authorization-masked", json.dumps({"name": "Authorization", "value": "Bearer ***"})),
    ("har-authorization-ref", json.dumps({"name": "Authorization", "value": "Bearer {{token}}"})),
    ("har-header-plain", json.dumps({"name": "Content-Type", "value": "application/json; charset=utf-8"})),
    ("fly-secrets-list", "NAME          \tDIGEST          \tCREATED AT\nDATABASE_URL  \t2f1a6c3d9e0b4a57\t1m ago\nSECRET_KEY_BASE\t8c4e2b1a7d9f3605\t3d ago\n"),
    ("aws-configure-list", "      Name                    Value             Type    Location\n      ----                    -----             ----    --------\n"
                           "   profile                <not set>             None    None\naccess_key     ****************QX4M shared-credentials-file\n"),
    ("npm-protected", '//registry.npmjs.org/:_authToken = (protected)\n'),
    ("ci-masked", "Run curl -H \"Authorization: token ***\" https://api.github.com/user\n"),
    ("env-refs", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app\nAPI_TOKEN=${API_TOKEN}\n"),
    ("rest-client-refs", "GET {{baseUrl}}/me\nAuthorization: Bearer {{token}}\nCookie: sessionid={{sid}}\n"),
]


def shapes(seed: int) -> list[Shape]:
    rng = random.Random(seed)
    return [build(Draw(rng)) for build in SHAPES]


def digest(text: str) -> str:
    """A short fingerprint of a text, for a failure message that must not print the text."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]
