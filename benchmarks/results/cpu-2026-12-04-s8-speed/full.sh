#!/bin/bash
# full path JSON for the large sample (independent of the screen)
cd ~/.cache/stridelint-corpus/src
for t in "sglang sglang-0.5.23" "vllm vllm-0.33.0" "tfmodels transformers-5.23.0/transformers/models"; do
  set -- $t
  STRIDELINT_FULL_PATH=1 PYTHONPATH=/work/wt/speed /usr/bin/time -f "$1 full %U+%S %e %M" /work/venv/bin/python -m stridelint check --isolated --no-cache --exit-zero -j 2 --output-format json $2 > /tmp/s8/cmp/$1.full.json 2>> /tmp/s8/cmp/full.time
done
echo done >> /tmp/s8/cmp/full.time
