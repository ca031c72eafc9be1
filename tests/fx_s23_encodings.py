"""Black-box HOME for the encodings audit (tests/test_s23_encodings.py): secrets and PII as they
appear inside agent transcripts after encoding, written from the seeds
(/work/shared/seeds/by-harness/claude-code.json, codex.json) with the record builders of
tests/fx_s21_blackbox.py.

Every needle is registered under a case name (CASES): the value that must not come out in any
form (raw, JSON-unescaped, URL-decoded, ANSI-stripped). Every id that must survive is
registered in `ids` and must come out byte for byte.

`build_home(root)` writes <root>/home/<USER>/.claude and .codex and returns the `Planted`.
"""

from __future__ import annotations

import base64
import json
import random
import string
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fx_s21_blackbox import ClaudeSession, hexid, png_b64, project_key, tool_id, uuid4, uuid7

USER = "tallowmere"           # the account name: must never come out, in any spelling
HOME = f"/home/{USER}"
B62 = string.ascii_letters + string.digits

# case name -> what it plants (the test's ids and evidence)
CASES = {
    "json-ascii-escaped-email": "non-ASCII e-mail addresses in JSONL lines written with ensure_ascii (\\u00xx)",
    "text-json-escaped-email": "\\u00xx-escaped e-mail addresses inside JSON held as text (curl output, NDJSON logs)",
    "text-json-escaped-slash-url": "https:\\/\\/user:pass@host in JSON held as text (PHP json_encode, logs)",
    "json-in-json": "a tool result whose content is a JSON document serialised to a string, two levels deep",
    "url-encoded-email": "user%40example.com in a query string",
    "url-encoded-password": "password=p%40ss%21w0rd in a query string",
    "url-encoded-credentials-url": "https%3A%2F%2Fuser%3Apass%40host inside a redirect parameter",
    "url-encoded-bearer": "Authorization%3A%20Bearer%20<token> in a query string",
    "home-forms": "the username in every form a tool prints it (paths, ~user, C:\\\\Users, file://, ls -l, prompt)",
    "ansi-around-token": "a colour code right before and after a token and a password",
    "ansi-inside-token": "grep --color highlighting a token's prefix: colour codes inside the token",
    "wrapped-token": "a token cut by terminal wrapping at 80 columns (the piece after the cut)",
    "diff-env": "-API_KEY=old / +API_KEY=new in Edit old_string/new_string, a patch and file-history backups",
    "heredoc": "cat > .env <<'EOF' ... EOF in a Bash command",
    "curl-bearer": "curl -H 'Authorization: Bearer ...'",
    "git-remote-token": "git remote -v output with a token in the URL",
    "base64-env": "base64 .env output (a run whose decoded text holds secrets), wrapped and -w0",
    "codex-nested-arguments": "Codex function_call arguments (JSON in a string) holding JSON in a string",
}


@dataclass
class Planted:
    home: Path
    needles: dict[str, dict[str, str]] = field(default_factory=lambda: {c: {} for c in CASES})  # case -> value -> where
    ids: dict[str, str] = field(default_factory=dict)        # value -> where (must survive byte for byte)
    kept_b64: dict[str, str] = field(default_factory=dict)   # base64 runs the rules say must stay
    sessions: set[str] = field(default_factory=set)


class Maker:
    def __init__(self, planted: Planted, seed: int = 2323) -> None:
        self.p = planted
        self.rng = random.Random(seed)

    def rand(self, n: int, alphabet: str = B62) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def needle(self, case: str, value: str, where: str) -> str:
        self.p.needles[case][value] = where
        return value

    def keep(self, value: str, where: str) -> str:
        self.p.ids[value] = where
        return value

    def ghp(self, case: str, where: str) -> str:
        body = self.rand(30)
        crc = zlib.crc32(body.encode())
        check = ""
        for _ in range(6):
            crc, r = divmod(crc, 62)
            check = B62[r] + check
        return self.needle(case, "ghp_" + body + check, where)

    def password(self, case: str, where: str) -> str:
        return self.needle(case, self.rand(5) + self.rng.choice("!%*-_#") + self.rand(5) + "7", where)

    def generic_key(self, case: str, where: str) -> str:
        return self.needle(case, self.rand(32), where)


# this Claude builder's Gen stand-in: ClaudeSession asks its gen for rng and keep only
class _ClaudeGen:
    def __init__(self, m: Maker) -> None:
        self.rng, self.keep = m.rng, m.keep


def write_jsonl(path: Path, records: list[dict[str, Any]], ascii_only: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=ascii_only) + "\n" for r in records), encoding="utf-8")


def tool_call(s: ClaudeSession, m: Maker, name: str, tool_input: dict[str, Any], result: Any,
              tur: dict[str, Any] | None = None) -> None:
    """One tool_use line and its tool_result line (content `result`, toolUseResult `tur`)."""
    tid = m.keep(tool_id(m.rng), f"claude tool_use id ({name})")
    a = s.assistant_lines([{"type": "tool_use", "id": tid, "name": name, "caller": {"type": "direct"},
                            "input": tool_input}], stop="tool_use")[0]
    extra = {"toolUseResult": tur} if tur is not None else {}
    s.node("user", sourceToolAssistantUUID=a, message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tid, "is_error": False, "content": result}]}, **extra)


# ------------------------------------------------------------------ the Claude session

def escaped_emails(m: Maker) -> tuple[str, str, str]:
    """Three addresses whose JSON spelling with ensure_ascii has \\u00xx escapes (one in the
    domain too), registered for the case that plants them in ensure_ascii lines."""
    n = m.rand(3, string.digits)
    return (f"zoë.müller{n}@firma-nordwind.de", f"jürgen.{m.rand(4, string.ascii_lowercase)}@bücher-{n}.de",
            f"françois.dupré{n}@exemple-société.fr")


def claude_session(m: Maker, home: Path) -> None:
    g = _ClaudeGen(m)
    rng = m.rng
    cwd = f"{HOME}/work/orbit-api"
    sid = m.keep(uuid4(rng), "claude session id")
    m.p.sessions.add(f"claude-code:{sid}")
    pdir = home / ".claude" / "projects" / project_key(cwd)
    s = ClaudeSession(g, sid, cwd, "main")

    # 1. a prompt with non-ASCII addresses; the line is written with ensure_ascii
    emails = escaped_emails(m)
    for e in emails:
        m.needle("json-ascii-escaped-email", e, "claude user prompt (ensure_ascii line)")
    s.node("user", promptSource="typed", message={"role": "user", "content":
           f"Mail {emails[0]} and {emails[1]}; cc {emails[2]} about the release."})

    # 2. curl with a bearer token, whose output is JSON held as text with \/ and \u00xx escapes
    bearer = m.needle("curl-bearer", m.rand(40, B62 + "-_."), "claude Bash input.command curl -H")
    db_pw = m.password("text-json-escaped-slash-url", "claude Bash tool_result (HTTP response body)")
    owner = "zoë.sørensen" + m.rand(3, string.digits)
    m.needle("text-json-escaped-email", owner, "claude Bash tool_result (\\u-escaped local part)")
    owner_js = json.dumps(owner)[1:-1]  # zo\u00eb.s\u00f8rensen123
    m.needle("text-json-escaped-email", owner_js, "claude Bash tool_result (escaped spelling)")
    m.needle("text-json-escaped-email", owner[:6], "claude Bash tool_result (the name before the first ASCII run)")
    sha = m.keep(hexid(rng, 40), "git sha in escaped JSON text")
    digest = m.keep(hexid(rng, 64), "sha256 in escaped JSON text")
    run_id = m.keep(uuid4(rng), "uuid in escaped JSON text")
    body = ('{"dsn":"postgres:\\/\\/admin:' + db_pw + '@db:5432\\/app","owner":"' + owner_js
            + '@firma-nordwind.de","commit":"' + sha + '","sha256":"' + digest + '","run":"' + run_id + '"}')
    response = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n" + body
    tool_call(s, m, "Bash", {"command": f"curl -s -i -H 'Authorization: Bearer {bearer}' https://api.northwind-ops.io/v1/config",
                             "description": "Fetch the service config"},
              response, {"stdout": response, "stderr": "", "interrupted": False})

    # 3. a tool result whose content is a JSON document serialised to a string, two levels deep
    api_key = m.generic_key("json-in-json", "claude mcp tool_result content (JSON in JSON)")
    nested_mail = m.needle("json-in-json", f"okafor.{m.rand(5, string.ascii_lowercase)}@northwind-{m.rand(4, string.ascii_lowercase)}.io",
                           "claude mcp tool_result content (JSON in JSON)")
    inner = json.dumps({"api_key": api_key, "owner_email": nested_mail, "home": f"{HOME}/.config/crm"})
    content = json.dumps({"status": 200, "body": inner})
    tool_call(s, m, "mcp__crm__get_settings", {"account": "acme"}, content)

    # 4. URL encodings
    url_mail = f"mira.osei{m.rand(3, string.digits)}@northwind-{m.rand(4, string.ascii_lowercase)}.io"
    m.needle("url-encoded-email", url_mail, "claude WebFetch input.url")
    enc_mail = url_mail.replace("@", "%40")
    m.needle("url-encoded-email", enc_mail, "claude WebFetch input.url")
    q_pw_plain = m.rand(4) + "@" + m.rand(3) + "!" + "w0rd"
    q_pw = q_pw_plain.replace("@", "%40").replace("!", "%21")
    m.needle("url-encoded-password", q_pw, "claude Bash curl query string")
    m.needle("url-encoded-password", q_pw_plain, "claude Bash curl query string (decoded)")
    cred_pw = m.password("url-encoded-credentials-url", "claude WebFetch redirect parameter")
    enc_bearer = m.needle("url-encoded-bearer", m.rand(36), "claude WebFetch query header parameter")
    uuid_q = m.keep(uuid4(rng), "uuid in an URL-encoded query")
    tool_call(s, m, "WebFetch", {"url": f"https://crm.northwind-ops.io/invite?to={enc_mail}&run={uuid_q}"
                                        f"&next=postgresql%3A%2F%2Fadmin%3A{cred_pw.replace('!', '%21').replace('#', '%23')}%40db%3A5432%2Fapp"
                                        f"&h=Authorization%3A%20Bearer%20{enc_bearer}",
                                 "prompt": "what does the invite page say"}, "Invite page: pending.")
    tool_call(s, m, "Bash", {"command": f"curl -s 'https://api.northwind-ops.io/login?user=ops&password={q_pw}&next=%2Fhome%2F{USER}%2Fapp'"},
              "302 Found")

    # 5. the username in every form
    m.needle("home-forms", USER, "claude Bash outputs (ls -l, prompt, ~user, C:\\Users, file://, /Users, %2F)")
    listing = (f"{USER}@devbox:~$ ls -l ~{USER}/work\ntotal 8\n"
               f"drwxr-xr-x  5 {USER} {USER} 4096 Mar 14 09:12 orbit-api\n"
               f"-rw-r--r--  1 {USER} staff  220 Mar 14 09:13 notes.md\n"
               f"{USER}@devbox:~$ ")
    tool_call(s, m, "Bash", {"command": f"ls -l ~{USER}/work"}, listing, {"stdout": listing, "stderr": ""})
    paths = (f"C:\\Users\\{USER}\\AppData\\Roaming\\npm\nfile:///home/{USER}/work/orbit-api/coverage/index.html\n"
             f"/Users/{USER}/Library/Caches/pip\nopen?path=%2Fhome%2F{USER}%2Fwork%2Fa.py\n~{USER}/.ssh/config\n")
    tool_call(s, m, "Bash", {"command": "cat paths.txt"}, paths)

    # 6. colour codes around and inside tokens
    coloured = m.ghp("ansi-around-token", "claude Bash tool_result \\x1b[31m<token>\\x1b[0m")
    coloured_pw = m.password("ansi-around-token", "claude Bash tool_result password=\\x1b[1m<pw>")
    grep_tok = m.ghp("ansi-inside-token", "claude Bash tool_result grep --color (prefix highlighted)")
    m.needle("ansi-inside-token", grep_tok[4:], "claude Bash tool_result grep --color (body after the colour code)")
    log_sha = m.keep(hexid(rng, 40), "git sha in coloured git log")
    out = (f"\x1b[33mcommit {log_sha}\x1b[m\nAuthor: CI Bot <ci@example.com>\n\n"
           f"token: \x1b[31m{coloured}\x1b[0m\npassword=\x1b[1m{coloured_pw}\x1b[0m\n")
    tool_call(s, m, "Bash", {"command": "git log -1 --color=always; ./show-creds.sh"}, out)
    grep = f".env:3:GITHUB_TOKEN=\x1b[01;31m\x1b[Kghp_\x1b[m\x1b[K{grep_tok[4:]}\n"
    tool_call(s, m, "Bash", {"command": "grep --color=always -n ghp_ .env"}, grep)

    # 7. a token wrapped by the terminal
    wrapped = m.ghp("wrapped-token", "claude Bash tool_result (token wrapped at column 80)")
    m.p.needles["wrapped-token"].pop(wrapped)
    line = f"{'Using credentials from the keychain entry for github.com:':<56}{wrapped}"
    m.needle("wrapped-token", wrapped[:24], "claude Bash tool_result (token head before the wrap)")
    m.needle("wrapped-token", wrapped[24:], "claude Bash tool_result (token tail after the wrap)")
    tool_call(s, m, "Bash", {"command": "./whoami.sh --verbose"}, line[:80] + "\n" + line[80:] + "\n")

    # 8. a diff: Edit old_string/new_string, the structured patch and file-history backups
    old_key, new_key = (m.generic_key("diff-env", f"claude Edit {w} API_KEY") for w in ("old_string", "new_string"))
    env_path = f"{cwd}/.env"
    original = f"DEBUG=0\nAPI_KEY={old_key}\n"
    tool_call(s, m, "Edit", {"file_path": env_path, "old_string": f"API_KEY={old_key}", "new_string": f"API_KEY={new_key}"},
              f"The file {env_path} has been updated.",
              {"filePath": env_path, "oldString": f"API_KEY={old_key}", "newString": f"API_KEY={new_key}",
               "originalFile": original, "userModified": False, "replaceAll": False,
               "structuredPatch": [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1,
                                    "lines": [f"-API_KEY={old_key}", f"+API_KEY={new_key}"]}]})
    fh_hash = m.keep(hexid(rng, 16), "claude file-history hash")
    fh_dir = home / ".claude" / "file-history" / sid
    fh_dir.mkdir(parents=True)
    (fh_dir / f"{fh_hash}@v1").write_text(original)
    (fh_dir / f"{fh_hash}@v2").write_text(f"DEBUG=0\nAPI_KEY={new_key}\n")
    s.meta("file-history-snapshot", messageId=s.last, isSnapshotUpdate=False, snapshot={
        "messageId": s.last, "timestamp": s.ts(), "trackedFileBackups": {env_path: {
            "backupFileName": f"{fh_hash}@v1", "version": 1, "backupTime": s.ts()}}})
    s.meta("file-history-delta", messageId=s.last, snapshotMessageId=s.last, timestamp=s.ts(), trackingPath=env_path,
           backup={"backupFileName": f"{fh_hash}@v2", "version": 2, "backupTime": s.ts()})

    # 9. a heredoc
    here_pw = m.password("heredoc", "claude Bash input.command heredoc DB_PASSWORD")
    here_key = m.needle("heredoc", "sk_live_" + m.rand(24), "claude Bash input.command heredoc STRIPE_SECRET_KEY")
    tool_call(s, m, "Bash", {"command": f"cat > .env.local <<'EOF'\nDB_PASSWORD={here_pw}\nSTRIPE_SECRET_KEY={here_key}\nEOF"}, "")

    # 10. git remote -v with tokens in the URLs
    remote_tok = m.ghp("git-remote-token", "claude Bash git remote -v (github)")
    glpat = m.needle("git-remote-token", "glpat-" + m.rand(20), "claude Bash git remote -v (gitlab)")
    plain_pw = m.password("git-remote-token", "claude Bash git remote -v (self-hosted)")
    remotes = (f"origin\thttps://{USER}:{remote_tok}@github.com/northwind/orbit-api.git (fetch)\n"
               f"origin\thttps://{USER}:{remote_tok}@github.com/northwind/orbit-api.git (push)\n"
               f"mirror\thttps://oauth2:{glpat}@gitlab.com/northwind/orbit-api.git (fetch)\n"
               f"backup\thttps://deploy:{plain_pw}@git.northwind-ops.io/orbit-api.git (push)\n")
    tool_call(s, m, "Bash", {"command": "git remote -v"}, remotes, {"stdout": remotes, "stderr": ""})

    # 11. base64: a .env shown as base64 (wrapped and -w0); a screenshot shown as base64 must stay
    env = f"DB_PASSWORD={m.rand(14)}\nAWS_SECRET_ACCESS_KEY={m.rand(40, B62 + '/+')}\n"
    wrapped_b64 = base64.encodebytes(env.encode()).decode()
    flat_b64 = base64.b64encode((f"cwd={HOME}/work\n" + env).encode()).decode()
    m.needle("base64-env", wrapped_b64.splitlines()[0], "claude Bash base64 .env (wrapped, first line)")
    m.needle("base64-env", flat_b64, "claude Bash base64 -w0 .env")
    tool_call(s, m, "Bash", {"command": "base64 .env"}, wrapped_b64)
    tool_call(s, m, "Bash", {"command": "base64 -w0 .env"}, flat_b64)
    shot = m.keep(png_b64(rng, 12), "base64 PNG printed by `base64 -w0 shot.png`")
    tool_call(s, m, "Bash", {"command": "base64 -w0 shot.png"}, shot)
    # a file holding only a third party's address: the decode pass counts secrets, runtime and
    # custom packs, not pii (docs/RULES.md `decode_packs`), so the run stays as written
    contacts = base64.b64encode(f"owner: marguerite.lindqvist{m.rand(2, string.digits)}@acmecorp.co.uk\n".encode()).decode()
    m.p.kept_b64[contacts] = "claude Bash base64 contacts.txt (an e-mail only)"
    tool_call(s, m, "Bash", {"command": "base64 -w0 contacts.txt"}, contacts)
    img = m.keep(png_b64(rng, 16), "claude image block base64")
    tool_call(s, m, "Read", {"file_path": f"{cwd}/shot.png"},
              [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": img}}])

    # 12. a persisted tool result (text sidecar): NDJSON logs with Go's and PHP's escapes
    out_id = m.keep("b" + hexid(rng, 8), "claude tool-results id")
    go_pw = m.password("text-json-escaped-slash-url", "claude tool-results/<id>.txt NDJSON (\\u0026password=)")
    slash_pw = m.password("text-json-escaped-slash-url", "claude tool-results/<id>.txt NDJSON (https:\\/\\/)")
    nd_owner = "jürgen.ölmann" + m.rand(2, string.digits)
    nd_owner_js = json.dumps(nd_owner)[1:-1]
    m.needle("text-json-escaped-email", nd_owner_js, "claude tool-results/<id>.txt NDJSON (escaped local part)")
    m.needle("text-json-escaped-email", nd_owner, "claude tool-results/<id>.txt NDJSON (local part)")
    nd_uuid = m.keep(uuid4(rng), "uuid in NDJSON text")
    ndjson = "\n".join([
        '{"level":"info","ts":"2026-03-14T09:00:01Z","msg":"login","url":"https://api.northwind-ops.io/login?user=ops\\u0026password=' + go_pw + '"}',
        '{"level":"warn","msg":"retry","upstream":"https:\\/\\/svc:' + slash_pw + '@queue:8443\\/jobs","request_id":"' + nd_uuid + '"}',
        '{"level":"info","msg":"mail sent","to":"' + nd_owner_js + '@b\\u00fccher-nord.de"}',
    ]) + "\n" * 3 + "row\n" * 50
    result_rel = f"projects/{project_key(cwd)}/{sid}/tool-results/{out_id}.txt"
    (home / ".claude" / result_rel).parent.mkdir(parents=True, exist_ok=True)
    (home / ".claude" / result_rel).write_text(ndjson)
    persisted = f"{HOME}/.claude/{result_rel}"
    tool_call(s, m, "Bash", {"command": "docker logs api --tail 3"},
              f"<persisted-output>\nOutput too large. Full output saved to: {persisted}\n</persisted-output>",
              {"stdout": ndjson[:400], "stderr": "", "interrupted": False, "persistedOutputPath": persisted,
               "persistedOutputSize": len(ndjson)})
    s.assistant_lines([{"type": "text", "text": "Done."}])
    write_jsonl(pdir / f"{sid}.jsonl", s.records, ascii_only=True)


# ------------------------------------------------------------------ the Codex rollout

def codex_line(rtype: str, payload: dict[str, Any], sec: int) -> dict[str, Any]:
    return {"timestamp": f"2026-03-14T08:15:{sec % 60:02d}.{sec * 37 % 1000:03d}Z", "type": rtype, "payload": payload}


def codex_rollout(m: Maker, home: Path) -> None:
    rng = m.rng
    tid = m.keep(uuid7(rng, 1773476102000), "codex thread id")
    m.p.sessions.add(f"codex:{tid}")
    cwd = f"{HOME}/work/ledger-svc"
    meta = {"id": tid, "session_id": tid, "timestamp": "2026-03-14T08:15:02.600Z", "cwd": cwd,
            "originator": "codex_cli_rs", "cli_version": "0.164.0", "source": "cli", "model_provider": "openai",
            "base_instructions": {"text": "You are a coding agent."},
            "git": {"commit_hash": m.keep(hexid(rng, 40), "codex git.commit_hash"), "branch": "main"}}
    recs = [codex_line("session_meta", meta, 2)]
    turn = m.keep(uuid7(rng, 1773476103000), "codex turn_id")
    recs.append(codex_line("turn_context", {"turn_id": turn, "cwd": cwd, "approval_policy": "on-request",
                                            "model": "gpt-5-codex", "effort": "medium", "summary": "none"}, 3))
    recs.append(codex_line("response_item", {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "check the webhook config"}]}, 4))
    # arguments: JSON in a string; its cmd posts a JSON body that is itself escaped JSON
    hook_secret = m.generic_key("codex-nested-arguments", "codex function_call arguments (JSON in JSON in JSON)")
    hook_tok = m.needle("codex-nested-arguments", m.rand(40), "codex function_call arguments curl -H Bearer")
    body = json.dumps({"config": json.dumps({"webhook_secret": hook_secret})})
    cmd = f"curl -s -X PUT -H 'Authorization: Bearer {hook_tok}' -d '{body}' https://hooks.northwind-ops.io/v2"
    call = m.keep("call_" + m.rand(24), "codex call_id")
    recs.append(codex_line("response_item", {"type": "function_call", "name": "exec_command", "call_id": call,
                                             "arguments": json.dumps({"cmd": cmd, "workdir": cwd})}, 5))
    out_secret = m.generic_key("codex-nested-arguments", "codex function_call_output (JSON in JSON)")
    out_doc = json.dumps({"ok": True, "saved": json.dumps({"signing_secret": out_secret, "owner": f"~{USER}"})})
    recs.append(codex_line("response_item", {"type": "function_call_output", "call_id": call,
                                             "output": json.dumps({"output": out_doc, "metadata": {"exit_code": 0}})}, 6))
    recs.append(codex_line("response_item", {"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "Updated."}]}, 7))
    day = home / ".codex" / "sessions" / "2026" / "03" / "14"
    write_jsonl(day / f"rollout-2026-03-14T09-15-02-{tid}.jsonl", recs, ascii_only=False)


def build_home(root: Path) -> Planted:
    home = root / "home" / USER
    planted = Planted(home=home)
    m = Maker(planted)
    claude_session(m, home)
    codex_rollout(m, home)
    return planted
