"""s18 deploy kits as an operator reads them: what tests/test_deploy.py does not check yet.

The paths each kit's config names are where the kit mounts or creates them, with the access the
archiver needs there (read-only homes, config and keys; a writable state dir and /tmp on a
read-only root), and the systemd unit can write what its command line names."""

from __future__ import annotations

import plistlib
import shlex
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from archiver.config import load_settings

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
ENV_VARS = ("ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY", "XDG_STATE_HOME", "ARCHIVER_IDENTITY_FILE")


def _settings(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch, env: dict[str, str] | None = None) -> Any:
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    return load_settings(cfg)


def _under(path: str, mounts: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The mount holding `path` (the deepest mountPath it lies under)."""
    p = PurePosixPath(path)
    best = [m for mp, m in mounts.items() if p == PurePosixPath(mp) or PurePosixPath(mp) in p.parents]
    return max(best, key=lambda m: len(m["mountPath"])) if best else None


# ---------------------------------------------------------------- kubernetes
@pytest.fixture
def k8s() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    docs = [d for d in yaml.safe_load_all((DEPLOY / "kubernetes" / "cronjob.yaml").read_text()) if d]
    return {d["kind"]: d for d in docs}


def test_cronjob_mounts_every_path_its_configmap_names(k8s: dict[str, Any], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    pod = k8s["CronJob"]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    [main] = pod["containers"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m for m in main["volumeMounts"]}
    env = {e["name"]: e["value"] for e in main.get("env", [])}
    s = _settings(tmp_path, k8s["ConfigMap"]["data"]["config.toml"], monkeypatch)

    # the config file: ARCHIVER_CONFIG is a key of the ConfigMap mounted at its folder
    config = PurePosixPath(env["ARCHIVER_CONFIG"])
    m = _under(str(config), mounts)
    assert m is not None and m.get("readOnly") is True
    assert volumes[m["name"]]["configMap"]["name"] == k8s["ConfigMap"]["metadata"]["name"]
    assert PurePosixPath(m["mountPath"]) == config.parent and config.name in k8s["ConfigMap"]["data"]

    # read-only: the homes and the key files; writable: the state dir and /tmp (the root FS is read-only)
    for path, writable in ((str(s.home_dir), False), (str(s.redaction.team_key_file), False),
                           (str(s.encryption.recipients_file), False), (str(s.state_dir), True), ("/tmp", True)):
        m = _under(path, mounts)
        assert m is not None, f"{path}: not on any volume of the container (the root FS is read-only)"
        assert (m.get("readOnly") is True) is (not writable), (path, m)
        v = volumes[m["name"]]
        if writable:
            assert "persistentVolumeClaim" in v or "emptyDir" in v, (path, v)
    assert "persistentVolumeClaim" in volumes[_under(str(s.state_dir), mounts)["name"]]  # kept between runs

    # the init container fills the keys folder from the Secret: both files, into the folder the config names
    [init] = pod["initContainers"]
    init_mounts = {m["mountPath"]: m for m in init["volumeMounts"]}
    words = shlex.split(init["command"][-1])
    assert words[:3] == ["install", "-m", "0600"]
    *sources, dest = words[3:]
    assert sorted(PurePosixPath(x).name for x in sources) == ["recipient.txt", "team.key"]  # never identity.txt
    for src in sources:
        assert "secret" in volumes[_under(src, init_mounts)["name"]]
    dest_mount = _under(dest, init_mounts)
    assert dest_mount is not None and not dest_mount.get("readOnly")
    for key_file in (s.redaction.team_key_file, s.encryption.recipients_file):
        assert _under(str(key_file), mounts)["name"] == dest_mount["name"]
        assert PurePosixPath(dest) / key_file.name == PurePosixPath(str(key_file))


def test_cronjob_runs_as_the_images_user_with_no_credentials_in_it(k8s: dict[str, Any]) -> None:
    pod = k8s["CronJob"]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    sc = pod["securityContext"]
    user = _dockerfile()["USER"][-1].split(":")
    assert [str(sc["runAsUser"]), str(sc["runAsGroup"])] == user
    assert sc["seccompProfile"]["type"] == "RuntimeDefault"
    assert pod["serviceAccountName"] == k8s["ServiceAccount"]["metadata"]["name"]
    text = (DEPLOY / "kubernetes" / "cronjob.yaml").read_text()
    assert "AWS_SECRET_ACCESS_KEY" not in text and "AGE-SECRET-KEY" not in text
    assert k8s["CronJob"]["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"] <= 7200


# ---------------------------------------------------------------- container
def _dockerfile() -> dict[str, list[str]]:
    """Instruction -> its arguments, continuation lines joined."""
    out: dict[str, list[str]] = {}
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            op, _, rest = line.partition(" ")
            out.setdefault(op.upper(), []).append(rest.strip())
    return out


def test_dockerfile_paths_match_the_documented_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = _dockerfile()
    env: dict[str, str] = {}
    for e in d["ENV"]:
        for word in shlex.split(e):
            k, _, v = word.partition("=")
            env[k] = v
    user = d["USER"][-1].split(":")[0]
    assert user.isdigit() and int(user) >= 1000
    runs = " ".join(d["RUN"])
    # the documented config (Dockerfile header, README): home /data/home, state in the VOLUME
    s = _settings(tmp_path, 'home = "/data/home"\n', monkeypatch, {"XDG_STATE_HOME": env["XDG_STATE_HOME"]})
    volume = d["VOLUME"][-1].strip('[]" ')
    assert str(s.state_dir) == volume == "/var/lib/archiver"  # the default state dir is the volume
    assert f"install -d -m 0700 -o {user} -g {user} {volume}" in runs  # owned by the image's user, private
    assert env["HOME"] == volume  # ~ must be writable on a read-only root
    assert PurePosixPath(env["ARCHIVER_CONFIG"]).parent == PurePosixPath("/etc/archiver")
    assert "/data/home" in runs and "/etc/archiver" in runs
    header = (DEPLOY / "Dockerfile").read_text()
    for mount in ("/data/home:ro", "/etc/archiver:ro", ":/var/lib/archiver", "--read-only", "--cap-drop ALL"):
        assert mount in header, mount
    readme = (DEPLOY / "README.md").read_text()
    assert "-v /home/alice:/data/home:ro" in readme and "archiver-state:/var/lib/archiver" in readme


# ---------------------------------------------------------------- systemd
def _unit(path: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")):
            k, _, v = line.partition("=")
            out.setdefault(k.strip(), []).append(v.strip())
    return out


def test_systemd_unit_can_write_what_its_command_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    svc = _unit(DEPLOY / "systemd" / "archiver.service")
    argv = shlex.split(svc["ExecStart"][-1])
    metrics = PurePosixPath(argv[argv.index("--metrics-file") + 1])
    writable = [PurePosixPath(p.lstrip("-")) for p in svc["ReadWritePaths"]]
    assert any(metrics.parent == w or w in metrics.parents for w in writable), (metrics, writable)
    env = dict(e.split("=", 1) for e in svc["Environment"])
    # the state dir the unit's environment gives by default is its StateDirectory (writable, 0700)
    s = _settings(tmp_path, 'home = "/home/alice"\n', monkeypatch, {"XDG_STATE_HOME": env["XDG_STATE_HOME"]})
    assert s.state_dir == Path("/var/lib") / svc["StateDirectory"][-1]
    assert PurePosixPath(str(s.state_dir)) in writable and svc["StateDirectoryMode"][-1] == "0700"
    assert "143" in svc["SuccessExitStatus"][-1].split()
    assert svc["KillMode"][-1] == "mixed"
    timer = _unit(DEPLOY / "systemd" / "archiver.timer")
    assert timer["FixedRandomDelay"] == ["yes"]


# ---------------------------------------------------------------- launchd
def test_launchd_paths_are_absolute_and_per_user() -> None:
    with (DEPLOY / "launchd" / "com.archiver.sync.plist").open("rb") as f:
        doc = plistlib.load(f)
    args = doc["ProgramArguments"]
    paths = [args[args.index("--metrics-file") + 1], doc["StandardOutPath"], doc["StandardErrorPath"],
             doc["EnvironmentVariables"]["ARCHIVER_CONFIG"]]
    for p in paths:  # launchd expands neither ~ nor $HOME
        assert p.startswith("/Users/USERNAME/") and "~" not in p and "$" not in p, p
    assert args[:4] == ["/usr/local/bin/archiver", "sync", "--log-format", "json"]
    assert doc["ProcessType"] == "Background" and doc["LowPriorityIO"] is True and doc["Nice"] == 10
