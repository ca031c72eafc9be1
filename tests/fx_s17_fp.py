"""Generator for the s17 false-positive cases: a git log whose commit message names a
secret-printing command, and gpg key listings with role-named signing keys."""

from __future__ import annotations

import random


# --- git log --oneline after a commit message that names a secret-printing command ------------
def git_log_oneline(seed: int) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    shas = ["".join(rng.choice("0123456789abcdef") for _ in range(7)) for _ in range(4)]
    text = ("$ git log --oneline -4\n"
            f"{shas[0]} (HEAD -> main, origin/main) ci: fetch the token with gcloud auth print-access-token\n"
            f"{shas[1]} docs: explain gh auth token and op read in the README\n"
            f"{shas[2]} build: echo $GITHUB_TOKEN only in debug mode\n"
            f"{shas[3]} initial commit\n")
    return text, shas


# --- gpg key listings: keys named by their role, and keys of people ---------------------------
GPG_ROLE_NAMES = ["Build Key", "Release Signing", "CI Bot", "Release Signing Key", "Acme Release Engineering",
                  "Automatic Signing Key", "Deploy Key", "Package Signing"]


def gpg_listing(name: str, email: str, comment: str = "") -> str:
    uid = f"{name} ({comment}) <{email}>" if comment else f"{name} <{email}>"
    return ("$ gpg --list-keys\n~/.gnupg/pubring.kbx\n------------------------\n"
            "pub   ed25519 2026-01-05 [SC] [expires: 2028-01-05]\n"
            "      3AA5C34371567BD2A1B2C3D4E5F60718293A4B5C\n"
            f"uid           [ultimate] {uid}\n"
            "sub   cv25519 2026-01-05 [E] [expires: 2028-01-05]\n")
