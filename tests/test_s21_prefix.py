"""Vendor tokens with a distinctive prefix but an unexpected length or shape (truncated, padded,
hand-made for a test, a newer format version): still redacted in prose, a JSON value, a shell
line and a markdown code span, by the medium `*-odd-shape` rules of rules/secrets.toml, while
the prefix in prose, placeholders and real code identifiers stay.

The generator follows the strict rules' shapes (their regexes give the real alphabet and
length): each family makes a token whose variable run is `n` characters, swept over
real-3..real+8."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
import random
import string
import tomllib
from dataclasses import dataclass
from typing import Any, Callable

import pytest

from archiver.demo.claude_sample import make_claude_home
from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, kept
from tests.fx_s11_e2e import decrypt_all, setup

KEY = b"p" * 32
DIGITS = string.digits
HEX = "0123456789abcdef"
B62 = string.ascii_letters + string.digits
B64URL = B62 + "_-"
B64 = B62 + "+/"
UPPERNUM = string.ascii_uppercase + string.digits


def _run(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


@dataclass(frozen=True)
class Family:
    """A vendor token: `prefix`, fixed segments (alphabet, length) each followed by `sep`, then
    the variable run of `alphabet` whose real length is `real`; `lead` characters of B62 come
    before the prefix (Terraform's `<14>.atlasv1.`)."""

    name: str
    label: str
    prefix: str
    alphabet: str
    real: int
    fixed: tuple[tuple[str, int], ...] = ()
    sep: str = ""
    lead: int = 0

    def token(self, rng: random.Random, n: int) -> str:
        head = _run(rng, B62, self.lead) + self.prefix
        head += "".join(_run(rng, a, k) + self.sep for a, k in self.fixed)
        return head + _run(rng, self.alphabet, n)


FAMILIES: list[Family] = [
    Family("github-ghp", "GITHUB_TOKEN", "ghp_", B62, 36),
    Family("github-ghs", "GITHUB_TOKEN", "ghs_", B62, 36),
    Family("slack-xoxb", "SLACK_TOKEN", "xoxb-", B62, 24, ((DIGITS, 13), (DIGITS, 13)), "-"),
    Family("slack-xoxb-flat", "SLACK_TOKEN", "xoxb-", B62, 50),
    Family("slack-xoxp", "SLACK_TOKEN", "xoxp-", HEX, 32, ((DIGITS, 13), (DIGITS, 13), (DIGITS, 13)), "-"),
    Family("slack-xoxp-flat", "SLACK_TOKEN", "xoxp-", B62, 70),
    Family("slack-xoxa-flat", "SLACK_TOKEN", "xoxa-", B62, 50),
    Family("slack-xoxr-flat", "SLACK_TOKEN", "xoxr-", B62, 50),
    Family("slack-xoxs", "SLACK_TOKEN", "xoxs-", HEX, 64, ((DIGITS, 10), (DIGITS, 12), (DIGITS, 12)), "-"),
    Family("slack-xoxo-flat", "SLACK_TOKEN", "xoxo-", B62, 50),
    Family("slack-xapp", "SLACK_TOKEN", "xapp-1-", HEX, 64, ((UPPERNUM, 11), (DIGITS, 13)), "-"),
    Family("slack-xapp-flat", "SLACK_TOKEN", "xapp-", B62, 90),
    Family("npm", "NPM_TOKEN", "npm_", B62, 36),
    Family("huggingface", "HF_TOKEN", "hf_", B62, 34),
    Family("huggingface-org", "HF_TOKEN", "api_org_", B62, 34),
    Family("shopify-shpat", "SHOPIFY_TOKEN", "shpat_", HEX, 32),
    Family("shopify-shpss", "SHOPIFY_TOKEN", "shpss_", HEX, 32),
    Family("shopify-shpca", "SHOPIFY_TOKEN", "shpca_", HEX, 32),
    Family("shopify-shppa", "SHOPIFY_TOKEN", "shppa_", HEX, 32),
    Family("gitlab-glpat", "GITLAB_TOKEN", "glpat-", B64URL, 20),
    Family("gitlab-gldt", "GITLAB_TOKEN", "gldt-", B64URL, 20),
    Family("gitlab-glrt", "GITLAB_TOKEN", "glrt-", B64URL, 20),
    Family("gitlab-glptt", "GITLAB_TOKEN", "glptt-", HEX, 40),
    Family("anthropic-api03", "ANTHROPIC_API_KEY", "sk-ant-api03-", B64URL, 95),
    Family("anthropic-admin01", "ANTHROPIC_API_KEY", "sk-ant-admin01-", B64URL, 95),
    Family("openai-proj", "OPENAI_API_KEY", "sk-proj-", B64URL, 156),
    Family("openrouter", "OPENROUTER_API_KEY", "sk-or-v1-", HEX, 64),
    Family("groq", "GROQ_API_KEY", "gsk_", B62, 52),
    Family("xai", "XAI_API_KEY", "xai-", B62, 80),
    Family("perplexity", "PERPLEXITY_API_KEY", "pplx-", B62, 48),
    Family("replicate", "REPLICATE_API_TOKEN", "r8_", B62, 37),
    Family("aws-akia", "AWS_ACCESS_KEY", "AKIA", UPPERNUM, 16),
    Family("aws-asia", "AWS_ACCESS_KEY", "ASIA", UPPERNUM, 16),
    Family("pypi", "PYPI_TOKEN", "pypi-AgEIcHlwaS5vcmc", B64URL, 150),
    Family("digitalocean-dop", "DIGITALOCEAN_TOKEN", "dop_v1_", HEX, 64),
    Family("digitalocean-doo", "DIGITALOCEAN_TOKEN", "doo_v1_", HEX, 64),
    Family("digitalocean-dor", "DIGITALOCEAN_TOKEN", "dor_v1_", HEX, 64),
    Family("linear", "LINEAR_API_KEY", "lin_api_", B62, 40),
    Family("square-sq0atp", "SQUARE_TOKEN", "sq0atp-", B64URL, 22),
    Family("square-sq0csp", "SQUARE_SECRET", "sq0csp-", B64URL, 43),
    Family("stripe-rk-live", "STRIPE_SECRET_KEY", "rk_live_", B62, 99),
    Family("stripe-sk-live", "STRIPE_SECRET_KEY", "sk_live_", B62, 99),
    Family("stripe-sk-test", "STRIPE_SECRET_KEY", "sk_test_", B62, 99),
    Family("stripe-whsec", "STRIPE_WEBHOOK_SECRET", "whsec_", B62, 32),
    Family("sendgrid", "SENDGRID_API_KEY", "SG.", B64URL, 43, ((B64URL, 22),), "."),
    Family("sendgrid-flat", "SENDGRID_API_KEY", "SG.", B64URL, 66),
    Family("doppler", "DOPPLER_TOKEN", "dp.pt.", B62, 43),
    Family("vault-hvs", "VAULT_TOKEN", "hvs.", B64URL, 91),
    Family("vault-hvb", "VAULT_TOKEN", "hvb.", B64URL, 138),
    Family("tailscale", "TAILSCALE_KEY", "tskey-auth-", B62, 30, ((B62, 11),), "-"),
    Family("tailscale-flat", "TAILSCALE_KEY", "tskey-auth-", B62, 40),
    Family("notion-ntn", "NOTION_TOKEN", "ntn_", B62, 46),
    Family("notion-secret", "NOTION_TOKEN", "secret_", B62, 43),
    Family("grafana-glc", "GRAFANA_TOKEN", "glc_", B64, 100),
    Family("grafana-glsa", "GRAFANA_TOKEN", "glsa_", HEX, 8, ((B62, 32),), "_"),
    Family("grafana-glsa-flat", "GRAFANA_TOKEN", "glsa_", B62, 40),
    Family("sentry-sntrys", "SENTRY_TOKEN", "sntrys_eyJ", B64, 150),
    Family("sentry-sntryu", "SENTRY_TOKEN", "sntryu_", HEX, 64),
    Family("databricks", "DATABRICKS_TOKEN", "dapi", HEX, 32),
    Family("netlify", "NETLIFY_TOKEN", "nfp_", B62, 36),
    Family("planetscale", "PLANETSCALE_TOKEN", "pscale_tkn_", B64URL, 43),
    Family("postman", "POSTMAN_KEY", "PMAK-", HEX, 34, ((HEX, 24),), "-"),
    Family("terraform", "TERRAFORM_TOKEN", ".atlasv1.", B64URL, 67, lead=14),
]

FAMILY = {f.name: f for f in FAMILIES}
DELTAS = list(range(-3, 9))
SWEPT_DELTAS = [-3, -1, 0, 1, 2, 5, 8]
# Truncated far below the real length (a token cut in a log line, a hand-made test value): the
# odd-shape rules take a run of 20 or more (16 for Slack, Square, Tailscale, PlanetScale; 12 AWS).
TRUNCATED = [20, 24, 28]
# Families no odd-shape rule covers, and why: `secret_` (Notion's legacy integration token) starts
# ordinary identifiers (`secret_key_base`, `secret_accessKey2`); its strict 43-character rule stays.
LEFT = {"notion-secret"}


def _prose(tok: str) -> str:
    return f"I pasted {tok} into the settings page and the bot came back online."


def _shell(tok: str) -> str:
    return f"$ echo {tok}\n"


def _markdown(tok: str) -> str:
    return f"Use `{tok}` for the staging workspace."


def _json(tok: str) -> str:
    return json.dumps({"value": tok})


CARRIERS: dict[str, Callable[[str], str]] = {"prose": _prose, "json": _json, "shell": _shell, "markdown": _markdown}


def redact_in(red: Any, carrier: str, tok: str) -> tuple[str, dict[str, int]]:
    """The carrier holding `tok`, redacted (the JSON one as a JSONL line, through the JSON walker)."""
    report = RedactionReport()
    text = CARRIERS[carrier](tok)
    if carrier == "json":
        out = red.redact_jsonl_line(text.encode(), report).decode()
    else:
        out = red.redact_text(text, report)
    return out, report.by_rule()


def family_token(fam: Family, delta: int) -> str:
    """One token per family and length, the same on every run (the seed names both)."""
    return run_token(fam, fam.real + delta)


def run_token(fam: Family, n: int) -> str:
    """The family's token with a variable run of `n` characters, seeded by family and length."""
    seed = int.from_bytes(hashlib.sha256(f"{fam.name}/{n}".encode()).digest()[:8], "big")
    return fam.token(random.Random(seed), n)


@pytest.fixture(scope="module")
def red() -> Any:
    return builtin_redactor(KEY)


def sweep(red: Any) -> dict[tuple[str, int, str], bool]:
    """{(family, delta, carrier): the token's bytes survived}."""
    leaks = {}
    for fam in FAMILIES:
        for delta in DELTAS:
            tok = family_token(fam, delta)
            for carrier in CARRIERS:
                out, _ = redact_in(red, carrier, tok)
                leaks[(fam.name, delta, carrier)] = tok in out
    return leaks


@pytest.mark.parametrize("carrier", list(CARRIERS))
@pytest.mark.parametrize("fam", [f for f in FAMILIES if f.name not in LEFT], ids=lambda f: f.name)
def test_an_odd_length_or_shape_token_is_redacted(red: Any, fam: Family, carrier: str) -> None:
    for delta in SWEPT_DELTAS:
        tok = family_token(fam, delta)
        out, counts = redact_in(red, carrier, tok)
        assert tok not in out, (fam.name, delta, carrier, counts)
        assert f"<{fam.label}:" in out, (fam.name, delta, carrier, counts)


TRUNCATABLE = [f for f in FAMILIES if f.name not in LEFT and not f.fixed and f.real - 3 > TRUNCATED[0]
               and f.name not in ("grafana-glc", "terraform")]


@pytest.mark.parametrize("carrier", ["prose", "json"])
@pytest.mark.parametrize("fam", TRUNCATABLE, ids=lambda f: f.name)
def test_a_token_truncated_to_20_to_28_characters_is_redacted(red: Any, fam: Family, carrier: str) -> None:
    for n in TRUNCATED:
        tok = run_token(fam, n)
        out, counts = redact_in(red, carrier, tok)
        assert tok not in out and f"<{fam.label}:" in out, (fam.name, n, carrier, counts)


def test_the_sweep_covers_every_odd_shape_rule(red: Any) -> None:
    """Every odd-shape rule of the pack is what redacts some token of the sweep: none is untested."""
    pack = tomllib.loads((Path(__file__).resolve().parents[1] / "rules" / "secrets.toml").read_text())
    lenient = {r["id"] for r in pack["rules"] if r["id"].endswith(("-odd-shape", "-odd-length"))}
    took: set[str] = set()
    for fam in FAMILIES:
        for n in [fam.real + d for d in DELTAS] + TRUNCATED:
            took |= set(redact_in(red, "prose", run_token(fam, n))[1])
    assert lenient - took == set(), sorted(lenient - took)


NEGATIVES = [
    # the prefix in prose, no token
    "Slack bot tokens start with xoxb- and user tokens with xoxp-.",
    "Hugging Face tokens look like hf_ followed by letters; npm ones start with npm_.",
    "Grant the glpat- token read_api only; sk-ant- keys go in the vault.",
    # placeholders
    "xoxb-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "hf_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "set it to sk-ant-... and retry",
    "npm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "xoxb-your-bot-token-goes-here",
    # a run too short to be a token
    "see npm_ab12 and hf_x9y8 in the fixture",
    "glpat-ab12cd34",
    # a longer word that holds the prefix
    "myhf_value = 3",
    "xnpm_run and fooxoxb-thing",
    "the unshpat_ flag",
    # identifiers in public code
    "echo $npm_config_cache $npm_package_version $npm_lifecycle_event $npm_execpath",
    "from huggingface_hub import hf_hub_download, hf_hub_url; hf_hub_download(repo_id, token=hf_token)",
    "def sk_test_helper(): return sk_live_mode",
    "re.compile(r'shpat_[a-fA-F0-9]{32}') and re.compile(r'xox[baprs]-([0-9a-zA-Z]{10,48})')",
    "gsk_PipelineElementFactoryHelper, hf_TransformersAutoModelForCausalLM, npm_PackageManagerConfiguration",
    "ASIAPACIFICSOUTH and the ASIAPACIFICSOUTHEASTERN region",
    "hvs.reshape(batch_size, -1); dp.pt.dtype",
    "pip install xai-sdk; see github.com/xai-org/grok-1 and pplx-70b-online",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_prefix_words_placeholders_and_identifiers_stay(red: Any, text: str) -> None:
    assert kept(red, text) == {}


def _claude_line(prev: dict[str, Any], text: str) -> dict[str, Any]:
    """A typed user prompt after `prev`, in the shape of the sample's own records."""
    rec = {k: prev[k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch", "entrypoint")}
    rec.update(parentUuid=prev["uuid"], uuid="5e1f0a5d-ac96-474b-bcce-b302099a8057", type="user",
               timestamp="2026-10-20T11:00:00.000Z", promptSource="typed",
               message={"role": "user", "content": text})
    return rec


def test_odd_slack_and_hf_tokens_in_prose_are_absent_from_the_archive(tmp_path: Path) -> None:
    slack = family_token(FAMILY["slack-xoxb-flat"], 3)
    hf = family_token(FAMILY["huggingface"], -2)
    marker = "PROSE-S21-MARKER"
    s = setup(tmp_path, "claude-code", user="alice")
    sample = make_claude_home(s.home, user="alice")
    transcript = sample.root / "projects" / sample.project_key / f"{sample.main}.jsonl"
    prev = [r for r in map(json.loads, transcript.read_text().splitlines()) if "isSidechain" in r][-1]
    prompt = f"{marker}: the bot token is {slack} now, and for the model hub use {hf} (it was truncated)."
    with transcript.open("a") as f:
        f.write(json.dumps(_claude_line(prev, prompt), separators=(",", ":")) + "\n")

    s.cli("sync", expect=0)
    plain = decrypt_all(s)
    holding_marker = [k for k, v in plain.items() if marker.encode() in v]
    assert holding_marker, "the prompt was not archived"
    for key, data in plain.items():
        assert slack.encode() not in data and hf.encode() not in data, key
    line = next(ln for k in holding_marker for ln in plain[k].splitlines() if marker.encode() in ln)
    assert b"<SLACK_TOKEN:" in line and b"<HF_TOKEN:" in line, line[:300]
