"""Objects whose keys say what a value is: the key a value of such an object is scanned with.

A name/value pair (k8s env entries, SSM parameters, HAR headers and cookies), a kaggle.json, a git
author, a generic key under a named parent, a Terraform random_password, a JSON Web Key's private
members: walked one string at a time, the value would meet the rules without the name that makes
it a secret, so the walker scans it keyed with the name (`"name": "<value>"` or the pair's text form).
"""

from __future__ import annotations

import re
from typing import Any

from archiver.redact.walkers import SECRET_NAME, SECRET_NAME_MAX

PAIR_KEYS = (("name", "value"), ("Name", "Value"), ("key", "value"), ("Key", "Value"),
             ("ParameterKey", "ParameterValue"), ("keyName", "value"))
# A pair whose name says what its value is only to a rule that reads the pair as text, or that such a
# rule knows better than the name alone (a HAR queryString's ?appid= or ?key=, a session cookie's name,
# az storage account keys' keyName): its value is scanned as `"name": "<name>", "value": "<value>"`, the
# form the JSON name/value rules read in printed JSON (url-query-api-key, json-cookie-value,
# azure-storage-key-list).
PAIR_TEXT_NAME = re.compile(
    r"(?:appid|app[_-]?key|key|sig|signature|subscription[_-]?key|license[_-]?key|consumer[_-]?(?:key|secret)"
    r"|hapikey)|.*(?:sess|sid|jwt|remember).*", re.I)
# an SSM parameter's Value of Type SecureString is a secret whatever its Name (aws-securestring-value)
SECURE_STRING = 'Type": "SecureString", "Value'
# the cookies of a "cookies" array (HAR, Playwright storage state, HTTPie session) are each scanned as
# the first one of such an array, `"cookies": [{"name": "<name>", "value": "<value>"` (json-cookie-value)
COOKIE_LIST = "cookie"


# {"username": ..., "key": ...} and nothing else is ~/.kaggle/kaggle.json: its key is scanned under
# that name (the kaggle rule wants 32 hex digits), as "key" alone is too common a name to judge
USER_KEY_PAIR = ("key", "kaggle_key")
VALUE_KEYS = frozenset({"value", "Value", "secret", "data"})
# {"name": ..., "email": "x@y"}: a git author/committer (GitHub API, git log --format=json-ish output),
# a package author (package.json, pyproject authors); {"login": ..., "name": ...}: a GitHub account.
# Its name is scanned as a git author name (the git-env-person-name rule, with its allowlist of bots,
# placeholders and organisations)
PERSON_PAIR = ("name", "git_author_name")
# A value under a generic name (key, secret) whose object sits under a key of its own ({"Jwt": {"Key": ...}},
# {"hmac": {"key": ...}}) is scanned as `"Jwt": {"Key": "value"`: the rules that know a secret by the object
# it belongs to (jwt-config-signing-key, purpose-object-key) see its name as they do in the text form.
GENERIC_CHILD = frozenset({
    "key", "Key", "KEY", "secret", "Secret", "SECRET", "secretKey", "SecretKey", "secret_key", "signingKey",
    "SigningKey", "signing_key", "IssuerSigningKey", "issuerSigningKey",
})
PARENT_KEY_MAX = 64  # a longer key is no settings section's name
# (s42) a person's object under the key that names its role: an issue's {"assignee": {"displayName": ...}}
# (Jira, Linear), a package's {"contributors": [{"name": ...}]} (package.json, composer.json): its name
# is scanned as `"assignee": {"displayName": "<value>"` or `"contributors": [{"name": "<value>"`, the
# text forms person-name-keyed-full reads (a name alone is no key: a displayName is a model's or a theme's);
# a list of strings under PERSON_LIST has each scanned as `"authors": "<value>"`
PERSON_PARENT = frozenset({"assignee", "reporter", "creator"})
PERSON_LIST = frozenset({"authors", "contributors", "maintainers"})
PERSON_CHILD = ("name", "displayName", "display_name")


def person_in_parent(parent: str, node: dict[str, Any], opener: str) -> dict[str, str]:
    """{name key of node: the name it is scanned with, its parent key and `opener` ({ or [{) before it}."""
    return {k: f'{parent}": {opener}"{k}' for k in PERSON_CHILD if type(node.get(k)) is str}


# Terraform state: the `result` of a random_password resource's instances is the generated password; it is
# scanned as `"type": "random_password", "result": "value"` (the terraform-random-password-result rule)
TF_RESULT = {"result": 'type": "random_password", "result'}


def in_parent(parent: str, node: dict[str, Any]) -> dict[str, str]:
    """{generic child key of node: the name it is scanned with, its parent key included}."""
    return {k: f'{parent}": {{"{k}' for k in node if k in GENERIC_CHILD}


def tf_random_password(node: dict[str, Any], contexts: dict[int, dict[str, str]]) -> None:
    """A Terraform resource of type random_password: its state instances' attributes, or the
    `values` `terraform show -json` prints for it, get TF_RESULT."""
    values = node.get("values")
    if type(values) is dict:
        contexts[id(values)] = TF_RESULT
    insts = node.get("instances")
    if type(insts) is not list:
        return
    for inst in insts:
        attrs = inst.get("attributes") if type(inst) is dict else None
        if type(attrs) is dict:
            contexts[id(attrs)] = TF_RESULT


def person_object(node: dict[str, Any]) -> bool:
    """{"name", "email": "x@y"}: a git or package author; {"login", "name"}: a GitHub account (the REST
    user object, `gh ... --json author`), unless it says it is a bot or an organisation."""
    name = node.get("name")
    if type(name) is not str or not 0 < len(name) <= 80:
        return False
    email = node.get("email")
    if type(email) is str and "@" in email and " " not in email:
        return True
    login = node.get("login")
    return (type(login) is str and 0 < len(login) <= 64 and " " not in login and node.get("is_bot") is not True
            and node.get("type") != "Organization")


# a list of field names (`"required": ["username", "password", "email"]`, `["USER", "PASSWORD",
# "DRIVER_ID"]`): the item after a secret-like one is another name, not its value
FIELD_NAME = re.compile(r"[a-z_]+|[A-Z_]+|[a-z]+(?:[A-Z][a-z]+)+")


def singular(key: str) -> str:
    """`passwords` -> `password`: the assignment rules name one secret."""
    return key[:-1] if key.endswith("s") and not key.endswith("ss") else key


def pair_text(nk: str, name: str, vk: str) -> str:
    """The key a pair's value is scanned with to read as `"name": "<name>", "value": "<value>"`."""
    return f'{nk}": "{name}", "{vk}'


def secret_pair(node: dict[str, Any]) -> tuple[str, str] | None:
    """(value key, the key its value is scanned with) of a name/value pair whose name is secret-like:
    k8s env entries, SSM parameters, HAR headers ({"name": "DB_PASSWORD", "value": ...}); or whose
    name a rule reads in the pair's text form (PAIR_TEXT_NAME), or an SSM SecureString."""
    if node.get("Type") == "SecureString" and type(node.get("Value")) is str:
        return "Value", SECURE_STRING
    for nk, vk in PAIR_KEYS:
        name = node.get(nk)
        if type(name) is str and len(name) <= SECRET_NAME_MAX and type(node.get(vk)) is str:
            if nk == "keyName" or (len(name) <= 100 and '"' not in name and PAIR_TEXT_NAME.fullmatch(name)):
                return vk, pair_text(nk, name, vk)
            if SECRET_NAME.search(name):
                return vk, name
    return None


def cookie_pair(node: dict[str, Any]) -> tuple[str, str] | None:
    """(value key, the key its value is scanned with) of a cookie object of a "cookies" array."""
    for nk in ("name", "key"):
        name = node.get(nk)
        if type(name) is str and len(name) <= 100 and '"' not in name and type(node.get("value")) is str:
            return "value", 'cookies": [{"' + pair_text(nk, name, "value")
    return None


# a JSON Web Key's private members (d; p, q, dp, dq, qi of RSA; k of oct): walked one string at a
# time, a value would be scanned without the "kty" beside it that rule jwk-private-member needs, so
# it is scanned keyed with the object's kty named before its own key
JWK_PRIVATE = frozenset({"d", "p", "q", "dp", "dq", "qi", "k"})
JWK_CONTEXT = 'kty", "'
