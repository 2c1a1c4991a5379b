#!/bin/bash
# Alternated -j 1 --no-cache runs: main 4e8a39b (git archive) and the branch, 3 rounds, plus Ruff
cd /tmp/small
out=$1
for round in 1 2 3; do
  for pair in "main /tmp/s8/main" "branch /work/wt/speed"; do
    set -- $pair
    echo -n "round $round $1 " >> $out
    PYTHONPATH=$2 /usr/bin/time -a -o $out -f "%U+%S CPU s, %e s wall, %M KB" /work/venv/bin/python -m stridelint check --isolated --no-cache --exit-zero -q -j 1 liger_kernel fla_core > /dev/null
  done
  echo -n "round $round ruff " >> $out
  /usr/bin/time -a -o $out -f "%U+%S CPU s, %e s wall, %M KB" /work/venv/bin/ruff check --no-cache --isolated --exit-zero -q liger_kernel fla_core > /dev/null
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
done
