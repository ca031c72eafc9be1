"""Prometheus textfile-collector output (`--metrics-file PATH`).

node_exporter's textfile collector reads `*.prom` files from a folder; the file is
replaced atomically (temp file in the same folder + rename) so it never sees half a file.

Gauges describe the last run; the two `_total` counters accumulate across runs by
carrying the values of the previous file forward (a deleted file restarts them, which
Prometheus treats as an ordinary counter reset). `archiver_last_success_timestamp_seconds`
is carried forward too, so a failing run does not hide how long ago the last good one was
(0 while no run has succeeded).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from archiver import __version__

SESSION_STATES = ("total", "uploaded", "unchanged", "failed")
BYTE_KINDS = ("read", "uploaded")

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


@dataclass
class Previous:
    """What the last metrics file said (the carried-forward values)."""

    last_success: float | None = None
    failures_total: float = 0.0
    redactions_total: dict[str, float] = field(default_factory=dict)


def escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _unescape_label(value: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), value)


def parse(text: str) -> list[tuple[str, dict[str, str], float]]:
    """The samples of a text exposition: (name, labels, value). Comments are skipped."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            continue
        labels = {k: _unescape_label(v) for k, v in _LABEL.findall(m.group(3) or "")}
        try:
            out.append((m.group(1), labels, float(m.group(4))))
        except ValueError:
            continue
    return out


def read_previous(path: Path) -> Previous:
    prev = Previous()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return prev
    for name, labels, value in parse(text):
        if name == "archiver_last_success_timestamp_seconds" and value > 0:
            prev.last_success = value
        elif name == "archiver_failures_total":
            prev.failures_total = value
        elif name == "archiver_redactions_total" and "rule" in labels:
            prev.redactions_total[labels["rule"]] = value
    return prev


def run_succeeded(result: Mapping[str, Any] | None) -> bool:
    """A run is a success when it finished with no failed session and no error."""
    if result is None:
        return False
    sessions = result.get("sessions") or {}
    return not sessions.get("failed") and not result.get("errors")


def render(result: Mapping[str, Any] | None, *, started: float, finished: float,
           previous: Previous | None = None, success: bool | None = None) -> str:
    """The exposition text for one run. `result` is SyncResult.to_json() (None when the run
    died before producing one); `started`/`finished` are Unix times."""
    prev = previous or Previous()
    ok = run_succeeded(result) if success is None else success
    last_success = finished if ok else prev.last_success
    failures = prev.failures_total + (0 if ok else 1)
    redactions = dict(prev.redactions_total)
    for rule, n in ((result or {}).get("redactions") or {}).items():
        redactions[str(rule)] = redactions.get(str(rule), 0.0) + float(n)

    lines: list[str] = []

    def metric(name: str, kind: str, help_: str, samples: list[tuple[dict[str, str], float]]) -> None:
        lines.append(f"# HELP {name} {help_}")
        lines.append(f"# TYPE {name} {kind}")
        for labels, value in samples:
            lab = ",".join(f'{k}="{escape_label(v)}"' for k, v in labels.items())
            lines.append(f"{name}{{{lab}}} {_num(value)}" if lab else f"{name} {_num(value)}")

    metric("archiver_info", "gauge", "Version of the archiver that wrote this file.", [({"version": __version__}, 1)])
    metric("archiver_last_run_timestamp_seconds", "gauge", "When the last sync run finished (Unix time).",
           [({}, finished)])
    metric("archiver_last_run_success", "gauge", "1 if the last sync run archived every session without error.",
           [({}, 1 if ok else 0)])
    # 0 until a run succeeds, not absent: `time() - x > limit` then fires for a host that never
    # had a good run, as it does for one whose last good run is old
    metric("archiver_last_success_timestamp_seconds", "gauge",
           "When the last fully successful sync run finished (Unix time; 0: none yet).", [({}, last_success or 0)])
    metric("archiver_run_duration_seconds", "gauge", "Wall time of the last sync run.",
           [({}, max(0.0, finished - started))])
    if result is not None:
        sessions = result.get("sessions") or {}
        metric("archiver_sessions", "gauge", "Sessions seen by the last sync run, by outcome.",
               [({"state": s}, float(sessions.get(s, 0) or 0)) for s in SESSION_STATES])
        nbytes = result.get("bytes") or {}
        metric("archiver_bytes", "gauge", "Bytes read from session files and uploaded by the last sync run.",
               [({"kind": k}, float(nbytes.get(k, 0) or 0)) for k in BYTE_KINDS])
        if "objects_uploaded" in result:
            metric("archiver_objects_uploaded", "gauge", "Objects uploaded by the last sync run.",
                   [({}, float(result.get("objects_uploaded") or 0))])
    metric("archiver_redactions_total", "counter", "Redactions applied, by rule, over all runs.",
           [({"rule": r}, v) for r, v in sorted(redactions.items())])
    metric("archiver_failures_total", "counter", "Sync runs that did not fully succeed, over all runs.",
           [({}, failures)])
    return "\n".join(lines) + "\n"


def _num(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def write_atomic(path: Path, text: str, mode: int = 0o644) -> None:
    """Write via a temp file in the same folder, fsync, then rename over `path`. The file ends
    with `mode` whatever the umask (0644 by default: node_exporter runs as another user and
    must read it), set on the temp file's descriptor: a name swapped for a symlink meanwhile
    cannot make the chmod change another file's mode."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_metrics(path: Path, result: Mapping[str, Any] | None, *, started: float, finished: float,
                  success: bool | None = None) -> str:
    """Render the run's metrics (carrying counters from the file already at `path`) and
    replace the file. Returns the text written."""
    text = render(result, started=started, finished=finished, previous=read_previous(Path(path)), success=success)
    write_atomic(Path(path), text)
    return text
