#!/bin/bash
# full path vs staged (branch) on more libraries of the corpus
cd ~/.cache/stridelint-corpus/src
for d in diffusers-0.42.1 unsloth-2026.10.9 lmdeploy-0.18.0 quack_kernels-0.6.5 xformers-0.0.35 torchao-0.18.0 triton_kernels-0.1.0 bitsandbytes-0.50.2 torchtune-0.6.1 megatron_core-0.16.1; do
  STRIDELINT_FULL_PATH=1 PYTHONPATH=/work/wt/speed /usr/bin/time -f "$d full %U+%S %e %M" /work/venv/bin/python -m stridelint check --isolated --no-cache --exit-zero -j 2 --output-format json $d > /tmp/s8/cmp/$d.full.json 2>> /tmp/s8/cmp/more.time
  PYTHONPATH=/work/wt/speed /usr/bin/time -f "$d staged %U+%S %e %M" /work/venv/bin/python -m stridelint check --isolated --no-cache --exit-zero -j 2 --output-format json $d > /tmp/s8/cmp/$d.branch.json 2>> /tmp/s8/cmp/more.time
  python3 -c "
import json
a=json.load(open('/tmp/s8/cmp/$d.full.json')); b=json.load(open('/tmp/s8/cmp/$d.branch.json'))
print('$d', 'findings full', len(a), 'staged', len(b), 'equal', a==b, 'files with findings', len({f['filename'] for f in a}))" >> /tmp/s8/cmp/compare_more.txt
done
echo done >> /tmp/s8/cmp/compare_more.txt
