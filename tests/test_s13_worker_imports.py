"""A redaction worker is built from plain data (rule specs, terms, presidio options), not from the
configuration: it imports neither pydantic nor archiver.config / archiver.model (about 16 MB of
each worker's memory, measured at its start), and it redacts exactly as the parent's redactor."""

from __future__ import annotations

import multiprocessing
import pickle
import socket
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from archiver import runtime, workers
from archiver.config import load_settings
from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RedactorRecipe
from archiver.redact.rules import RuntimeTerms

from tests.fx_worker_probe import worker_view

def _settings(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "team.key").write_text("07" * 32 + "\n")
    (tmp_path / "team.key").chmod(0o600)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'home = "/home/zorbalina"\nhost = "build-box-17"\n\n'
                   f'[redaction]\nteam_key_file = "{tmp_path / "team.key"}"\n'
                   f'usernames = ["zorbalina"]\nnames = ["Quentin Marlowe"]\nextra_terms = ["project-nightjar"]\n\n'
                   f'[store]\nurl = "file://{tmp_path / "store"}"\n')
    return load_settings(cfg, required=True)


def test_the_worker_recipe_is_plain_data(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    keys = runtime.team_keys(settings)
    recipe = pickle.loads(pickle.dumps(runtime.redactor_factory(settings, keys)))
    assert type(recipe) is RedactorRecipe
    rules, key, terms, presidio = recipe.rule_specs, recipe.pseudonym_key, recipe.terms, recipe.presidio
    assert rules == ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"] and key == keys.pseudonym and presidio is None
    assert type(terms) is RuntimeTerms
    assert "zorbalina" in terms.usernames and terms.names == ["Quentin Marlowe"]
    assert terms.extra_terms == ["project-nightjar"] and terms.hosts[:2] == ["build-box-17", socket.gethostname()]


def test_a_worker_imports_no_pydantic_and_redacts_as_the_parent(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    keys = runtime.team_keys(settings)
    text = ("cd /home/zorbalina/src/nightjar && ssh build-box-17 -- Quentin Marlowe wrote "
            f"project-nightjar on {socket.gethostname()} mail quentin@marlowe-labs.example "
            "key AKIAQ7VZ3KXG5MWJ2PLD")
    parent = runtime.redactor(settings, keys).redact_text(text, RedactionReport())
    ctx = multiprocessing.get_context(workers.POOL_START_METHOD)
    with ProcessPoolExecutor(1, mp_context=ctx, initializer=workers._init_worker,  # noqa: SLF001
                             initargs=(runtime.redactor_factory(settings, keys), b"k" * 32, True, None)) as pool:
        loaded, in_worker = pool.submit(worker_view, text).result(timeout=120)
    assert loaded == []
    assert in_worker == parent
    for plain in ("zorbalina", "build-box-17", "Quentin Marlowe", "project-nightjar", "AKIAQ7VZ3KXG5MWJ2PLD",
                  "quentin@marlowe-labs.example"):
        assert plain not in in_worker, plain
