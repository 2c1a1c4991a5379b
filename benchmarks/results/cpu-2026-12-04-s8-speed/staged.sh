#!/bin/bash
# staged path JSON of a tree ($1) for the large sample; compare with the full path's
cd ~/.cache/stridelint-corpus/src
tag=$1; shift
for t in "sglang sglang-0.5.23" "vllm vllm-0.33.0" "tfmodels transformers-5.23.0/transformers/models"; do
  set -- $t
  PYTHONPATH=$TREE /usr/bin/time -f "$1 staged $tag %U+%S %e %M" /work/venv/bin/python -m stridelint check --isolated --no-cache --exit-zero -j 2 --output-format json $2 > /tmp/s8/cmp/$1.$tag.json 2>> /tmp/s8/cmp/staged.time
  python3 -c "
import json,sys
a=json.load(open('/tmp/s8/cmp/$1.full.json')); b=json.load(open('/tmp/s8/cmp/$1.$tag.json'))
print('$1', '$tag', 'findings full', len(a), 'staged', len(b), 'equal', a==b, 'files with findings', len({f['filename'] for f in a}))" >> /tmp/s8/cmp/compare.txt
done
