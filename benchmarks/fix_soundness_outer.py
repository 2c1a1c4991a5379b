"""The long run of the fix-soundness check outside function bodies (tests/fix_soundness/
outer_forms.py): the generated programs with their final expression in a lambda, and as
module-level code (directly, and in a module-level lambda), fixed with the safe fixes only
and run before and after. Prints the counts per form; exit status 1 on any difference.

    python benchmarks/fix_soundness_outer.py --modules 50 --first-seed 1000
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fix_soundness.harness import Tally, check_module  # noqa: E402
from tests.fix_soundness.outer_forms import (  # noqa: E402
    check_module_level,
    lambda_form,
    module_level_forms,
)
from tests.fix_soundness.programs import generate_module  # noqa: E402

FUNCTIONS = 40


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1000)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", SyntaxWarning)
    started = time.perf_counter()
    forms = {"lambda in a function": Tally(), "module level": Tally(),
             "module-level lambda": Tally()}  # fmt: skip
    for seed in range(args.first_seed, args.first_seed + args.modules):
        module = generate_module(seed, FUNCTIONS)
        forms["lambda in a function"].add(check_module(lambda_form(module)))
        for name, in_lambda in (("module level", False), ("module-level lambda", True)):
            forms[name].add(check_module_level(seed, module_level_forms(module, in_lambda=in_lambda)))
    last = args.first_seed + args.modules - 1
    print(f"seeds {args.first_seed}..{last}, {FUNCTIONS} functions a module")
    failed = False
    for name, tally in forms.items():
        print(f"{name:22s} programs {tally.programs:6d}  rewritten (safe) {tally.rewritten:6d}  "
              f"calls {tally.calls:6d} ({tally.raised} raised)  "
              f"differences {len(tally.differences)}  broken {len(tally.errors)}")  # fmt: skip
        for difference in tally.differences[:3]:
            print(difference.report())
        for error in tally.errors[:5]:
            print("broken:", error)
        failed = failed or bool(tally.differences or tally.errors)
    print(f"seconds {time.perf_counter() - started:.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
