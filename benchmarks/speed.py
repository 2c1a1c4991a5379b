"""stridelint's speed at repository scale, side by side with Ruff, Fixit and TorchFix.

    python benchmarks/speed.py build CORPUS_DIR            # download + unpack (needs PyPI)
    python benchmarks/speed.py run CORPUS_DIR [--subset NAMES] [--json out.json]

`build` fetches the .py files of the packages below (`pip download --no-deps`, unpack) and
copies the installed torch and triton sources. `run` measures, in one run on the same files,
CPU seconds (user + system, worker processes included), wall seconds and peak RSS of:
stridelint cold (`--no-cache`) and warm (cache filled, nothing changed), Ruff's default
rules (`--no-cache`, the speed bound), and the two LibCST peers, Fixit and TorchFix, on a
named subset (they take too long on the whole corpus), as per-line rates. Also pre-commit
latency: `stridelint check` on 5 typical files, once with none a candidate, once with one.

Ruff, Fixit and TorchFix are looked up on PATH or with --peers-bin (a venv's bin folder).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

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


def measure(command: list[str], cwd: Path | None = None) -> dict:
    """CPU (children included), wall and peak RSS of one command."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    return {
        "command": " ".join(command),
        "exit": os.waitstatus_to_exitcode(status),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "output_lines": output.count(b"\n"),
    }


def _tool(name: str, peers_bin: Path | None) -> str | None:
    if peers_bin and (peers_bin / name).exists():
        return str(peers_bin / name)
    return shutil.which(name)


def run(
    corpus: Path, subset: tuple[str, ...], peers_bin: Path | None, jobs: int, peers: bool = True
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
        report["stridelint_cold"] = measure(stridelint + ["--no-cache", "-j", str(jobs)] + every)
        measure(stridelint + ["--cache-dir", cache, "-j", str(jobs)] + every)  # fill the cache
        report["stridelint_warm"] = measure(stridelint + ["--cache-dir", cache, "-j", str(jobs)] + every)
    report["stridelint_cold_subset"] = measure(
        stridelint + ["--no-cache", "-j", str(jobs)] + [str(t) for t in subset_trees]
    )
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
    for file in sorted(corpus.rglob("*.py")):
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
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.corpus)
        return 0
    report = run(
        args.corpus, tuple(args.subset.split(",")), args.peers_bin, args.jobs, not args.no_peers
    )
    print(f"corpus: {report['corpus_lines']:,} lines; subset {report['subset']}: {report['subset_lines']:,} lines")
    print(table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
