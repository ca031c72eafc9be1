"""IAM kit of the s18 least-privilege test: moto's S3 server on 127.0.0.1 wrapped by a WSGI
recorder (the CLI runs in its own process, so calls are captured server-side), each recorded
HTTP request mapped to the IAM actions AWS authorizes it with, and a small evaluator of the
deploy/iam policy documents (Allow/Deny, wildcards, the condition operators they use).

No tests here; tests/test_s18_iam.py uses it.
"""

from __future__ import annotations

import io
import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import parse_qs, unquote
from xml.etree import ElementTree

import pytest

ACCOUNT = "123456789012"
KMS_ARN = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab"


@dataclass(frozen=True)
class Call:
    """One IAM authorization an S3 request needs: action, resource ARN and the request's
    condition context (s3:prefix, s3:if-none-match, ...)."""

    action: str
    resource: str
    context: tuple[tuple[str, str], ...] = ()
    http: str = ""  # "GET /bucket/key?query" for messages

    def ctx(self) -> dict[str, str]:
        return dict(self.context)


@dataclass
class Recorder:
    """Every request the server saw, as (method, path, query, request headers, response headers, body)."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    fail: Callable[[dict[str, Any]], bool] | None = None  # inject a 403 for matching requests

    def mark(self) -> int:
        with self.lock:
            return len(self.requests)

    def since(self, start: int) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.requests[start:])


def _recording_app(app: Any, rec: Recorder) -> Any:
    def wrapped(environ: dict[str, Any], start_response: Any) -> Any:
        query = environ.get("QUERY_STRING", "")
        req = {
            "method": environ["REQUEST_METHOD"],
            "path": unquote(environ.get("PATH_INFO", "")),
            "query": {k: v[0] for k, v in parse_qs(query, keep_blank_values=True).items()},
            "headers": {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")},
            "body": b"",
            "response": {},
        }
        if req["method"] == "POST" and "delete" in req["query"]:  # DeleteObjects: the keys are in the body
            n = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(n)
            environ["wsgi.input"] = io.BytesIO(body)
            req["body"] = body
        with rec.lock:
            rec.requests.append(req)
        if rec.fail is not None and rec.fail(req):
            start_response("403 Forbidden", [("Content-Type", "application/xml")])
            return [b"<Error><Code>AccessDenied</Code><Message>injected by the test</Message></Error>"]

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            req["status"] = int(status.split()[0])
            req["response"] = {k.lower(): v for k, v in headers}
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return wrapped


@pytest.fixture(scope="module")
def recording_s3() -> Iterator[tuple[str, Recorder]]:
    """(endpoint, recorder): a moto S3 server of its own, every request recorded."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import make_server

    rec = Recorder()
    app = _recording_app(DomainDispatcherApplication(create_backend_app), rec)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=MotoRequestHandler)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", rec
    finally:
        server.shutdown()
        t.join()


# ---------------------------------------------------------------- request -> IAM actions
# https://docs.aws.amazon.com/AmazonS3/latest/userguide/using-with-s3-policy-actions.html
_BUCKET_SUB = {
    "GET": {"uploads": "ListBucketMultipartUploads", "versions": "ListBucketVersions", "location": "GetBucketLocation",
            "versioning": "GetBucketVersioning", "encryption": "GetEncryptionConfiguration",
            "object-lock": "GetBucketObjectLockConfiguration", "lifecycle": "GetLifecycleConfiguration",
            "policy": "GetBucketPolicy", "publicAccessBlock": "GetBucketPublicAccessBlock",
            "tagging": "GetBucketTagging", "acl": "GetBucketAcl", "ownershipControls": "GetBucketOwnershipControls",
            "cors": "GetBucketCORS", "logging": "GetBucketLogging", "notification": "GetBucketNotification",
            "replication": "GetReplicationConfiguration", "website": "GetBucketWebsite"},
    "PUT": {"versioning": "PutBucketVersioning", "encryption": "PutEncryptionConfiguration",
            "object-lock": "PutBucketObjectLockConfiguration", "lifecycle": "PutLifecycleConfiguration",
            "policy": "PutBucketPolicy", "publicAccessBlock": "PutBucketPublicAccessBlock",
            "tagging": "PutBucketTagging", "acl": "PutBucketAcl", "ownershipControls": "PutBucketOwnershipControls"},
    "DELETE": {"lifecycle": "PutLifecycleConfiguration", "policy": "DeleteBucketPolicy",
               "publicAccessBlock": "PutBucketPublicAccessBlock", "encryption": "PutEncryptionConfiguration",
               "tagging": "PutBucketTagging"},
}
_BUCKET_DEFAULT = {"GET": "ListBucket", "HEAD": "ListBucket", "PUT": "CreateBucket", "DELETE": "DeleteBucket"}
_KEY_SUB = {
    "GET": {"retention": "GetObjectRetention", "legal-hold": "GetObjectLegalHold", "tagging": "GetObjectTagging",
            "acl": "GetObjectAcl", "uploadId": "ListMultipartUploadParts", "attributes": "GetObjectAttributes"},
    "PUT": {"retention": "PutObjectRetention", "legal-hold": "PutObjectLegalHold", "tagging": "PutObjectTagging",
            "acl": "PutObjectAcl"},
    "DELETE": {"uploadId": "AbortMultipartUpload", "tagging": "DeleteObjectTagging"},
    "POST": {"restore": "RestoreObject", "select": "GetObject"},
}


def iam_calls(req: dict[str, Any], kms_arn: str = KMS_ARN) -> list[Call]:
    """The authorizations AWS checks for one S3 request (path-style: /bucket[/key])."""
    method, q, h = req["method"], req["query"], req["headers"]
    bucket, _, key = req["path"].lstrip("/").partition("/")
    http = f"{method} {req['path']}" + ("?" + "&".join(sorted(q)) if q else "")
    if not bucket:
        return [Call("s3:ListAllMyBuckets", "*", (), http)]
    barn, karn = f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/{key}"
    out: list[Call] = []

    def add(action: str, arn: str, **ctx: str) -> None:
        out.append(Call(f"s3:{action}", arn, tuple(sorted(ctx.items())), http))

    if not key:
        if method == "POST" and "delete" in q:  # DeleteObjects: one DeleteObject(Version) per key
            root = ElementTree.fromstring(req["body"])
            for obj in root.iter():
                if obj.tag.endswith("Object"):
                    k = next(c.text for c in obj if c.tag.endswith("Key"))
                    versioned = any(c.tag.endswith("VersionId") for c in obj)
                    add("DeleteObjectVersion" if versioned else "DeleteObject", f"{barn}/{k}")
        else:
            sub = next((a for s, a in _BUCKET_SUB.get(method, {}).items() if s in q), None)
            action = sub or _BUCKET_DEFAULT[method]
            ctx = {"s3:prefix": q.get("prefix", "")} if action in ("ListBucket", "ListBucketVersions") and "prefix" in q else {}
            add(action, barn, **ctx)
    else:
        sub = next((a for s, a in _KEY_SUB.get(method, {}).items() if s in q), None)
        if sub:
            add(sub, karn)
        elif method in ("GET", "HEAD"):
            add("GetObjectVersion" if "versionId" in q else "GetObject", karn)
        elif method in ("PUT", "POST"):  # PutObject, UploadPart, Create/CompleteMultipartUpload
            ctx = {"s3:if-none-match": h["if-none-match"]} if "if-none-match" in h else {}
            add("PutObject", karn, **ctx)
            if "x-amz-copy-source" in h:
                add("GetObject", "arn:aws:s3:::" + unquote(h["x-amz-copy-source"]).lstrip("/").split("?")[0])
            if "x-amz-object-lock-mode" in h:
                add("PutObjectRetention", karn)
            if h.get("x-amz-object-lock-legal-hold", "").upper() == "ON":
                add("PutObjectLegalHold", karn)
            if "x-amz-tagging" in h:
                add("PutObjectTagging", karn)
        elif method == "DELETE":
            add("DeleteObjectVersion" if "versionId" in q else "DeleteObject", karn)
        if h.get("x-amz-bypass-governance-retention", "").lower() == "true":
            add("BypassGovernanceRetention", karn)
    out += _kms_calls(req, kms_arn, http)
    return out


def _kms_calls(req: dict[str, Any], kms_arn: str, http: str) -> list[Call]:
    """SSE-KMS: S3 calls KMS as the caller. Writes need GenerateDataKey; a multipart upload also
    Decrypt (S3 reads the parts back to complete it); a read of an aws:kms object needs Decrypt."""
    h, resp, q = req["headers"], req.get("response", {}), req["query"]
    if req["method"] in ("PUT", "POST") and h.get("x-amz-server-side-encryption") == "aws:kms":
        out = [Call("kms:GenerateDataKey", kms_arn, (), http)]
        if "uploads" in q:
            out.append(Call("kms:Decrypt", kms_arn, (), http))
        return out
    if req["method"] in ("GET", "HEAD") and resp.get("x-amz-server-side-encryption") == "aws:kms" \
            and req.get("status", 200) < 300 and "retention" not in q and "legal-hold" not in q:
        return [Call("kms:Decrypt", kms_arn, (), http)]
    return []


# ---------------------------------------------------------------- policy evaluation
@dataclass
class Policy:
    doc: dict[str, Any]

    @classmethod
    def load(cls, path: Path, values: dict[str, str]) -> "Policy":
        text = path.read_text()
        for name, value in sorted(values.items(), key=lambda kv: -len(kv[0])):  # HOST_ID before HOST
            text = re.sub(rf"\b{name}\b", value, text)
        return cls(json.loads(text))

    def statements(self) -> list[dict[str, Any]]:
        return list(self.doc["Statement"])

    def decide(self, call: Call) -> tuple[str, list[str]]:
        """("Deny" | "Allow" | "ImplicitDeny", the Sids that matched)."""
        allow, deny = [], []
        for s in self.statements():
            if _matches(s, call):
                (deny if s["Effect"] == "Deny" else allow).append(s.get("Sid", "?"))
        if deny:
            return "Deny", deny
        return ("Allow", allow) if allow else ("ImplicitDeny", [])

    def granted(self) -> list[tuple[str, str]]:
        """(Sid, action) of every action each Allow statement names."""
        return [(s["Sid"], a) for s in self.statements() if s["Effect"] == "Allow" for a in _list(s["Action"])]


def _list(v: Any) -> list[str]:
    return [v] if isinstance(v, str) else list(v)


def _like(pattern: str, value: str, case: bool = True) -> bool:
    """IAM wildcards: * any run, ? one character (no [] classes, unlike fnmatch)."""
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, value, 0 if case else re.IGNORECASE) is not None


def _matches(stmt: dict[str, Any], call: Call) -> bool:
    if not any(_like(a, call.action, case=False) for a in _list(stmt["Action"])):
        return False
    if not any(_like(r, call.resource) for r in _list(stmt["Resource"])):
        return False
    return _conditions(stmt.get("Condition", {}), call.ctx())


def _conditions(cond: dict[str, Any], ctx: dict[str, str]) -> bool:
    ctx = {"aws:MultiFactorAuthPresent": "false", **ctx}
    for op, tests in cond.items():
        base, if_exists = (op[:-8], True) if op.endswith("IfExists") else (op, False)
        for k, want in tests.items():
            wants, have = _list(want), ctx.get(k)
            if base == "Null":
                if (have is None) != (wants[0] == "true"):
                    return False
                continue
            if have is None:
                if if_exists:
                    continue
                return False
            if base == "StringLike":
                ok = any(_like(w, have) for w in wants)
            elif base in ("StringEquals", "Bool"):
                ok = have in wants
            else:
                raise ValueError(f"condition operator {op} is not modelled")
            if not ok:
                return False
    return True

