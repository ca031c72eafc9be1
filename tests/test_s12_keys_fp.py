"""s12 real-text audit of the generic key rules (named-key-assignment, bare-key-assignment,
purpose-object-key) over /usr/share/doc, man pages, site-packages (botocore's JSON data included) and
/usr/lib/python3*: the shapes that were hit and are no secret, rebuilt with made-up values, stay; the
key material the audit found (documentation examples of real secrets) still goes."""

from __future__ import annotations

import json

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, gone, kept

KEY = b"s12-keys-fp-test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"])


KEPT = [
    # botocore paginators-1.json: the result key names a response member (CamelCase words with digits)
    '    "DescribeThings": {\n      "input_token": "Marker",\n      "output_token": "Marker",\n'
    '      "limit_key": "MaxRecords",\n      "result_key": "ServerlessV3EngineVersions"\n    },',
    '      "result_key": "Ipv4CidrAssociationSets"\n',
    '      "result_key": "S3BucketAccessPointAttachments"\n',
    # cryptography's .pyi / .py: a parameter annotated with a CamelCase type
    "def serialize_key_and_certificates(\n    name: bytes | None,\n    key: PKCS12PrivateKeyTypes | None,\n) -> bytes: ...\n",
    "    wrapping_key: PKCS7PrivateKeyTypes,\n    hash_algorithm: PKCS7HashTypes,\n",
    "def sign(key: Ed25519PrivateKey, data: bytes) -> bytes:\n",
    # a URL's key= query parameter (a document id; provider API keys have their own rules)
    "  https://docs.google.com/spreadsheet/ccc?key=0Bq2zXmR7PLLsdG3wTFmrZm8HRWNET4ZyN1hnaGo6ZFE&usp=sharing\n",
    # kwargs and dict entries that pass a variable, not a literal
    "client = Client(key=settings_module_key_value, timeout=30)\n",
    "stripe_key = config.get('payments').stripeSecretKeyValue\n",
]


@pytest.mark.parametrize("text", KEPT)
def test_real_shapes_that_are_no_secret_stay(red, text: str) -> None:  # noqa: ANN001
    assert not kept(red, text)


def test_real_key_material_still_goes(red) -> None:  # noqa: ANN001
    # moto's EC2 VPN connection XML, an openssl mac example, a storagegateway example, a netdev file
    v = "Qx3JBM8YWtfRkLrVnD2pZ6sHc9EaUg4T"
    gone(red, f"<ipsec>\n  <pre_shared_key>{v}</pre_shared_key>\n</ipsec>\n", v, "named-key-assignment")
    h = "3C8E1A7F5D902B46E1C7A3F95B2D8064"
    gone(red, f"openssl mac -cipher AES-128-CBC -macopt hexkey:{h} -in msg.bin CMAC\n", h, "named-key-assignment")
    a = "7QZK2-8RTX4-MNWP9-BCVL3-HJDF6"
    gone(red, json.dumps({"input": {"ActivationKey": a, "GatewayName": "gw"}}, indent=2), a, "named-key-assignment")


def test_the_same_shapes_in_a_record(red) -> None:  # noqa: ANN001
    line = json.dumps({"result_key": "ServerlessV3EngineVersions", "limit_key": "MaxRecords"}).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line
    v = "Qx3JBM8YWtfRkLrVnD2pZ6sHc9EaUg4T"
    out = red.redact_jsonl_line(json.dumps({"psk": {"pre_shared_key": v}}).encode(), RedactionReport())
    assert v.encode() not in out
