"""The deploy kit: systemd units verify, IAM policies are least-privilege, the container
runs as non-root, the CronJob and launchd plist parse and say what the README says."""

from __future__ import annotations

import json
import plistlib
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
DELETE_ACTIONS = {"s3:deleteobject", "s3:deleteobjectversion", "s3:deletebucket", "s3:deleteobjecttagging",
                  "s3:bypassgovernanceretention", "s3:putlifecycleconfiguration"}


def _unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """systemd unit file -> {section: {key: [values]}}."""
    out: dict[str, dict[str, list[str]]] = {}
    section = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            out.setdefault(section, {})
            continue
        key, _, value = line.partition("=")
        out[section].setdefault(key.strip(), []).append(value.strip())
    return out


# ---------------------------------------------------------------- systemd
def test_systemd_units_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd)")
    # verify checks that ExecStart= exists: point it at this interpreter running the package
    service = (DEPLOY / "systemd" / "archiver.service").read_text()
    (tmp_path / "archiver.service").write_text(
        service.replace("/usr/local/bin/archiver", f"{Path(sys.executable).resolve()} -m archiver"))
    shutil.copy(DEPLOY / "systemd" / "archiver.timer", tmp_path / "archiver.timer")
    proc = subprocess.run([analyze, "verify", str(tmp_path / "archiver.service"), str(tmp_path / "archiver.timer")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "", proc.stderr  # no warnings either


def test_systemd_hardening_and_schedule() -> None:
    svc = _unit(DEPLOY / "systemd" / "archiver.service")["Service"]
    one = {k: v[-1] for k, v in svc.items()}
    for key, value in {
        "Type": "oneshot", "NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "read-only",
        "PrivateTmp": "yes", "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes",
        "ProtectKernelLogs": "yes", "ProtectControlGroups": "yes", "LockPersonality": "yes",
        "MemoryDenyWriteExecute": "yes", "RestrictNamespaces": "yes", "CapabilityBoundingSet": "",
        "UMask": "0077", "StateDirectory": "archiver",
    }.items():
        assert one.get(key) == value, (key, one.get(key))
    assert "@system-service" in svc["SystemCallFilter"]
    assert set(one["RestrictAddressFamilies"].split()) == {"AF_INET", "AF_INET6", "AF_UNIX"}
    assert "/var/lib/archiver" in svc["ReadWritePaths"]
    assert one["ExecStart"].split()[1] == "sync"
    assert "ARCHIVER_CONFIG=/etc/archiver/config.toml" in svc["Environment"]

    timer = _unit(DEPLOY / "systemd" / "archiver.timer")
    t = {k: v[-1] for k, v in timer["Timer"].items()}
    assert t["OnCalendar"] == "hourly" and t["Persistent"] == "yes" and t["Unit"] == "archiver.service"
    assert re.fullmatch(r"\d+(min|m|s|h)", t["RandomizedDelaySec"])
    assert timer["Install"]["WantedBy"] == ["timers.target"]


# ---------------------------------------------------------------- IAM
def _policy(name: str) -> dict[str, Any]:
    return json.loads((DEPLOY / "iam" / name).read_text())


def _actions(stmt: dict[str, Any]) -> list[str]:
    a = stmt.get("Action", [])
    return [x.lower() for x in ([a] if isinstance(a, str) else a)]


def _resources(stmt: dict[str, Any]) -> list[str]:
    r = stmt.get("Resource", [])
    return [r] if isinstance(r, str) else r


@pytest.mark.parametrize("name", ["collector-policy.json", "reviewer-policy.json", "operator-policy.json"])
def test_policies_parse(name: str) -> None:
    doc = _policy(name)
    assert doc["Version"] == "2012-10-17"
    sids = [s["Sid"] for s in doc["Statement"]]
    assert len(sids) == len(set(sids))
    for s in doc["Statement"]:
        assert s["Effect"] in ("Allow", "Deny")
        assert _actions(s) and _resources(s)
        assert not any(a in ("*", "s3:*") for a in _actions(s)), s["Sid"]


def test_collector_policy_is_least_privilege() -> None:
    allows = [s for s in _policy("collector-policy.json")["Statement"] if s["Effect"] == "Allow"]
    allowed = {a for s in allows for a in _actions(s)}
    assert not allowed & DELETE_ACTIONS
    assert not any("delete" in a for a in allowed)
    assert "s3:putobject" in allowed and "s3:getobject" in allowed
    for s in allows:
        for r in _resources(s):
            if not r.startswith("arn:aws:s3:::"):
                continue
            if "s3:getobject" in _actions(s):
                # reads: the marker and content objects only, never snapshots/ (other hosts' manifests)
                assert r in ("arn:aws:s3:::BUCKET/PREFIX/archiver.json", "arn:aws:s3:::BUCKET/PREFIX/objects/*"), r
            if "s3:putobject" in _actions(s):
                # writes: the marker, content objects, and this host's own manifests only
                assert r in ("arn:aws:s3:::BUCKET/PREFIX/archiver.json", "arn:aws:s3:::BUCKET/PREFIX/objects/*",
                             "arn:aws:s3:::BUCKET/PREFIX/snapshots/HOST_ID/*"), r
    denies = {a for s in _policy("collector-policy.json")["Statement"] if s["Effect"] == "Deny" for a in _actions(s)}
    assert {"s3:deleteobject", "s3:deleteobjectversion"} <= denies


def test_reviewer_reads_and_operator_prunes() -> None:
    rev = {a for s in _policy("reviewer-policy.json")["Statement"] if s["Effect"] == "Allow" for a in _actions(s)}
    assert "s3:getobject" in rev and "s3:listbucket" in rev
    assert not any(a.startswith("s3:put") or "delete" in a for a in rev)
    op = {a for s in _policy("operator-policy.json")["Statement"] if s["Effect"] == "Allow" for a in _actions(s)}
    assert {"s3:deleteobject", "s3:deleteobjectversion", "s3:putobjectlegalhold", "s3:putobjectretention"} <= op


# ---------------------------------------------------------------- container
def test_dockerfile_runs_as_non_root() -> None:
    lines = [ln.strip() for ln in (DEPLOY / "Dockerfile").read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    assert lines[0] == "FROM python:3.11-slim"
    users = [ln.split(None, 1)[1] for ln in lines if ln.upper().startswith("USER ")]
    assert users, "no USER instruction"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), user
    assert int(user) >= 1000 if user.isdigit() else True
    text = "\n".join(lines)
    assert re.search(r"apt-get install[^\n]*\bage\b", text) and re.search(r"apt-get install[^\n]*\bzstd\b", text)
    assert 'VOLUME ["/var/lib/archiver"]' in text
    assert 'ENTRYPOINT ["archiver"]' in text


# ---------------------------------------------------------------- kubernetes
def test_cronjob_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    yaml = pytest.importorskip("yaml")
    docs = [d for d in yaml.safe_load_all((DEPLOY / "kubernetes" / "cronjob.yaml").read_text()) if d]
    by_kind = {d["kind"]: d for d in docs}
    assert {"CronJob", "ConfigMap"} <= set(by_kind)
    cj = by_kind["CronJob"]["spec"]
    assert cj["concurrencyPolicy"] == "Forbid"
    pod = cj["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    volumes = {v["name"]: v for v in pod["volumes"]}
    for c in pod["containers"] + pod.get("initContainers", []):
        sc = c["securityContext"]
        assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
        assert sc["capabilities"]["drop"] == ["ALL"]
        for m in c["volumeMounts"]:
            v = volumes[m["name"]]
            if "secret" in v or "configMap" in v or m["mountPath"] == "/data/home":
                assert m.get("readOnly") is True, m
    assert any("secret" in v for v in volumes.values())
    assert volumes["homes"]["persistentVolumeClaim"]["readOnly"] is True

    # the ConfigMap's config.toml is a valid archiver config (keys come from files, not the map)
    from archiver.config import load_settings

    cfg = tmp_path / "config.toml"
    cfg.write_text(by_kind["ConfigMap"]["data"]["config.toml"])
    for var in ("ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY"):
        monkeypatch.delenv(var, raising=False)
    settings = load_settings(cfg)
    assert str(settings.home_dir) == "/data/home" and settings.store.url.startswith("s3://")
    assert "AGE-SECRET-KEY" not in cfg.read_text()


def test_launchd_plist() -> None:
    with (DEPLOY / "launchd" / "com.archiver.sync.plist").open("rb") as f:
        doc = plistlib.load(f)
    assert doc["Label"] == "com.archiver.sync"
    assert doc["ProgramArguments"][1] == "sync"
    assert doc["StartInterval"] == 3600 and doc["RunAtLoad"] is True
    assert doc["Umask"] == 0o077


def test_readme_documents_each_file() -> None:
    readme = (DEPLOY / "README.md").read_text()
    for name in ("Dockerfile", "archiver.service", "archiver.timer", "com.archiver.sync.plist", "cronjob.yaml",
                 "collector-policy.json", "reviewer-policy.json", "operator-policy.json"):
        assert name in readme, name
