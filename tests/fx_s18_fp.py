"""Generator of ordinary, harmless developer content (s18 false-positive sweep): what coding agents
read, run and write beside the high-entropy shapes of the s16 hunt (tests/fx_s16_fp.py): code and
configuration that names secrets without holding one (env references, Kubernetes secretKeyRef, CI
`${{ secrets.X }}`, ORM fields, LLM tokenizer and usage fields), environment listings, build and
test logs, cluster and cloud output, API specs, addresses of documentation ranges, numbers in code,
and images in every harness's block. Every value is made up here, drawn from a seeded RNG.

`kinds(seed)` gives (kind, text) pairs: every byte the redactor changes in them is a false positive,
except in the kinds listed in DEBATABLE (what RULES.md decides on purpose, tested as such).
`transcript_line(text)` puts a text where Claude Code keeps a tool result; `image_lines(seed)`
gives one image block per harness.
"""

from __future__ import annotations

import base64
import json

from tests.fx_s16_fp import ALNUM, Gen, _gif, _jpeg, _png, _webp

Kind = tuple[str, str]
LOWER = "abcdefghijklmnopqrstuvwxyz"
LOWER_DIGITS = LOWER + "0123456789"
B32_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _ulid(g: Gen) -> str:
    return g.s(B32_CROCKFORD[:8], 1) + g.s(B32_CROCKFORD, 25)


def _pod(g: Gen, name: str) -> str:
    return f"{name}-{g.hex(10)[:10].replace('a', 'b')[:9]}-{g.s(LOWER_DIGITS, 5)}"


def _code_kinds(g: Gen) -> list[Kind]:
    """Source code and configuration that names secrets but holds none."""
    out: list[Kind] = []
    out.append(("llm-tokenizer-code", (
        "from transformers import AutoTokenizer, AutoModelForCausalLM\n\n"
        'tokenizer = AutoTokenizer.from_pretrained("gpt2")\n'
        "tokenizer.pad_token = tokenizer.eos_token\n"
        'special_tokens = {"pad_token": "[PAD]", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}\n'
        "tokenizer.add_special_tokens(special_tokens)\n"
        "model.config.pad_token_id = tokenizer.pad_token_id  # 50256\n"
        "out = model.generate(**inputs, max_new_tokens=512, do_sample=True, top_p=0.95)\n"
        'print(tokenizer.decode(out[0], skip_special_tokens=True))\n'
        "TOKENIZERS_PARALLELISM = False\n"
        'MAX_TOKENS = 4096\nprompt_tokens, completion_tokens = usage["prompt_tokens"], usage["completion_tokens"]\n')))
    logprobs = {"choices": [{"index": 0, "logprobs": {"content": [
        {"token": t, "logprob": round(-g.r.random() * 3, 6), "bytes": list(t.encode()),
         "top_logprobs": [{"token": u, "logprob": round(-g.r.random() * 5, 6)} for u in (" the", " a", "Hello")]}
        for t in ("Hello", ",", " world", "!", " The", " answer", " is", " 42")]}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 8, "total_tokens": 20,
                  "prompt_tokens_details": {"cached_tokens": 0}}, "system_fingerprint": "fp_" + g.hex(10)}
    out.append(("llm-logprobs-json", json.dumps(logprobs, indent=2)))
    vocab = {"version": "1.0", "model": {"type": "BPE", "unk_token": None, "vocab": {
        w: i for i, w in enumerate(["!", "\"", "Ġthe", "Ġand", "ing", "Ġto", "Ġof", "ĠToken", "izer", "Ġpassword", "Ġsecret"])}},
        "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "special": True}]}
    out.append(("tokenizer-json", json.dumps(vocab, ensure_ascii=False)))
    out.append(("auth-code-no-values", (
        "import { useState } from 'react';\nimport bcrypt from 'bcryptjs';\nimport jwt from 'jsonwebtoken';\n\n"
        "export function LoginForm() {\n  const [password, setPassword] = useState('');\n"
        "  const [confirmPassword, setConfirmPassword] = useState('');\n"
        '  return <input type="password" name="password" placeholder="Enter your password" value={password} '
        "onChange={(e) => setPassword(e.target.value)} />;\n}\n\n"
        "const hashedPassword = await bcrypt.hash(password, 10);\n"
        "await db.user.create({ data: { email, password: hashedPassword } });\n"
        "const token = req.headers.authorization?.split(' ')[1];\n"
        "const secret = process.env.JWT_SECRET!;\n"
        "const accessToken = jwt.sign({ sub: user.id }, secret, { expiresIn: '15m' });\n"
        "const refreshToken = crypto.randomBytes(32).toString('hex');\n"
        "res.cookie('refresh_token', refreshToken, { httpOnly: true, secure: true, sameSite: 'strict' });\n"
        "const schema = z.object({ password: z.string().min(8), token: z.string().uuid() });\n")))
    out.append(("python-settings-no-values", (
        "import os\nfrom datetime import timedelta\n\n"
        'SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]\n'
        'OPENAI_API_KEY = os.getenv("OPENAI_API_KEY", "")\n'
        "DATABASE_PASSWORD = os.environ.get('DATABASE_PASSWORD')\n"
        "AUTH_PASSWORD_VALIDATORS = [\n"
        "    {'NAME': 'django.contrib.auth.password_validation.UserAttributeSimilarityValidator'},\n"
        "    {'NAME': 'django.contrib.auth.password_validation.MinimumLengthValidator', 'OPTIONS': {'min_length': 12}},\n]\n"
        'PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]\n'
        'SESSION_COOKIE_NAME = "sessionid"\nCSRF_COOKIE_NAME = "csrftoken"\n'
        "SIMPLE_JWT = {'ACCESS_TOKEN_LIFETIME': timedelta(minutes=15), 'REFRESH_TOKEN_LIFETIME': timedelta(days=7),\n"
        "              'AUTH_HEADER_TYPES': ('Bearer',), 'SIGNING_KEY': SECRET_KEY, 'ALGORITHM': 'HS256'}\n"
        "token = getpass.getpass('GitHub token: ')\napi_key = settings.STRIPE_API_KEY\n"
        "password_hash = models.CharField(max_length=128)\nreset_token = models.CharField(max_length=64, null=True)\n")))
    out.append(("k8s-secret-refs", (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n"
        "      serviceAccountName: api\n      automountServiceAccountToken: false\n"
        "      imagePullSecrets:\n        - name: regcred\n      containers:\n        - name: api\n"
        f"          image: ghcr.io/acme/api@sha256:{g.hex(64)}\n          env:\n"
        "            - name: OPENAI_API_KEY\n              valueFrom:\n                secretKeyRef:\n"
        "                  name: api-secrets\n                  key: OPENAI_API_KEY\n"
        "            - name: DB_PASSWORD\n              valueFrom:\n                secretKeyRef: {name: db-credentials, key: password}\n"
        "          envFrom:\n            - secretRef:\n                name: app-env\n"
        "      volumes:\n        - name: token\n          projected:\n            sources:\n"
        "              - serviceAccountToken:\n                  path: token\n                  expirationSeconds: 3600\n"
        "                  audience: sts.amazonaws.com\n")))
    out.append(("ci-workflow-secret-refs", (
        "name: release\non:\n  push:\n    tags: ['v*']\npermissions:\n  id-token: write\n  contents: read\njobs:\n"
        "  publish:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - uses: actions/checkout@{g.hex(40)} # v4.1.1\n"
        f"      - uses: docker/login-action@{g.hex(40)} # v3\n        with:\n"
        "          username: ${{ vars.DOCKERHUB_USERNAME }}\n          password: ${{ secrets.DOCKERHUB_TOKEN }}\n"
        "      - uses: aws-actions/configure-aws-credentials@v4\n        with:\n"
        "          aws-access-key-id: ${{ secrets.AWS_ACCESS_KEY_ID }}\n"
        "          aws-secret-access-key: ${{ secrets.AWS_SECRET_ACCESS_KEY }}\n          aws-region: us-east-1\n"
        "      - run: npm publish --provenance\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}\n"
        "          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n")))
    out.append(("compose-secret-files", (
        "services:\n  db:\n    image: postgres:16\n    environment:\n"
        "      POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n      POSTGRES_USER: app\n"
        "      - PGPASSWORD=${POSTGRES_PASSWORD}\n    secrets:\n      - db_password\n"
        "secrets:\n  db_password:\n    file: ./secrets/db_password.txt\n")))
    out.append(("openapi-spec", (
        "openapi: 3.0.3\ninfo:\n  title: Accounts API\n  version: 2.4.0\ncomponents:\n  securitySchemes:\n"
        "    ApiKeyAuth:\n      type: apiKey\n      in: header\n      name: X-API-Key\n"
        "    bearerAuth:\n      type: http\n      scheme: bearer\n      bearerFormat: JWT\n  schemas:\n"
        "    LoginRequest:\n      type: object\n      required: [username, password]\n      properties:\n"
        "        username:\n          type: string\n          example: string\n"
        "        password:\n          type: string\n          format: password\n          example: string\n"
        "    TokenResponse:\n      type: object\n      properties:\n"
        "        access_token: {type: string, example: string}\n        token_type: {type: string, example: bearer}\n"
        "        expires_in: {type: integer, example: 3600}\n"
        "        id: {type: string, format: uuid, example: 3fa85f64-5717-4562-b3fc-2c963f66afa6}\n"
        '$ curl -X POST http://localhost:8000/auth/login -d \'{"username": "string", "password": "string"}\'\n'
        '{"access_token": "string", "token_type": "bearer", "refresh_token": "string"}\n')))
    out.append(("dotnet-assembly-refs", (
        '<Reference Include="System.Runtime, Version=4.2.2.0, Culture=neutral, PublicKeyToken=b03f5f7f11d50a3a" />\n'
        '<assemblyIdentity name="Newtonsoft.Json" publicKeyToken="30ad4fe6b2a6aeed" culture="neutral" />\n'
        '<bindingRedirect oldVersion="0.0.0.0-13.0.0.0" newVersion="13.0.0.0" />\n'
        "System.Private.CoreLib, Version=8.0.0.0, Culture=neutral, PublicKeyToken=7cec85d7bea7798e\n"
        f'<PackageReference Include="Microsoft.Extensions.Hosting" Version="8.0.0" />\n'
        f'  "Microsoft.Extensions.Hosting/8.0.0": {{"type": "package", "sha512": "sha512-{g.b64(64)}"}}\n')))
    out.append(("sql-schema-and-psql", (
        "CREATE TABLE users (\n  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),\n  email text NOT NULL UNIQUE,\n"
        "  password_hash text NOT NULL,\n  api_key_prefix varchar(8),\n  created_at timestamptz NOT NULL DEFAULT now()\n);\n"
        "CREATE TABLE oauth_tokens (id bigserial, user_id uuid REFERENCES users(id), token_type text, scope text, expires_at timestamptz);\n"
        "$ psql -c 'SELECT token_type, scope, count(*) FROM oauth_tokens GROUP BY 1, 2'\n"
        " token_type |     scope      | count\n------------+----------------+-------\n"
        " bearer     | read           |   412\n refresh    | offline_access |    97\n(2 rows)\n\n"
        "$ psql -c '\\d users'\n     Column     |           Type           | Nullable |      Default\n"
        "----------------+--------------------------+----------+-------------------\n"
        " id             | uuid                     | not null | gen_random_uuid()\n"
        " password_hash  | text                     | not null |\n"
        " api_key_prefix | character varying(8)     |          |\n")))
    return out


def _env_kinds(g: Gen) -> list[Kind]:
    """Environment listings and env files that name secrets without holding one."""
    ls_colors = ":".join(f"*.{e}=01;3{g.r.randint(1, 7)}" for e in ("tar", "tgz", "zip", "gz", "jpg", "png", "mp4", "flac"))
    env = (
        "$ env | sort\nAWS_REGION=us-east-1\nAWS_PROFILE=dev\nAWS_SDK_LOAD_CONFIG=1\n"
        "AWS_WEB_IDENTITY_TOKEN_FILE=/var/run/secrets/eks.amazonaws.com/serviceaccount/token\n"
        "AWS_ROLE_ARN=arn:aws:iam::123456789012:role/ci-deployer\n"
        f"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus\nGIT_ASKPASS=/usr/lib/git-core/git-gui--askpass\n"
        "GNUPGHOME=/srv/app/.gnupg\nGOOGLE_APPLICATION_CREDENTIALS=/srv/app/.config/gcloud/application_default_credentials.json\n"
        f"HOSTNAME={g.hex(12)}\nINVOCATION_ID={g.hex(32)}\nJOURNAL_STREAM=8:{g.r.randint(10000, 99999)}\n"
        "KRB5CCNAME=FILE:/tmp/krb5cc_1000\nLANG=C.UTF-8\n"
        f"LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:{ls_colors}\n"
        "NODE_OPTIONS=--max-old-space-size=4096\nPASSWORD_STORE_DIR=/srv/app/.password-store\n"
        "PIP_KEYRING_PROVIDER=subprocess\nSSH_ASKPASS=/usr/bin/ksshaskpass\n"
        f"SSH_AUTH_SOCK=/tmp/ssh-{g.s(ALNUM, 12)}/agent.{g.r.randint(1000, 99999)}\n"
        "TOKENIZERS_PARALLELISM=false\nHF_HUB_DISABLE_TELEMETRY=1\nKEYTIMEOUT=1\nSECRETS_DIR=/run/secrets\n"
        "VAULT_ADDR=https://vault.example.com:8200\nTERM=xterm-256color\n")
    config = (
        "# .env.defaults (no secrets: those come from the vault)\nPASSWORD_MIN_LENGTH=12\nTOKEN_EXPIRY_SECONDS=3600\n"
        "JWT_ALGORITHM=HS256\nJWT_ISSUER=https://auth.example.com\nSESSION_COOKIE_SECURE=true\nAUTH_PROVIDER=github\n"
        "SECRET_MANAGER_BACKEND=vault\nAPI_KEY_HEADER=X-API-Key\nOPENAI_MAX_TOKENS=2048\nTOKEN_LIMIT=100000\n"
        "SECRET_ROTATION_DAYS=90\nKEY_VAULT_NAME=kv-prod-weu\nAUTH_TOKEN_TTL=15m\nPASSWORD_RESET_URL=https://app.example.com/reset\n"
        "CREDENTIALS_PATH=/etc/app/credentials.json\nAPI_KEY_ENABLED=true\nSECRET_NAME=prod/api/openai\n")
    return [("env-listing", env), ("env-config-no-values", config)]


def _log_kinds(g: Gen) -> list[Kind]:
    out: list[Kind] = []
    addr = [f"0x7f{g.hex(10)}" for _ in range(6)]
    out.append(("python-traceback", (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/asyncio/runners.py", line 118, in run\n    return self._loop.run_until_complete(task)\n'
        '  File "/srv/app/.venv/lib/python3.11/site-packages/httpx/_transports/default.py", line 69, in map_httpcore_exceptions\n'
        "    raise mapped_exc(message) from exc\nhttpx.ConnectTimeout: timed out\n\n"
        f"Task exception was never retrieved\nfuture: <Task finished name='Task-{g.r.randint(2, 999)}' coro=<worker() done, defined at /srv/app/main.py:12> "
        f"exception=KeyError('token')>\n<coroutine object worker at {addr[0]}>\n"
        f"RuntimeWarning: coroutine 'fetch' was never awaited\n  <bound method Client.close of <httpx.AsyncClient object at {addr[1]}>>\n"
        "KeyError: 'password'\n")))
    out.append(("pytest-output", (
        "============================= test session starts ==============================\n"
        "platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0\n"
        f"Using --randomly-seed={g.r.randint(10**8, 4 * 10**9)}\nrootdir: /srv/app\nplugins: hypothesis-6.112.0, randomly-3.15.0\n"
        "collected 214 items\n\ntests/test_auth.py ...F....                                             [  4%]\n\n"
        "=================================== FAILURES ===================================\n"
        "____________________________ test_token_refresh ________________________________\n\n"
        f"    def test_token_refresh(client, mock_store):\n>       assert client.refresh() == mock_store.token\n"
        f"E       AssertionError: assert <Token object at {addr[2]}> == <MagicMock name='store.token' id='{g.r.randint(139_000_000_000_000, 140_999_999_999_999)}'>\n"
        f"E        +  where <bound method Client.refresh of <app.Client object at {addr[3]}>> = <app.Client object at {addr[3]}>.refresh\n\n"
        f"Falsifying example: test_roundtrip(\n    data=b'\\x00\\x01',\n)\n"
        f"You can reproduce this example by temporarily adding @reproduce_failure('6.112.0', b'{base64.b64encode(g.raw(12)).decode()}') "
        "as a decorator on your test case\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_auth.py::test_token_refresh - AssertionError: assert <Token ...\n"
        "=================== 1 failed, 213 passed in 12.34s ===================\n")))
    ids = [g.uuid4() for _ in range(4)]
    out.append(("structured-logs-ids", "".join(json.dumps({
        "ts": f"2026-11-30T10:{i:02d}:{g.r.randint(0, 59):02d}.{g.r.randint(0, 999):03d}Z", "level": "info", "msg": "request done",
        "request_id": ids[i], "trace_id": g.hex(32), "span_id": g.hex(16), "ulid": _ulid(g),
        "traceparent": f"00-{g.hex(32)}-{g.hex(16)}-01", "dd.trace_id": str(g.r.getrandbits(63)),
        "duration_ms": g.r.randint(1, 900), "epoch_ms": g.r.randint(1_700_000_000_000, 1_790_000_000_000),
        "epoch_ns": g.r.randint(1_700_000_000_000_000_000, 1_790_000_000_000_000_000)}) + "\n" for i in range(4))
        + f"2026-11-30 10:00:00.123456789 +0000 UTC m=+0.00{g.r.randint(1000, 9999)}\n"
        f'http_requests_total{{code="200",method="get"}} 1027 {g.r.randint(1_700_000_000_000, 1_790_000_000_000)}\n'))
    out.append(("sentry-event", json.dumps({
        "event_id": g.hex(32), "project": g.r.randint(10**6, 10**7), "release": f"api@{g.hex(40)}",
        "timestamp": 1767261604.123456, "platform": "python", "level": "error",
        "fingerprint": ["{{ default }}", g.hex(16)], "contexts": {"trace": {"trace_id": g.hex(32), "span_id": g.hex(16), "op": "http.server"}},
        "exception": {"values": [{"type": "KeyError", "value": "'token'", "mechanism": {"type": "generic", "handled": False},
                                  "stacktrace": {"frames": [{"filename": "app/auth.py", "function": "refresh", "lineno": 88,
                                                             "instruction_addr": "0x" + g.hex(12)}]}}]},
        "sdk": {"name": "sentry.python", "version": "2.14.0"}}, indent=2)))
    out.append(("npm-build-log", (
        "$ npm ci\nnpm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n"
        "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported\n\n"
        "added 1287 packages, and audited 1288 packages in 41s\n\n214 packages are looking for funding\n  run `npm fund` for details\n\n"
        "3 moderate severity vulnerabilities\n\n$ npm run build\n\n> webapp@1.0.0 build\n> tsc -b && vite build\n\n"
        "npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree\n"
        f"npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-30T10_00_00_{g.r.randint(100, 999)}Z-debug-0.log\n"
        f"npm http fetch GET 200 https://registry.npmjs.org/react/-/react-18.3.1.tgz {g.r.randint(10, 900)}ms (cache miss)\n")))
    out.append(("pip-build-log", (
        "$ pip install -r requirements.txt\nCollecting httpx==0.27.2 (from -r requirements.txt (line 4))\n"
        "  Downloading httpx-0.27.2-py3-none-any.whl.metadata (7.1 kB)\n"
        "  Downloading httpx-0.27.2-py3-none-any.whl (76 kB)\n     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 76.4/76.4 kB 4.1 MB/s eta 0:00:00\n"
        "Building wheels for collected packages: mylib\n  Building wheel for mylib (pyproject.toml) ... done\n"
        f"  Created wheel for mylib: filename=mylib-0.1.0-py3-none-any.whl size={g.r.randint(2000, 90000)} sha256={g.hex(64)}\n"
        f"  Stored in directory: /tmp/pip-ephem-wheel-cache-{g.s(LOWER_DIGITS, 8)}/wheels/{g.hex(2)}/{g.hex(2)}/{g.hex(60)}\n"
        "Successfully built mylib\nSuccessfully installed anyio-4.6.0 certifi-2024.8.30 h11-0.14.0 httpcore-1.0.5 httpx-0.27.2 mylib-0.1.0\n"
        f"$ pip cache list\n - mylib-0.1.0-py3-none-any.whl (4.2 kB)\n$ uv pip install ruff\nResolved 1 package in {g.r.randint(10, 400)}ms\n"
        f"Installed 1 package in 3ms\n + ruff==0.6.9\n")))
    out.append(("cargo-build-log", (
        "$ cargo build --release\n    Updating crates.io index\n  Downloaded serde v1.0.210\n  Downloaded 24 crates (2.1 MB) in 1.02s\n"
        "   Compiling proc-macro2 v1.0.86\n   Compiling serde v1.0.210\n   Compiling app v0.1.0 (/srv/app)\n"
        "    Finished `release` profile [optimized] target(s) in 38.27s\n$ cargo test\n"
        f"     Running unittests src/lib.rs (target/debug/deps/app-{g.hex(16)})\n\nrunning 12 tests\n"
        "test tests::token_roundtrip ... ok\ntest tests::parse_password_policy ... ok\n\n"
        "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n"
        "thread 'main' panicked at src/main.rs:14:5:\ncalled `Result::unwrap()` on an `Err` value: Os { code: 2, kind: NotFound }\n"
        f"stack backtrace:\n   0: 0x{g.hex(12)} - std::backtrace_rs::backtrace::libunwind::trace\n"
        f"   1: 0x{g.hex(12)} - app::main\n")))
    return out


def _vcs_kinds(g: Gen) -> list[Kind]:
    sha = [g.hex(40) for _ in range(10)]
    fuller = "".join(
        f"commit {sha[i]}\nAuthor:     dependabot[bot] <{g.r.randint(10**7, 10**8)}+dependabot[bot]@users.noreply.github.com>\n"
        f"AuthorDate: Mon Nov 30 10:0{i}:00 2026 +0000\nCommit:     GitHub <noreply@github.com>\n"
        f"CommitDate: Mon Nov 30 10:0{i}:00 2026 +0000\n\n    Bump vite from 5.4.{i} to 5.4.{i + 1}\n\n"
        f"    Signed-off-by: dependabot[bot] <support@github.com>\n\n" for i in range(3))
    out: list[Kind] = [("git-log-fuller-bots", fuller)]
    out.append(("git-plumbing", (
        f"$ git cat-file -p {sha[3][:10]}\n" + "".join(f"{m} {t} {g.hex(40)}\t{n}\n" for m, t, n in (
            ("100644", "blob", "package-lock.json"), ("100644", "blob", "token.go"), ("040000", "tree", "secrets"),
            ("100644", "blob", "password_reset.py")))
        + f"$ git show --stat --oneline {sha[4][:7]}\n{sha[4][:7]} feat(auth): rotate refresh tokens\n"
        " src/auth/token.ts          | 42 +++++++++++++++++++++++++-----\n src/auth/password.ts       |  7 +++--\n"
        " 2 files changed, 38 insertions(+), 11 deletions(-)\n"
        f"$ git push origin main\nTo github.com:acme/webapp.git\n   {sha[5][:7]}..{sha[6][:7]}  main -> main\n"
        f"$ git pull --rebase\nFrom github.com:acme/webapp\n + {sha[7][:9]}...{sha[8][:9]} feature/token-rotation -> origin/feature/token-rotation  (forced update)\n"
        f"Successfully rebased and updated refs/heads/main.\n$ git blame -L 10,11 src/auth/token.ts\n"
        f"^{sha[9][:7]} (dependabot[bot] 2026-11-30 10:00:00 +0000 10) const TOKEN_TTL_SECONDS = 900;\n")))
    return out


def _infra_kinds(g: Gen) -> list[Kind]:
    out: list[Kind] = []
    rows = "".join(
        f"{_pod(g, n):<36} 1/1     Running   {g.r.randint(0, 3)}          {g.r.randint(1, 40)}d   10.244.{g.r.randint(0, 9)}.{g.r.randint(2, 250):<5} "
        f"ip-10-0-{g.r.randint(0, 255)}-{g.r.randint(0, 255)}.ec2.internal   <none>           <none>\n" for n in ("api", "worker", "redis"))
    out.append(("kubectl-get-pods-wide", "$ kubectl get pods -o wide\nNAME                                 READY   STATUS    RESTARTS   AGE   "
                "IP             NODE                          NOMINATED NODE   READINESS GATES\n" + rows))
    out.append(("k8s-pod-yaml", (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: \"2026-11-30T10:00:00Z\"\n  generateName: api-{g.hex(9)}-\n"
        f"  name: api-{g.hex(9)}-{g.s(LOWER_DIGITS, 5)}\n  namespace: prod\n  resourceVersion: \"{g.r.randint(10**7, 10**9)}\"\n"
        f"  selfLink: /api/v1/namespaces/prod/pods/api-{g.hex(9)}\n  uid: {g.uuid4()}\n  ownerReferences:\n"
        f"  - apiVersion: apps/v1\n    kind: ReplicaSet\n    uid: {g.uuid4()}\n  annotations:\n"
        f"    kubectl.kubernetes.io/restartedAt: \"2026-11-30T09:59:00Z\"\n    checksum/config: {g.hex(64)}\n"
        f"status:\n  hostIP: 10.0.3.17\n  podIP: 10.244.2.41\n  podIPs:\n  - ip: 10.244.2.41\n  - ip: fd00:10:244:2::29\n"
        f"  containerStatuses:\n  - containerID: containerd://{g.hex(64)}\n    imageID: ghcr.io/acme/api@sha256:{g.hex(64)}\n")))
    acct = "123456789012"
    out.append(("aws-cli-json", json.dumps({
        "Vpcs": [{"VpcId": "vpc-" + g.hex(17), "CidrBlock": "10.0.0.0/16", "DhcpOptionsId": "dopt-" + g.hex(8), "OwnerId": acct,
                  "Ipv6CidrBlockAssociationSet": [{"AssociationId": "vpc-cidr-assoc-" + g.hex(17), "Ipv6CidrBlock": "2001:db8:1234:1a00::/56"}]}],
        "Subnets": [{"SubnetId": "subnet-" + g.hex(17), "AvailabilityZoneId": "use1-az4", "SubnetArn": f"arn:aws:ec2:us-east-1:{acct}:subnet/subnet-{g.hex(17)}"}],
        "SecurityGroups": [{"GroupId": "sg-" + g.hex(17), "IpPermissions": [{"FromPort": 443, "ToPort": 443, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]}],
        "Images": [{"imageDigest": "sha256:" + g.hex(64), "imageTags": ["1.4.2"], "imagePushedAt": "2026-11-30T10:00:00+00:00"}],
        "Configuration": {"FunctionName": "thumbnailer", "CodeSha256": g.b64(32), "RevisionId": g.uuid4(), "Version": "$LATEST"},
        "Contents": [{"Key": "releases/app-1.4.2.tar.gz", "ETag": f'"{g.hex(32)}-4"', "Size": 48213312, "StorageClass": "STANDARD"}],
        "events": [{"logStreamName": "2026/11/30/[$LATEST]" + g.hex(32), "timestamp": 1767261604000,
                    "message": "START RequestId: " + g.uuid4() + " Version: $LATEST", "ingestionTime": 1767261605000,
                    "eventId": str(g.r.randint(10**55, 10**56))}],
        "ResponseMetadata": {"RequestId": g.uuid4(), "HTTPStatusCode": 200, "RetryAttempts": 0}}, indent=2)))
    out.append(("terraform-plan", (
        "Terraform will perform the following actions:\n\n  # aws_instance.web will be updated in-place\n"
        "  ~ resource \"aws_instance\" \"web\" {\n"
        f"        id                     = \"i-{g.hex(17)}\"\n        ami                    = \"ami-{g.hex(17)}\"\n"
        f"      ~ instance_type          = \"t3.small\" -> \"t3.medium\"\n        subnet_id              = \"subnet-{g.hex(17)}\"\n"
        f"        vpc_security_group_ids = [\"sg-{g.hex(17)}\"]\n        key_name               = \"deploy-2026\"\n"
        "        tags                   = { \"Name\" = \"web\" }\n    }\n\n"
        "  # aws_secretsmanager_secret.db will be created\n  + resource \"aws_secretsmanager_secret\" \"db\" {\n"
        "      + arn                     = (known after apply)\n      + name                    = \"prod/db/password\"\n"
        "      + recovery_window_in_days = 30\n    }\n\n  # random_password.db will be created\n"
        "  + resource \"random_password\" \"db\" {\n      + id      = (known after apply)\n      + length  = 32\n"
        "      + result  = (sensitive value)\n      + special = true\n    }\n\n"
        "Plan: 2 to add, 1 to change, 0 to destroy.\n")))
    out.append(("docker-cli-output", (
        "$ docker compose ps\nNAME            IMAGE            COMMAND                  SERVICE   CREATED       STATUS                 PORTS\n"
        "webapp-db-1     postgres:16      \"docker-entrypoint.s…\"   db        2 hours ago   Up 2 hours (healthy)   0.0.0.0:5432->5432/tcp, [::]:5432->5432/tcp\n"
        f"$ docker history api:latest\nIMAGE          CREATED       CREATED BY                                      SIZE\n"
        f"{g.hex(12)}   2 hours ago   CMD [\"node\" \"dist/server.js\"]                  0B\n"
        f"<missing>      2 hours ago   RUN /bin/sh -c npm ci --omit=dev # buildkit     84.2MB\n"
        f"$ docker manifest inspect node:20-alpine | head\n" + json.dumps({"schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
            "size": 1643, "digest": "sha256:" + g.hex(64), "platform": {"architecture": "amd64", "os": "linux"}}]}) + "\n")))
    return out


def _net_num_kinds(g: Gen) -> list[Kind]:
    out: list[Kind] = []
    out.append(("ip-ss-output", (
        "$ ip -br addr\nlo               UNKNOWN        127.0.0.1/8 ::1/128\n"
        f"eth0             UP             10.0.3.17/24 fe80::{g.hex(3)}:{g.hex(2)}ff:fe{g.hex(2)}:{g.hex(4)}/64\n"
        "docker0          DOWN           172.17.0.1/16\n"
        "$ ss -tlnp\nState  Recv-Q Send-Q Local Address:Port  Peer Address:Port Process\n"
        "LISTEN 0      4096   127.0.0.53%lo:53        0.0.0.0:*\nLISTEN 0      511          0.0.0.0:8080      0.0.0.0:*     users:((\"node\",pid=412,fd=21))\n"
        "LISTEN 0      4096            [::]:22           [::]:*\n"
        "$ dig AAAA example.com +short\n2001:db8::1\n2001:db8:85a3::8a2e:370:7334\n"
        "$ ping -c1 192.0.2.10\nPING 192.0.2.10 (192.0.2.10) 56(84) bytes of data.\n"
        "# RFC 5737 documentation ranges: 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24\n"
        "listen = [\"198.51.100.7:443\", \"203.0.113.25:8443\"]\n")))
    out.append(("numbers-in-code", (
        "PORTS = [80, 443, 3000, 5432, 6379, 8080, 8443, 9090, 9200, 27017]\n"
        "BACKOFF_MS = (100, 200, 400, 800, 1600, 3200, 6400)\nSIZES = [1024, 2048, 4096, 8192, 16384, 32768, 65536]\n"
        "INT32_MAX = 2147483647\nINT64_MAX = 9223372036854775807\nUINT64_MAX = 18446744073709551615\n"
        "FNV_OFFSET = 14695981039346656037\nFNV_PRIME = 1099511628211\nGOLDEN = 0x9E3779B97F4A7C15\n"
        "CRC_TABLE = [0x00000000, 0x77073096, 0xEE0E612C, 0x990951BA, 0x076DC419, 0x706AF48F]\n"
        "EXPOSE 3000 5432 6379\nulimit -n 1048576\nsysctl -w net.core.somaxconn=65535\n"
        "MAX_SAFE_INTEGER = 9007199254740991\nEPOCH_MS = 1767261604000\nPI = 3.141592653589793\n"
        f"np.random.default_rng({g.r.randint(10**5, 10**6)})\nBigInt(\"{g.r.randint(10**17, 10**18)}\")\n"
        "assert fib(90) == 2880067194370816120\n")))
    out.append(("versions", (
        "semver 2.0.0-rc.1+build.20261130.1, 1.0.0-alpha.beta, 0.0.0-20231010170311-3f2a1bc9d8e7\n"
        "calver 2026.11.30, 24.04.1 LTS, 2026.11.1, ubuntu 22.04.5, node v20.18.0, go1.23.2\n"
        "Chrome/131.0.6778.86 Safari/537.36, Windows 10.0.19045.5131, Build 26100.2314\n"
        "openssl 3.0.13 30 Jan 2024, kernel 6.8.0-48-generic #48-Ubuntu SMP PREEMPT_DYNAMIC\n")))
    return out


def _web_kinds(g: Gen) -> list[Kind]:
    png = base64.b64encode(_png(g, 20, 14)).decode()
    jpg = base64.b64encode(_jpeg(g)).decode()
    webp = base64.b64encode(_webp(g)).decode()
    gif = base64.b64encode(_gif(g)).decode()
    md = (f"# Screenshot\n\n![dashboard](data:image/png;base64,{png})\n\n<img alt=\"logo\" src=\"data:image/webp;base64,{webp}\" />\n"
          f"![spinner](data:image/gif;base64,{gif})\n\n```html\n<img src=\"data:image/jpeg;base64,{jpg}\">\n```\n")
    css = ("." + ",.".join(f"btn-{c}" for c in ("primary", "secondary")) + "{" + ";".join(
        f"--bs-btn-{p}:#{g.hex(6)}" for p in ("bg", "border-color", "hover-bg", "active-bg", "disabled-bg")) + "}"
        + f".icon-token{{mask:url(\"data:image/svg+xml;charset=utf-8,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
        f"%3Cpath d='M{g.r.randint(1, 9)}.5 1a.5.5 0 0 1 .5.5v1h{g.r.randint(1, 9)}a2 2 0 0 1 2 2v8'/%3E%3C/svg%3E\")}}\n")
    svg = ('<svg viewBox="0 0 24 24"><path d="' + "".join(
        f"{c}{g.r.uniform(-20, 20):.2f} {g.r.uniform(-20, 20):.2f}" for c in "MlcsLHVZmlc" * 6) + 'z"/></svg>\n')
    return [("markdown-images", md), ("css-and-svg", css + svg)]


def _reference_kinds(g: Gen) -> list[Kind]:
    """Templates, masked values, pagination cursors and UI strings that name a secret: no value."""
    out: list[Kind] = []
    out.append(("iac-templates-refs", (
        'variable "db_password" {\n  type      = string\n  sensitive = true\n}\n'
        'resource "aws_db_instance" "main" {\n  username = "app"\n  password = var.db_password\n'
        "  master_password = random_password.db.result\n}\n"
        "- name: create db user\n  community.postgresql.postgresql_user:\n    name: app\n"
        '    password: "{{ vault_db_password }}"\n  no_log: true\n'
        "ansible_become_pass: \"{{ lookup('env', 'BECOME_PASS') }}\"\n"
        "vault_password_file: ~/.vault_pass.txt\n"
        "apiVersion: v1\nkind: Secret\nstringData:\n  password: {{ .Values.db.password | quote }}\n"
        "  token: {{ required \"auth.token is required\" .Values.auth.token }}\n"
        "auth:\n  existingSecret: \"\"\n  secretKeys:\n    adminPasswordKey: admin-password\n"
        "spring:\n  datasource:\n    password: ${DB_PASSWORD:}\njwt:\n  secret: ${JWT_SECRET}\n")))
    out.append(("shell-secret-refs", (
        'read -r -s -p "Password: " PASSWORD\nexport PGPASSWORD="$DB_PASS"\n'
        'mysql -u root -p"$MYSQL_ROOT_PASSWORD" -e "SHOW DATABASES"\n'
        'curl -fsS -H "Authorization: Bearer $TOKEN" https://api.example.com/v1/me\n'
        'echo "$CR_PAT" | docker login ghcr.io -u USERNAME --password-stdin\n'
        "WARNING! Your password will be stored unencrypted in /root/.docker/config.json.\nLogin Succeeded\n"
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n"
        'gh secret set NPM_TOKEN --body "$NPM_TOKEN"\n')))
    out.append(("masked-credentials", (
        "$ gh auth status\ngithub.com\n  ✓ Logged in to github.com account octo-bot (keyring)\n"
        "  - Active account: true\n  - Git operations protocol: https\n"
        "  - Token: gho_************************************\n  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'\n"
        "$ aws configure list\n      Name                    Value             Type    Location\n"
        "      ----                    -----             ----    --------\n   profile                      dev           manual    --profile\n"
        "access_key     ****************WXYZ shared-credentials-file\nsecret_key     ****************abcd shared-credentials-file\n"
        "    region                us-east-1      config-file    ~/.aws/config\n"
        "$ kubectl get secrets\nNAME                  TYPE                                  DATA   AGE\n"
        f"default-token-{g.s(LOWER_DIGITS, 5)}   kubernetes.io/service-account-token   3      40d\n"
        "api-tls               kubernetes.io/tls                     2      12d\n"
        "OPENAI_API_KEY=sk-proj-...XyZ9 (masked)\n")))
    out.append(("pagination-cursors", json.dumps({
        "NextToken": base64.b64encode(json.dumps({"ExclusiveStartKey": {"pk": {"S": "item#" + str(g.r.randint(1, 999))}},
                                                  "boto_truncate_amount": 2}).encode()).decode(),
        "nextPageToken": g.s(ALNUM + "_-", 42), "next_cursor": "dXNlcjpVMEc5V0ZYTlo=",
        "continuationToken": g.s(ALNUM + "+/", 64) + "==", "PaginationToken": g.s(ALNUM, 40),
        "page_token": g.s(ALNUM + "_-", 22), "Marker": g.s(ALNUM, 20)}, indent=2)))
    locales = {
        "en": {"password": "Password", "password_placeholder": "Enter your password", "forgot_password": "Forgot your password?",
               "token_expired": "Your session has expired. Please sign in again.", "api_key": "API key", "secret": "Secret"},
        "de": {"password": "Passwort", "forgot_password": "Passwort vergessen?", "api_key": "API-Schlüssel", "secret": "Geheimnis"},
        "fr": {"password": "Mot de passe", "forgot_password": "Mot de passe oublié ?", "api_key": "Clé d'API", "secret": "Secret"},
        "es": {"password": "Contraseña", "forgot_password": "¿Olvidaste tu contraseña?", "api_key": "Clave de API"},
        "pt": {"password": "Senha", "api_key": "Chave de API", "token": "Token"},
        "nl": {"password": "Wachtwoord", "secret": "Geheim"},
    }
    out.append(("i18n-locales", "".join(f"$ cat locales/{k}.json\n" + json.dumps({"auth": v}, ensure_ascii=False, indent=2) + "\n"
                                        for k, v in locales.items())))
    out.append(("i18n-yaml-locales", (
        "de:\n  devise:\n    password: Passwort\n    password_confirmation: Passwortbestätigung\n"
        "    current_password: Aktuelles Passwort\nnl:\n  auth:\n    password: Wachtwoord\npt-BR:\n  auth:\n    password: Senha\n"
        "it:\n  auth:\n    password: Parola\nsv:\n  auth:\n    password: Lösenord\n")))
    out.append(("server-configs", (
        "server {\n  listen 443 ssl http2;\n  ssl_certificate     /etc/ssl/certs/api.pem;\n"
        "  ssl_certificate_key /etc/ssl/private/api.key;\n  auth_basic_user_file /etc/nginx/.htpasswd;\n"
        "  proxy_set_header Authorization $http_authorization;\n}\n"
        "# /etc/ssh/sshd_config\nPasswordAuthentication no\nPubkeyAuthentication yes\nAuthorizedKeysFile .ssh/authorized_keys\n"
        "Host bastion\n  IdentityFile ~/.ssh/id_ed25519\n  IdentitiesOnly yes\n"
        "$ git config --list --show-origin\nfile:/etc/gitconfig  credential.helper=store\n"
        "file:.git/config     gpg.format=ssh\nfile:.git/config     commit.gpgsign=true\n"
        "file:.git/config     user.signingkey=~/.ssh/id_ed25519.pub\n"
        "[pypi]\n  username = __token__\n  password = ${PYPI_TOKEN}\n")))
    out.append(("env-example-placeholders", (
        "# Copy to .env and fill in\nOPENAI_API_KEY=your-openai-api-key\nANTHROPIC_API_KEY=\nSTRIPE_SECRET_KEY=sk_test_...\n"
        "SECRET_KEY=changeme\nJWT_SECRET=replace-with-a-long-random-string\nAPI_TOKEN=<your-token>\n"
        "DATABASE_URL=postgres://USER:PASSWORD@localhost:5432/app\nGITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n")))
    out.append(("typed-models", (
        "type LoginRequest struct {\n\tEmail    string `json:\"email\" validate:\"required,email\"`\n"
        "\tPassword string `json:\"password\" validate:\"required,min=8\"`\n}\n"
        "token := r.Header.Get(\"Authorization\")\nlet api_key = std::env::var(\"API_KEY\")?;\n"
        "options.Password.RequiredLength = 12;\n"
        '"ConnectionStrings": { "Default": "Server=localhost;Database=app;Trusted_Connection=True;" }\n'
        "class User(BaseModel):\n    password: SecretStr\n    api_key: str | None = None\n    token: str = Field(repr=False)\n"
        "interface Session { token: string; refreshToken?: string; expiresAt: number }\n")))
    return out


def _system_kinds(g: Gen) -> list[Kind]:
    """System accounts, service state and cloud identity output: generic accounts, no person."""
    out: list[Kind] = []
    out.append(("system-accounts", (
        "$ tail -5 /etc/passwd\nsystemd-network:x:998:998:systemd Network Management:/:/usr/sbin/nologin\n"
        "systemd-timesync:x:997:997:systemd Time Synchronization:/:/usr/sbin/nologin\n"
        "messagebus:x:100:102::/nonexistent:/usr/sbin/nologin\n_apt:x:42:65534::/nonexistent:/usr/sbin/nologin\n"
        "postgres:x:999:999:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n"
        "$ ps aux | head -4\nUSER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
        "root           1  0.0  0.1 167744 12980 ?        Ss   10:00   0:02 /sbin/init\n"
        "postgres     812  0.0  0.4 215460 31212 ?        Ss   10:00   0:00 /usr/lib/postgresql/16/bin/postgres\n"
        "www-data    1207  0.0  0.1  55280  5120 ?        S    10:00   0:00 nginx: worker process\n"
        "$ id\nuid=0(root) gid=0(root) groups=0(root)\n$ ls -la /var/www\n"
        "drwxr-xr-x  3 root     root     4096 Nov 30 10:00 .\n-rw-r--r--  1 www-data www-data  612 Nov 30 10:00 index.html\n")))
    out.append(("systemd-journal", (
        "$ systemctl status api\n● api.service - API server\n     Loaded: loaded (/etc/systemd/system/api.service; enabled; preset: enabled)\n"
        f"     Active: active (running) since Mon 2026-11-30 10:00:00 UTC; 2h ago\n   Main PID: {g.r.randint(400, 9999)} (node)\n"
        f"     CGroup: /system.slice/api.service\n             └─{g.r.randint(400, 9999)} /usr/bin/node dist/server.js\n"
        f"$ journalctl -u api -n 2 -o json | head -1\n" + json.dumps({
            "__CURSOR": f"s={g.hex(32)};i={g.hex(5)};b={g.hex(32)};m={g.hex(6)};t={g.hex(13)};x={g.hex(16)}",
            "_BOOT_ID": g.hex(32), "_MACHINE_ID": g.hex(32), "_SYSTEMD_INVOCATION_ID": g.hex(32),
            "__REALTIME_TIMESTAMP": str(g.r.randint(1_700_000_000_000_000, 1_790_000_000_000_000)),
            "MESSAGE": "listening on :3000", "_PID": str(g.r.randint(400, 9999))}) + "\n")))
    out.append(("terraform-state", json.dumps({
        "version": 4, "terraform_version": "1.9.8", "serial": 42, "lineage": g.uuid4(), "outputs": {},
        "resources": [{"mode": "managed", "type": "aws_s3_bucket", "name": "logs", "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]",
                       "instances": [{"schema_version": 0, "attributes": {"id": "acme-logs-prod", "bucket_domain_name": "acme-logs-prod.s3.amazonaws.com",
                                                                          "hosted_zone_id": "Z3AQBSTGFYJSTF", "arn": "arn:aws:s3:::acme-logs-prod"},
                                      "sensitive_attributes": [], "private": base64.b64encode(b'{"schema_version":"1"}').decode()},
                                     {"schema_version": 1, "attributes": {"id": "sg-" + g.hex(17)}, "private": "bnVsbA=="}]}]}, indent=2)))
    out.append(("sts-identity", json.dumps({
        "UserId": "AROA" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 17) + ":botocore-session-" + str(g.r.randint(1_700_000_000, 1_790_000_000)),
        "Account": "123456789012",
        "Arn": "arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_AdministratorAccess_" + g.hex(16) + "/botocore-session-1767261604"},
        indent=4)))
    return out


# What RULES.md decides on purpose in these kinds: {kind: (regex of every span replaced, {rule: count})}.
DEBATABLE: dict[str, tuple[str, dict[str, int]]] = {
    # a link-local address built from the MAC (EUI-64, `ff:fe` in the middle) names the machine's
    # network card: the ipv6 rule takes it (its positive `fe80::1c2d:3eff:fe4f:5a6b`), fe80::1 it keeps
    "ip-ss-output": (r"fe80::[0-9a-f]{1,4}:[0-9a-f]{1,4}ff:fe[0-9a-f]{2}:[0-9a-f]{1,4}", {"ipv6-address": 1}),
    # the login `gh auth status` names is the user's account, taken like any username
    "masked-credentials": (r"(?<=account )octo-bot(?= \()", {"gh-auth-status-account": 1}),
}

CARD_FIXTURE = (
    "# tests/fixtures/cards.py: Stripe's documented test cards, not real cards\n"
    "STRIPE_TEST_CARDS = {\n    \"visa\": \"4242424242424242\",\n    \"mastercard\": \"5555555555554444\",\n"
    "    \"amex\": \"378282246310005\",\n    \"declined\": \"4000000000000002\",\n}\n")


def kinds(seed: int = 18) -> list[Kind]:
    g = Gen(seed)
    return (_code_kinds(g) + _env_kinds(g) + _log_kinds(g) + _vcs_kinds(g) + _infra_kinds(g)
            + _net_num_kinds(g) + _web_kinds(g) + _reference_kinds(g) + _system_kinds(g))


def transcript_line(text: str) -> bytes:
    """A Claude Code user record holding the text as a Bash tool result (and its toolUseResult)."""
    return json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01S18fp", "content": text}]},
        "toolUseResult": {"stdout": text, "stderr": "", "interrupted": False}}).encode()


def image_lines(seed: int = 18) -> dict[str, bytes]:
    """One screenshot per harness's image block (Claude Code tool_result image, Codex input_image and
    image generation result, pi image content, OpenCode file part, a notebook read)."""
    g = Gen(seed)
    png = base64.b64encode(_png(g, 32, 24)).decode()
    jpg = base64.b64encode(_jpeg(g)).decode()
    recs = {
        "claude-image": {"type": "user", "message": {"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": jpg}},
            {"type": "text", "text": "what is wrong in this screenshot?"}]}},
        "codex-input-image": {"timestamp": "2026-11-30T10:00:00.000Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_image", "image_url": f"data:image/png;base64,{png}"}]}},
        "codex-image-generation": {"timestamp": "2026-11-30T10:00:01.000Z", "type": "event_msg", "payload": {
            "type": "item_completed", "turn_id": "t1", "item": {"type": "ImageGeneration", "id": "ig_1", "status": "completed",
                                                                "result": png}}},
        "pi-image": {"type": "message", "id": "d4e5f6a7", "parentId": "c3d4e5f6", "timestamp": "2026-11-30T10:00:04.000Z",
                     "message": {"role": "user", "content": [{"type": "image", "data": png, "mimeType": "image/png"}],
                                 "timestamp": 1767261604000}},
        "opencode-file-part": {"id": "prt_" + g.s(ALNUM, 26), "type": "file", "mime": "image/png", "filename": "shot.png",
                               "url": f"data:image/png;base64,{png}"},
        "notebook-read": {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Nb", "content": json.dumps({"cells": [{"cell_type": "code",
             "outputs": [{"output_type": "display_data", "data": {"image/png": png, "image/jpeg": jpg,
                                                                  "text/plain": ["<Figure size 640x480 with 1 Axes>"]}}]}]})}]}},
    }
    return {k: json.dumps(v).encode() for k, v in recs.items()}
