"""Result cache and peer store of ``bench_query_release.py``'s Table 4.

``ResultCache``: a JSON-lines file of finished cells (``--cache``, and the
committed peer store ``PEER_STORE``, ``--peer-store``). ``Peers``: smartnoise-synth
AIM and MST in their own venv, through ``_query_peers.py`` (keyed by that
script's hash), and ``matched_peer_rho``, the budget at which they give our
guarantee. ``_code_version`` and ``_git_state`` identify the package a run
used (our cached rows are keyed by the former).
"""

# SPDX-License-Identifier: BSD-3-Clause

import hashlib
import json
import math
import os
import subprocess
import time
from pathlib import Path

import _query_datasets
import numpy as np

import sklearn_semiprivate


def _git_state():
    """The commit the imported package comes from, when it can be told."""
    root = Path(sklearn_semiprivate.__file__).parent.parent
    marker = root / "GIT_COMMIT"
    if marker.exists():
        return f"exported from commit {marker.read_text().strip()}"

    def git(*args):
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        head = git("log", "-1", "--format=%h %cI")
        dirty = git("status", "--porcelain", "sklearn_semiprivate")
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    return f"HEAD {head}" + (", with uncommitted changes" if dirty else "")


def _code_version():
    """Hash of the sources a release runs on (the package's ``query_release``,
    ``accounting`` and ``utils`` subpackages and its top-level modules): cached
    rows of ours are redone when they move."""
    h = hashlib.sha256()
    root = Path(sklearn_semiprivate.__file__).parent
    files = [*root.glob("*.py")]
    for sub in ("query_release", "accounting", "utils"):
        files += root.joinpath(sub).rglob("*.py")
    for f in sorted(files):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


class ResultCache:
    """JSON-lines cache of finished cells, so an interrupted or repeated run
    redoes only what changed (peers are keyed by split, budget and script)."""

    def __init__(self, path):
        self.path = Path(path) if path else None
        self.data = {}
        self.reload()

    def reload(self):
        """Read the file again (other processes may have added cells)."""
        if self.path and self.path.exists():
            for line in self.path.read_text().splitlines():
                if line.strip():
                    try:
                        rec = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # a line being written by another process
                    self.data[rec["key"]] = rec["value"]

    def get(self, key):
        return self.data.get(key)

    def put(self, key, value, **meta):
        self.data[key] = value
        if self.path:
            with self.path.open("a") as f:
                f.write(json.dumps({"key": key, "value": value, **meta}) + "\n")


# The peers' finished cells, kept in the repository: AIM takes up to 45 min a
# fit, and /tmp does not outlive a machine. Keyed like the cache (the peer
# script's hash, the split's fingerprint, rho), so a changed script or split
# is run again; a run adds the cells it finishes (``--peer-store``).
PEER_STORE = Path(__file__).parent / "results" / "query_release_peers.jsonl"


class Peers:
    """smartnoise-synth AIM and MST in their own venv, through ``_query_peers.py``."""

    def __init__(self, python, tmpdir, aim_scoring="fast", store=None):
        self.python = python
        self.tmpdir = Path(tmpdir)
        self.aim_scoring = aim_scoring
        self.script = Path(__file__).with_name("_query_peers.py")
        self.version = hashlib.sha256(self.script.read_bytes()).hexdigest()[:12]
        self.store = store
        # ``error``: the peers' rows cannot be built at all (no budget
        # conversion); ``run_error``: no new peer fit can run (stored cells
        # still fill the rows).
        self.error = None
        self.run_error = None
        self._rho = {}
        if python is None:
            self.run_error = "no --peers-python given"
        elif not Path(python).exists():
            self.run_error = f"--peers-python {python} does not exist"

    def env(self):
        env = dict(os.environ)
        env.update(
            OMP_NUM_THREADS="1",
            XLA_FLAGS="--xla_cpu_multi_thread_eigen=false "
            "intra_op_parallelism_threads=1",
            PYTHONWARNINGS="ignore",
        )
        return env

    def cdp_rho(self, *pairs):
        """smartnoise's own (epsilon, delta) -> rho conversion, from its venv:
        one value per ``(epsilon, delta)`` pair, in one subprocess."""
        if self.store is not None:  # conversions kept with the stored cells
            for e, d in pairs:
                value = self.store.get(self._rho_key(e, d))
                if value is not None:
                    self._rho[(float(e), float(d))] = value
        todo = [(float(e), float(d)) for e, d in pairs if (e, d) not in self._rho]
        if todo and self.run_error is not None:
            raise RuntimeError(
                f"{self.run_error}, and the peer store has no rho for {todo}"
            )
        if todo:
            arg = ";".join(f"{e!r},{d!r}" for e, d in todo)
            out = subprocess.run(
                [self.python, str(self.script), "--cdp-rho", arg],
                capture_output=True,
                text=True,
                env=self.env(),
                check=True,
            )
            values = json.loads(out.stdout.strip().splitlines()[-1])
            self._rho.update(zip(todo, values, strict=True))
            if self.store is not None:
                for (e, d), value in zip(todo, values, strict=True):
                    self.store.put(
                        self._rho_key(e, d),
                        value,
                        info="smartnoise-synth's cdp_rho(epsilon, delta)",
                        stored=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                    )
        return [self._rho[(float(e), float(d))] for e, d in pairs]

    def _rho_key(self, epsilon, delta):
        return f"cdp_rho|{self.version}|{float(epsilon)!r}|{float(delta)!r}"

    def run(self, peer, split, rho, timeout):
        tag = f"{split.name}-{int(split.shift)}-{split.seed}-{peer}-{rho:.6g}"
        split_path = self.tmpdir / f"{tag}-split.npz"
        out_path = self.tmpdir / f"{tag}-out.npz"
        _query_datasets.save_npz(split, split_path)
        cmd = [
            self.python,
            str(self.script),
            "--split",
            str(split_path),
            "--peer",
            peer,
            "--rho",
            repr(rho),
            "--out",
            str(out_path),
            "--aim-scoring",
            self.aim_scoring,
        ]
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, env=self.env(), timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout:.0f} s"}
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}
        with np.load(out_path) as f:
            answers = f["answers"]
            fit_seconds = float(f["fit_seconds"])
            info = json.loads(str(f["info"]))
        return {"answers": answers, "fit": fit_seconds, "wall": wall, "info": info}


def matched_peer_rho(peers, epsilon, delta):
    """The add/remove zCDP budget at which the peers give our guarantee.

    Ours is ``(epsilon, delta)``-DP under replace-one neighbours. A replacement
    is a removal then an addition, so (group privacy of size 2):

    * add/remove ``rho``-zCDP implies replace-one ``4 rho``-zCDP; running the
      peers at ``rho_a = cdp_rho(epsilon, delta) / 4`` makes them replace-one
      ``cdp_rho(epsilon, delta)``-zCDP, hence replace-one
      ``(epsilon, delta)``-DP by the conversion ``cdp_rho`` inverts;
    * add/remove ``(e, d)``-DP implies replace-one ``(2e, (1 + e^e) d)``-DP;
      running them at ``rho_b = cdp_rho(epsilon / 2, delta / (1 + e^(epsilon/2)))``
      makes them add/remove ``(epsilon / 2, delta / (1 + e^(epsilon / 2)))``-DP,
      hence replace-one ``(epsilon, delta)``-DP.

    Both give the peers exactly our guarantee; they get the larger of the two.
    """
    e2 = epsilon / 2
    r1, r2 = peers.cdp_rho((epsilon, delta), (e2, delta / (1 + math.exp(e2))))
    rho_a, rho_b = r1 / 4, r2
    return max(rho_a, rho_b), rho_a, rho_b


def _when(info, ran_here=True):
    """Provenance of a peer cell: the peer's own report, when it was stored and
    (for a fit of this run) the load average at its end."""
    out = {"info": info, "stored": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if ran_here:
        out["load_at_end"] = os.getloadavg()[0]
    return out


def _stored_peer(store, cache, key, meta):
    """A finished peer cell: from the store, else from the cache (then copied
    into the store, so it outlives the cache's machine), else None."""
    rec = store.get(key)
    if rec is None:
        rec = cache.get(key)
        if isinstance(rec, list):  # a result, not an error
            store.put(key, rec, **meta, **_when("copied from --cache", False))
    return rec
