"""Optional presidio-analyzer pass for context PII in short natural-language strings.

Offline by construction (no spaCy model download, no public-suffix fetch):
* the NLP engine is a `SpacyNlpEngine` whose `load()` uses `spacy.blank("en")`,
  or a spaCy model named in `spacy_model` only if it is already installed;
* the recognizer registry is explicit and never empty (an empty one makes
  presidio silently load every default recognizer);
* the email recognizer validates domains with `tldextract.TLDExtract(suffix_list_urls=())`
  (the bundled suffix snapshot, no cache dir);
* presidio's default IGNORECASE flag is dropped for the built-in pattern recognizers;
* the URL recognizer is not enabled by default (it takes `setup.py`, `main.rs` for URLs).

With a blank pipeline there is no NER: PERSON/LOCATION come from an installed
spaCy model (`spacy_model`) or from the user's own recognizers
(`recognizers = ["pkg.module:Class"]`, e.g. a deny-list PatternRecognizer).
It is slow (well under 1 MB/s), so the redactor only gives it prose strings up
to `max_chars`, never bulk text.
"""

from __future__ import annotations

import importlib
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer

log = logging.getLogger(__name__)

DEFAULT_ENTITIES = ("PERSON", "LOCATION", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS")
DEFAULT_BUILTINS = ("EmailRecognizer", "PhoneRecognizer", "CreditCardRecognizer", "IbanRecognizer", "IpRecognizer")
_FLAGS = re.DOTALL | re.MULTILINE  # presidio's default adds IGNORECASE
_TOKEN = re.compile(r"<[A-Z][A-Z0-9_]*:[0-9a-f]{8}>|<REDACTED:[A-Z0-9_]+>|\buser-[0-9a-f]{4}\b")


class PresidioError(ValueError):
    """Presidio could not be set up as configured; the message says what."""


@dataclass
class PresidioOptions:
    enabled: bool = False
    entities: list[str] = field(default_factory=lambda: list(DEFAULT_ENTITIES))
    score_threshold: float = 0.5
    recognizers: list[str] = field(default_factory=list)  # "package.module:Class" (class or instance)
    max_chars: int = 4096
    builtin: list[str] = field(default_factory=lambda: list(DEFAULT_BUILTINS))  # presidio class names
    spacy_model: str | None = None  # an installed spaCy package or model folder; default blank("en")


def _offline_nlp_engine(model: str | None) -> Any:
    import spacy
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    class OfflineSpacyNlpEngine(SpacyNlpEngine):
        """Never downloads: a blank English pipeline unless an installed model is named."""

        def load(self) -> None:
            if model and (spacy.util.is_package(model) or Path(model).exists()):
                nlp = spacy.load(model)
            else:
                if model:
                    log.warning("spaCy model %r is not installed; using a blank English pipeline", model)
                nlp = spacy.blank("en")
            self.nlp = {"en": nlp}

    return OfflineSpacyNlpEngine(models=[{"lang_code": "en", "model_name": model or "blank:en"}])


def _builtin(name: str) -> Any:
    import presidio_analyzer.predefined_recognizers as pre

    cls = getattr(pre, name, None)
    if cls is None:
        raise PresidioError(f"presidio: unknown built-in recognizer {name!r}")
    if name == "EmailRecognizer":
        import tldextract

        extract = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

        class OfflineEmailRecognizer(cls):  # type: ignore[misc, valid-type]
            def validate_result(self, pattern_text: str) -> bool:
                return extract(pattern_text).fqdn != ""

        inst = OfflineEmailRecognizer()
    else:
        inst = cls()
    if hasattr(inst, "global_regex_flags"):
        inst.global_regex_flags = _FLAGS
    return inst


def _user_recognizer(spec: str) -> Any:
    from presidio_analyzer import EntityRecognizer

    mod_name, _, attr = spec.partition(":")
    if not mod_name or not attr:
        raise PresidioError(f"presidio: recognizer {spec!r} must look like 'package.module:Class'")
    try:
        obj = getattr(importlib.import_module(mod_name), attr)
    except (ImportError, AttributeError) as e:
        raise PresidioError(f"presidio: cannot import recognizer {spec!r}: {e}") from e
    inst = obj() if isinstance(obj, type) else obj
    if not isinstance(inst, EntityRecognizer):
        raise PresidioError(f"presidio: {spec!r} is not a presidio EntityRecognizer")
    return inst


def build_analyzer(options: PresidioOptions) -> tuple[Any, list[str]]:
    """An offline AnalyzerEngine and the entity types it should report."""
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry

    recognizers = [_builtin(n) for n in options.builtin]
    recognizers += [_user_recognizer(s) for s in options.recognizers]
    nlp = _offline_nlp_engine(options.spacy_model)
    nlp.load()
    if options.spacy_model:
        from presidio_analyzer.predefined_recognizers import SpacyRecognizer

        recognizers.append(SpacyRecognizer())
    if not recognizers:
        raise PresidioError("presidio: no recognizer enabled (an empty registry would load every default)")
    registry = RecognizerRegistry(recognizers=recognizers, global_regex_flags=_FLAGS, supported_languages=["en"])
    analyzer = AnalyzerEngine(registry=registry, nlp_engine=nlp, supported_languages=["en"],
                              default_score_threshold=options.score_threshold)
    entities = list(dict.fromkeys([*options.entities, *(e for r in recognizers[len(options.builtin):]
                                                        for e in r.supported_entities)]))
    return analyzer, entities


class PresidioRedactor:
    """Replaces presidio findings with `<ENTITY:hash>` tokens; counts them as `presidio:<ENTITY>`."""

    def __init__(self, options: PresidioOptions, pseudonyms: Pseudonymizer) -> None:
        self.options = options
        self.pseudonyms = pseudonyms
        self.analyzer, self.entities = build_analyzer(options)

    def analyze(self, text: str) -> list[tuple[int, int, str, float]]:
        if not text or len(text) > self.options.max_chars:
            return []
        results = self.analyzer.analyze(text=text, language="en", entities=self.entities,
                                        score_threshold=self.options.score_threshold)
        shield = [(m.start(), m.end()) for m in _TOKEN.finditer(text)] if "<" in text or "user-" in text else []
        spans = []
        for r in sorted(results, key=lambda r: (-r.score, -(r.end - r.start), r.start)):
            s, e = r.start, r.end
            if e <= s or any(a < e and s < b for a, b in shield):
                continue
            if any(a < e and s < b for a, b, _, _ in spans):
                continue
            spans.append((s, e, r.entity_type, r.score))
        return sorted(spans)

    def redact(self, text: str, report: RedactionReport, carrier: str = "text") -> str:
        spans = self.analyze(text)
        if not spans:
            return text
        out = []
        pos = 0
        for s, e, entity, _score in spans:
            out.append(text[pos:s])
            label = re.sub(r"[^A-Z0-9_]", "_", entity.upper()) or "PII"
            out.append(self.pseudonyms.token(label, text[s:e]))
            report.add(f"presidio:{entity}", carrier)
            pos = e
        out.append(text[pos:])
        return "".join(out)
