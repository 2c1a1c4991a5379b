"""stridelint's speed at repository scale, side by side with Ruff, Fixit and TorchFix.

    python benchmarks/speed.py build CORPUS_DIR            # download + unpack (needs PyPI)
    python benchmarks/speed.py run CORPUS_DIR [--subset NAMES] [--json out.json]

`build` fetches the .py files of the packages below (`pip download --no-deps`, unpack) and
copies the installed torch and triton sources. `run` measures, in one run on the same files,
CPU seconds (user + system, worker processes included), wall seconds and peak RSS (of the
largest process) of: stridelint cold (an empty cache, which the run fills) and warm
(nothing changed), Ruff's default rules (`--no-cache`, the speed bound), and the two LibCST peers,
Fixit and TorchFix, on a named subset (they take too long on the whole corpus), as per-line
rates. Also pre-commit latency: `stridelint check` on 5 typical files, once with none a
candidate, once with one; the speed-up of a cold check from `-j 1` to `-j N`; and a checksum
of the findings (JSON output) of the staged engine and of the full path
(STRIDELINT_FULL_PATH=1: every file parsed and analysed whole), which must be equal. The
full path and the `-j 1` run take the longest, so by default they run on the subset
(`--full-path-on all`, `--scaling-on all` for the whole corpus).

Ruff, Fixit and TorchFix are looked up on PATH or with --peers-bin (a venv's bin folder).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

# The linting environment of the corpus script (run as a script, this folder is on the path).
from real_corpus import checkout_env

PACKAGES = (
    "transformers==5.23.0",
    "diffusers==0.42.1",
    "fla-core==0.6.0",
    "liger-kernel==0.8.5",
    "sglang==0.5.23",
    "flashinfer-python==0.7.2.post1",
)
DEFAULT_SUBSET = ("liger_kernel", "fla_core")


def build(corpus: Path) -> None:
    downloads = corpus / "_wheels"
    downloads.mkdir(parents=True, exist_ok=True)
    for package in PACKAGES:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", package, "-d", str(downloads)],
            check=True,
        )
    for wheel in sorted(downloads.glob("*.whl")):
        target = corpus / wheel.name.split("-")[0]
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.endswith(".py"):
                    archive.extract(member, target)
    for module in ("torch", "triton"):
        try:
            package = __import__(module)
        except ImportError:
            continue
        source = Path(package.__file__).parent
        shutil.copytree(source, corpus / module, ignore=_only_python, dirs_exist_ok=True)


def _only_python(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if not n.endswith(".py") and not os.path.isdir(os.path.join(folder, n))]


def lines_in(paths: list[Path]) -> int:
    total = 0
    for root in paths:
        for file in root.rglob("*.py"):
            with open(file, "rb") as stream:
                total += sum(1 for _ in stream)
    return total


# Runs the command from a fresh, small interpreter and reports its children's resource use:
# a child forked from this (grown) process would count this process's memory as its own.
_RUNNER = """
import json, os, subprocess, sys
process = subprocess.Popen(sys.argv[2:], stdout=sys.stdout.fileno(), stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
os.write(int(sys.argv[1]), json.dumps([os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime,
                        usage.ru_maxrss]).encode())
"""


def measure(command: list[str], cwd: Path | None = None, env: dict | None = None) -> dict:
    """CPU (children included), wall, peak RSS (the largest process) and output of a command
    (in `checkout_env()` unless `env` is given)."""
    env = checkout_env() if env is None else env
    read, write = os.pipe()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", _RUNNER, str(write), *command], cwd=cwd, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, pass_fds=(write,), env=env,
    )  # fmt: skip
    os.close(write)
    output = process.stdout.read()
    process.wait()
    wall = time.perf_counter() - started
    with os.fdopen(read, "rb") as stream:
        status, cpu, rss_kb = json.loads(stream.read())
    return {
        "command": " ".join(command),
        "exit": status,
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(rss_kb / 1024, 1),
        "output_lines": output.count(b"\n"),
        "output_sha256": hashlib.sha256(output).hexdigest()[:16],
    }


def _tool(name: str, peers_bin: Path | None) -> str | None:
    if peers_bin and (peers_bin / name).exists():
        return str(peers_bin / name)
    return shutil.which(name)


def run(
    corpus: Path,
    subset: tuple[str, ...],
    peers_bin: Path | None,
    jobs: int,
    peers: bool = True,
    full_path_on: str = "subset",
    scaling_on: str = "subset",
) -> dict:
    trees = sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith("_"))
    subset_trees = [corpus / name for name in subset]
    stridelint = [sys.executable, "-m", "stridelint", "check", "--isolated", "--exit-zero", "-q"]
    report: dict = {
        "corpus": {t.name: lines_in([t]) for t in trees},
        "subset": list(subset),
        "jobs": jobs,
        "cpus": os.cpu_count(),
    }
    report["corpus_lines"] = sum(report["corpus"].values())
    report["subset_lines"] = sum(report["corpus"][t.name] for t in subset_trees)
    every = [str(t) for t in trees]
    with tempfile.TemporaryDirectory() as cache:
        # cold: an empty cache (the run pays for writing it), then warm: nothing changed
        report["stridelint_cold"] = measure(stridelint + ["--cache-dir", cache, "-j", str(jobs)] + every)
        report["stridelint_warm"] = measure(stridelint + ["--cache-dir", cache, "-j", str(jobs)] + every)
    subset_paths = [str(t) for t in subset_trees]
    report["stridelint_cold_subset"] = measure(stridelint + ["--no-cache", "-j", str(jobs)] + subset_paths)
    # the speed-up from one worker to all
    scaled = every if scaling_on == "all" else subset_paths
    one = measure(stridelint + ["--no-cache", "-j", "1"] + scaled)
    many = report["stridelint_cold"] if scaling_on == "all" else report["stridelint_cold_subset"]
    report["scaling"] = {
        "on": scaling_on, "jobs": jobs, "j1": one, "wall_speedup": round(one["wall_s"] / many["wall_s"], 2),
    }  # fmt: skip
    # same findings: the staged engine against the full path, on the same files
    checked = every if full_path_on == "all" else subset_paths
    findings = stridelint[:-1] + ["--output-format", "json", "--no-cache", "-j", str(jobs)]
    full_env = checkout_env(STRIDELINT_FULL_PATH="1")
    staged = measure(findings + checked)
    full = measure(findings + checked, env=full_env)
    report["same_findings"] = {
        "on": full_path_on, "staged": staged, "full_path": full,
        "equal": staged["output_sha256"] == full["output_sha256"],
    }  # fmt: skip
    ruff = _tool("ruff", peers_bin)
    if ruff:  # the speed bound: always measured
        report["ruff"] = measure([ruff, "check", "--no-cache", "--isolated", "--exit-zero", "-q"] + every)
    fixit = _tool("fixit", peers_bin) if peers else None
    if fixit:
        report["fixit_subset"] = measure([fixit, "lint"] + [str(t) for t in subset_trees])
    torchfix = _tool("torchfix", peers_bin) if peers else None
    if torchfix:
        report["torchfix_subset"] = measure([torchfix] + [str(t) for t in subset_trees])
    report["precommit"] = _precommit(corpus)
    _rates(report)
    return report


def _precommit(corpus: Path) -> dict:
    """Five files as pre-commit passes them: none a candidate, then one (parsed with LibCST)."""
    from stridelint.prefilter import may_have_findings

    plain, candidates = [], []
    trees = sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith("_"))
    for file in (f for tree in trees for f in sorted(tree.rglob("*.py"))):  # trees may be links
        text = file.read_text(encoding="utf-8", errors="replace")
        lines = text.count("\n")
        if 100 <= lines <= 600:
            try:
                candidate = may_have_findings(ast.parse(text))
            except SyntaxError:
                continue
            (candidates if candidate else plain).append(str(file))
        if len(plain) >= 5 and candidates:
            break
    if len(plain) < 5 or not candidates:
        raise SystemExit(f"{corpus}: too few files of 100-600 lines for the pre-commit sample")
    command = [sys.executable, "-m", "stridelint", "check", "--isolated", "--no-cache", "--exit-zero", "-q"]
    return {
        "no_candidate": measure(command + plain[:5]),
        "one_candidate": measure(command + plain[:4] + candidates[:1]),
    }


def _rates(report: dict) -> None:
    per_line = {}
    for key, lines in (("stridelint_cold", "corpus_lines"), ("ruff", "corpus_lines"),
                       ("stridelint_cold_subset", "subset_lines"), ("fixit_subset", "subset_lines"),
                       ("torchfix_subset", "subset_lines")):  # fmt: skip
        if key in report and report[lines]:
            per_line[key] = round(report[key]["cpu_s"] / report[lines] * 1e6, 1)
    report["cpu_us_per_line"] = per_line


def table(report: dict) -> str:
    rows = ["| run | CPU s | wall s | peak RSS MB | CPU µs/line |", "| --- | --- | --- | --- | --- |"]
    for key in ("stridelint_cold", "stridelint_warm", "ruff", "stridelint_cold_subset",
                "fixit_subset", "torchfix_subset"):  # fmt: skip
        if key in report:
            r = report[key]
            rate = report["cpu_us_per_line"].get(key, "")
            rows.append(f"| {key} | {r['cpu_s']} | {r['wall_s']} | {r['peak_rss_mb']} | {rate} |")
    for key, r in report["precommit"].items():
        rows.append(f"| precommit {key} (5 files) | {r['cpu_s']} | {r['wall_s']} | {r['peak_rss_mb']} | |")
    scaling = report["scaling"]
    r = scaling["j1"]
    rows.append(f"| cold -j 1 ({scaling['on']}) | {r['cpu_s']} | {r['wall_s']} | {r['peak_rss_mb']} | |")
    same = report["same_findings"]
    for key in ("staged", "full_path"):
        r = same[key]
        rows.append(f"| {key} findings ({same['on']}) | {r['cpu_s']} | {r['wall_s']} | {r['peak_rss_mb']} | |")
    if "ruff" in report:
        ratio = report["stridelint_cold"]["cpu_s"] / max(report["ruff"]["cpu_s"], 0.01)
        rows.append(f"\ncold / ruff CPU: {ratio:.1f}x")
    rows.append(f"-j 1 -> -j {scaling['jobs']} wall speed-up ({scaling['on']}): {scaling['wall_speedup']}x")
    rows.append(
        f"findings checksum ({same['on']}, {same['staged']['output_lines']} lines of JSON): staged "
        f"{same['staged']['output_sha256']}, full path {same['full_path']['output_sha256']}: "
        + ("equal" if same["equal"] else "DIFFERENT")
    )
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("build").add_argument("corpus", type=Path)
    runner = commands.add_parser("run")
    runner.add_argument("corpus", type=Path)
    runner.add_argument("--subset", default=",".join(DEFAULT_SUBSET))
    runner.add_argument("--peers-bin", type=Path)
    runner.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    runner.add_argument("--json", type=Path)
    runner.add_argument("--no-peers", action="store_true", help="skip Fixit and TorchFix (slow)")
    runner.add_argument("--full-path-on", choices=("subset", "all"), default="subset",
                        help="the files the full-path findings checksum runs on (slow)")
    runner.add_argument("--scaling-on", choices=("subset", "all"), default="subset",
                        help="the files the -j 1 vs -j N run uses")
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.corpus)
        return 0
    report = run(
        args.corpus, tuple(args.subset.split(",")), args.peers_bin, args.jobs, not args.no_peers,
        args.full_path_on, args.scaling_on,
    )  # fmt: skip
    print(f"corpus: {report['corpus_lines']:,} lines; subset {report['subset']}: {report['subset_lines']:,} lines")
    print(table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0 if report["same_findings"]["equal"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
