"""The long run of the fix-soundness check: generated wrapper functions, fixed with the safe
fixes only, run before and after on random broadcast arguments, compared exactly (see
tests/fix_soundness/). CI runs 2,000 programs; this runs as many as asked and prints counts.

    python benchmarks/fix_soundness.py                      # 50,000 programs, seeds from 1000
    python benchmarks/fix_soundness.py --programs 200000 --first-seed 5000 --jobs 2
    python benchmarks/fix_soundness.py --report failures.txt   # every difference, in full

Exit status 1 when a program's fixed code differs from the original (or a fix broke a module).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fix_soundness.harness import Tally, check_module  # noqa: E402
from tests.fix_soundness.programs import generate_module  # noqa: E402

FUNCTIONS = 40  # per module: one fix run serves them all


def _one(seed: int) -> tuple[Tally, collections.Counter]:
    module = generate_module(seed, FUNCTIONS)
    tally = check_module(module)
    failing = {d.program for d in tally.differences}
    features = collections.Counter(
        f"{feature}{' (FAILED)' if p.name in failing else ''}"
        for p in module.programs
        for feature in p.features
    )
    return tally, features


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=50_000)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--report", type=Path, help="write every difference to this file")
    parser.add_argument("--features", action="store_true", help="count each construct's programs")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    total, features = Tally(), collections.Counter()
    seed = args.first_seed
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        while total.programs < args.programs:
            batch = range(seed, seed + 4 * args.jobs)
            seed = batch.stop
            for tally, counted in pool.map(_one, batch):
                total.add(tally)
                features.update(counted)
            print(f"\r{total.programs} programs, {len(total.differences)} differences", end="",
                  file=sys.stderr, flush=True)  # fmt: skip
    seconds = time.perf_counter() - started
    print(file=sys.stderr)
    print(f"seeds {args.first_seed}..{seed - 1}, {FUNCTIONS} functions a module, jobs {args.jobs}")
    print(f"modules           {total.modules}")
    print(f"programs          {total.programs}")
    print(f"rewritten (safe)  {total.rewritten}")
    print(f"calls             {total.calls} ({total.raised} where the original raised)")
    print(f"differences       {len(total.differences)}")
    print(f"broken modules    {len(total.errors)}")
    print(f"seconds           {seconds:.1f} ({total.programs / seconds:.0f} programs/s)")
    if args.features:
        for feature, count in sorted(features.items()):
            print(f"  {count:7d}  {feature}")
    for error in total.errors[:10]:
        print("broken:", error)
    for difference in total.differences[:3]:
        print(difference.report())
    if args.report:
        args.report.write_text("\n\n".join(d.report() for d in total.differences) + "\n")
    return 1 if total.differences or total.errors else 0


if __name__ == "__main__":
    sys.exit(main())
