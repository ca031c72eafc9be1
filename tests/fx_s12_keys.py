"""Secrets under generic key names, in the syntaxes a coding agent's session shows them, and their
negative twins: the same syntaxes holding values that must stay (SHAs, UUIDs, ids, paths, S3 object
keys, i18n keys, enum-like names, versions, images).

`positives(seed)` and `negatives(seed)` give (family, text, values): the values must be gone from the
redacted text (positives) or the text must come out unchanged (negatives). Values are random with a
seeded generator, in the shapes real keys have: base62 / base64 / base64url / hex of 32-64 characters.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


class _Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def s(self, alphabet: str, n: int) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def b62(self, n: int = 32) -> str:
        while True:  # base62 as key generators make it: upper, lower and digits all present
            v = self.s(B62, n)
            if any(c.isupper() for c in v) and any(c.islower() for c in v) and any(c.isdigit() for c in v):
                return v

    def b64(self, nbytes: int = 32) -> str:
        while True:
            v = base64.b64encode(self.r.randbytes(nbytes)).decode()
            if any(c.isdigit() for c in v):
                return v

    def b64url(self, nbytes: int = 32) -> str:
        while True:
            v = base64.urlsafe_b64encode(self.r.randbytes(nbytes)).decode().rstrip("=")
            if any(c.isdigit() for c in v) and any(c.isupper() for c in v):
                return v

    def hex(self, n: int = 32) -> str:
        return self.s(HEX, n)

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.r.getrandbits(128), version=4))


def _values(g: _Gen) -> list[tuple[str, str, bool]]:
    """(shape name, value, hex-only): the random secret shapes, hex flagged (a bare `key` with a hex
    value is not judged a secret: an MD5 cache key has that shape)."""
    return [("b62-32", g.b62(32), False), ("b64-44", g.b64(32), False), ("b64url-43", g.b64url(32), False),
            ("b62-48", g.b62(48), False), ("hex-32", g.hex(32), True)]


def positives(seed: int = 12) -> list[tuple[str, str, list[str]]]:
    g = _Gen(seed)
    out: list[tuple[str, str, list[str]]] = []

    def add(fam: str, text: str, *values: str) -> None:
        out.append((fam, text, list(values)))

    for shape, v, hexonly in _values(g):
        # JSON, flat: names ending in key/Key (snake, camel, Pascal), and bare key/secret
        add(f"json-snake-{shape}", json.dumps({"Stripe_Key": v, "mode": "live"}), v)
        add(f"json-camel-{shape}", json.dumps({"mapboxKey": v, "style": "streets-v12"}, indent=2), v)
        add(f"json-pascal-{shape}", json.dumps({"Logging": {"Level": "Info"}, "SendGridKey": v}, indent=2), v)
        # JSON, nested: a parent names the service or the purpose
        add(f"json-parent-stripe-secret-{shape}", json.dumps({"stripe": {"secret": v, "currency": "eur"}}), v)
        add(f"json-parent-jwt-{shape}", json.dumps({"Jwt": {"Key": v, "Issuer": "acme"}}, indent=2), v)
        add(f"json-parent-hmac-{shape}", json.dumps({"hmac": {"key": v, "algo": "sha256"}}), v)
        add(f"json-parent-signing-{shape}", json.dumps({"signing": {"key": v}}), v)
        add(f"json-parent-encryption-{shape}", json.dumps({"encryption": {"key": v, "cipher": "aes-256-gcm"}}), v)
        add(f"json-parent-webhook-{shape}", json.dumps({"webhook": {"secret": v, "url": "https://hooks.acme.io/x"}}), v)
        add(f"json-parent-oauth-{shape}", json.dumps({"oauth": {"clientId": "acme-web", "key": v}}), v)
        # YAML, TOML, INI, .properties, HCL
        add(f"yaml-{shape}", f"mail:\n  provider: sendgrid\n  sendgrid_key: {v}\n", v)
        add(f"yaml-quoted-{shape}", f"payments:\n  stripeKey: \"{v}\"\n", v)
        add(f"yaml-parent-signing-{shape}", f"signing:\n  algorithm: HS256\n  key: {v}\n", v)
        add(f"toml-{shape}", f"[services.mapbox]\nmapbox_key = \"{v}\"\n", v)
        add(f"ini-section-{shape}", f"[hmac]\nalgo = sha256\nkey = {v}\n", v)
        add(f"properties-{shape}", f"app.name=shop\nstripe.key={v}\nstripe.currency=eur\n", v)
        add(f"hcl-{shape}", f"variable \"x\" {{}}\nresource \"acme_app\" \"a\" {{\n  mapbox_key = \"{v}\"\n}}\n", v)
        # XML attributes and elements
        add(f"xml-attr-{shape}", f"<payment provider=\"stripe\" stripeKey=\"{v}\" />", v)
        add(f"xml-element-{shape}", f"<settings><MapboxKey>{v}</MapboxKey></settings>", v)
        # code: JS/TS, Python, Go, Ruby, PHP, Java, Kotlin, C#, Swift
        add(f"js-const-{shape}", f"const stripeKey = '{v}';\n", v)
        add(f"ts-typed-{shape}", f"export const mapboxKey: string = \"{v}\";\n", v)
        add(f"js-object-{shape}", f"const cfg = {{ sendgridKey: '{v}', region: 'eu' }};\n", v)
        add(f"py-assign-{shape}", f"stripe_key = '{v}'\n", v)
        add(f"py-kwarg-{shape}", f"client = Client(api_base=BASE, stripe_key=\"{v}\")\n", v)
        add(f"py-dict-{shape}", f"CONFIG = {{'mapbox_key': '{v}', 'zoom': 3}}\n", v)
        add(f"go-struct-{shape}", f"cfg := Config{{\n\tStripeKey: \"{v}\",\n\tRegion: \"eu\",\n}}\n", v)
        add(f"go-short-{shape}", f"stripeKey := \"{v}\"\n", v)
        add(f"ruby-hash-{shape}", f"Stripe.configure(stripe_key: '{v}', currency: 'eur')\n", v)
        add(f"ruby-rocket-{shape}", f"config = {{ :mapbox_key => \"{v}\" }}\n", v)
        add(f"php-array-{shape}", f"return ['stripe_key' => '{v}', 'mode' => 'live'];\n", v)
        add(f"php-var-{shape}", f"$stripeKey = '{v}';\n", v)
        add(f"java-{shape}", f"private static final String STRIPE_KEY = \"{v}\";\n", v)
        add(f"kotlin-{shape}", f"val mapboxKey = \"{v}\"\n", v)
        add(f"csharp-{shape}", f"private const string SendGridKey = \"{v}\";\n", v)
        add(f"swift-{shape}", f"let stripeKey: String = \"{v}\"\n", v)
        if not hexonly:
            # a bare `key` holds a secret when its value is random base62/base64 (not hex: see SECURITY.md)
            add(f"json-bare-{shape}", json.dumps({"key": v}), v)
            add(f"json-parent-stripe-key-{shape}", json.dumps({"stripe": {"key": v}}), v)
            add(f"py-kwarg-bare-{shape}", f"client = Client(key='{v}')\n", v)
            add(f"py-assign-bare-{shape}", f"key = '{v}'\n", v)
            add(f"ini-bare-{shape}", f"[stripe]\nkey = {v}\n", v)
            add(f"yaml-bare-{shape}", f"stripe:\n  key: {v}\n", v)
            add(f"fernet-{shape}", f"f = Fernet(key=b'{v}')\n", v)
    return out


def negatives(seed: int = 12) -> list[tuple[str, str]]:
    """(family, text) that must come out unchanged."""
    g = _Gen(seed + 1000)
    sha1, sha256, u = g.hex(40), g.hex(64), g.uuid()
    md5 = g.hex(32)
    img = base64.b64encode(b"\x89PNG\r\n\x1a\n" + g.r.randbytes(90)).decode()
    out: list[tuple[str, str]] = []

    def add(fam: str, text: str) -> None:
        out.append((fam, text))

    cases = {
        # SHAs, UUIDs, ids under key names
        "json-cache-key-sha": json.dumps({"cache_key": sha1}),
        "json-key-sha256": json.dumps({"key": sha256}),
        "json-key-md5": json.dumps({"key": md5}),
        "json-key-uuid": json.dumps({"key": u, "value": "x"}),
        "json-idempotency-uuid": json.dumps({"idempotencyKey": u}),
        "json-idempotency-random": json.dumps({"idempotency_key": g.b62(32)}),
        "json-commit-sha": json.dumps({"commit": sha1, "tree": sha1[::-1]}),
        "yaml-cache-key": f"cache_key: {sha256}\n",
        "yaml-cache-key-random": f"  cacheKey: {g.b62(32)}\n",
        "py-cache-key": f"cache_key = '{sha1}'\n",
        "js-dedup-key": f"const dedupKey = '{g.b62(32)}';\n",
        "json-partition-key-random": json.dumps({"partitionKey": g.b62(24)}),
        # S3 object keys and paths
        "json-s3-key": json.dumps({"Key": "uploads/2024/03/" + g.hex(32) + ".png", "Size": 12345}),
        "json-s3-key-noext": json.dumps({"Key": "tenants/42/avatars/" + g.b62(32)}),
        "py-s3-key": f"s3.put_object(Bucket='b', Key='exports/{g.b62(24)}/report.csv')\n",
        "yaml-object-key": f"object_key: backups/db/{g.b62(32)}\n",
        "json-key-path": json.dumps({"key": "/srv/acme/config/" + g.b62(20)}),
        # i18n keys, enum-like names, sort/primary/foreign keys
        "json-i18n-key": json.dumps({"key": "settings.notifications.emailDigest.title", "defaultMessage": "Email"}),
        "js-i18n": "t({ key: 'checkout.paymentMethod.cardNumberPlaceholder' })\n",
        "json-enum": json.dumps({"key": "PRIMARY", "keyType": "HASH"}),
        "yaml-sort-key": "sort_key: created_at\nprimary_key: id\n",
        "py-primary-key": "id = models.AutoField(primary_key=True)\nuser = models.ForeignKey(User, on_delete=models.CASCADE)\n",
        "json-foreign-key": json.dumps({"foreign_key": "customer_id", "references": "customers.id"}),
        "json-partition-key": json.dumps({"partition_key": "tenant_id", "sort_key": "created_at#order_id"}),
        "dynamo-key-schema": json.dumps({"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}),
        "json-key-camel-words": json.dumps({"key": "NextSigningKeyLengthDefault"}),
        "toml-keybinding": "[keys]\nkey = \"ctrl+shift+p\"\n",
        "json-key-upper-enum": json.dumps({"key": "ORDER_STATUS_PENDING_REVIEW"}),
        # versions, hosts, urls, placeholders, references
        "json-key-version": json.dumps({"key": "2024.11.30-rc1"}),
        "yaml-key-ref": "key: ${{ runner.os }}-node-${{ hashFiles('**/package-lock.json') }}\n",
        "yaml-key-ref-env": "stripe_key: ${STRIPE_KEY}\n",
        "py-key-env": "stripe_key = os.environ['STRIPE_KEY']\n",
        "js-key-env": "const stripeKey = process.env.STRIPE_KEY;\n",
        "json-key-placeholder": json.dumps({"stripe_key": "your-stripe-key-here"}),
        "json-key-redacted": json.dumps({"mapboxKey": "<SECRET:1a2b3c4d>"}),
        "yaml-k8s-toleration": "- key: node-role.kubernetes.io/control-plane\n  operator: Exists\n",
        # public keys and images
        "json-public-key": json.dumps({"publicKey": g.b64(32)}),
        "json-publishable-key": json.dumps({"publishableKey": g.b62(32)}),
        "ssh-public": f"ssh_key: AAAAC3NzaC1lZDI1NTE5AAAAI{g.b64(32)[:43]}\n",
        "json-key-image": json.dumps({"key": "thumb", "data": img}),
        "gpg-key-id": "gpg_key = \"7169605F62C751356D054A26A821E680E5FA6305\"\n",
        # words and identifiers that happen to be long
        "js-react-key": "<Item key={item.id} title={item.title} />\n",
        "json-key-words": json.dumps({"key": "customer-lifetime-value-report"}),
        "yaml-key-snake": "key: customer_lifetime_value_report\n",
        "json-key-digits": json.dumps({"key": "20241130123456789012"}),
        "py-key-fn": "key = lambda item: item.created_at\nsorted_rows = sorted(rows, key=operator.itemgetter(2))\n",
        "json-monkey": json.dumps({"hotkey": "Ctrl+Alt+Shift+F12"}),
    }
    for fam, text in cases.items():
        add(fam, text)
    return out
