"""Runs one reduce row a few times, for Nsight Compute to profile.

    ncu --clock-control none --kernel-name regex:_reduce_kernel --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
        python3 benchmarks/kernel_ncu_probe.py masked          # needs CUDA

Cases: `masked` (8192x4x8192 fp16 summed over B under a bool mask over N, the row at 84% of
copy bandwidth on the H200) and `none` (the same row without a mask, at 95%). Session 19 wrote
it to see whether the masked row reads more DRAM bytes than its kept rows or reads them slower
(docs/kernel-benchmarks.md).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SHAPE = (8192, 4, 8192)
CASES = {"masked": "bcast_n", "none": "none"}
LAUNCHES = 4


def main(case: str) -> int:
    import torch

    import benchmarks.reduce_bench as bench

    reduce_module = importlib.import_module("stridelint.reference.reduce")
    reduce_module.AUTOTUNE = False
    x, mask, scale = bench.make_inputs(torch, SHAPE, torch.float16, CASES[case], "cuda")
    out = torch.empty(SHAPE[1:], dtype=x.dtype, device="cuda")
    for _ in range(LAUNCHES):
        reduce_module.reduce(x, 0, mask, scale, out=out)
    print(reduce_module.describe_plan(reduce_module.plan_for(x, 0, mask, scale)))
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "masked"))
