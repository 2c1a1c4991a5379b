"""Where a cold run's cache CPU goes, -j 1, one process: each ResultCache method (and the
engine's index bookkeeping) timed with process_time around the CLI's own run.
Usage: PYTHONPATH=. python cache_probe.py CACHE_DIR PATH..."""
import sys, time, collections
from stridelint import cache as c, engine, cli

spent = collections.defaultdict(float)
calls = collections.Counter()

def timed(owner, name, label):
    original = getattr(owner, name)
    def wrapper(*a, **k):
        t = time.process_time()
        try:
            return original(*a, **k)
        finally:
            spent[label] += time.process_time() - t
            calls[label] += 1
    setattr(owner, name, wrapper)

for name in ("key", "load", "store", "file_index", "store_file_index", "_write"):
    if hasattr(c.ResultCache, name):
        timed(c.ResultCache, name, f"ResultCache.{name}")
for name in ("_remember", "_stamp", "check_bytes"):
    if hasattr(engine, name):
        timed(engine, name, f"engine.{name}")
start = time.process_time()
try:
    cli.main(["check", "--isolated", "--exit-zero", "-q", "-j", "1", "--cache-dir", sys.argv[1], *sys.argv[2:]], standalone_mode=False)
except SystemExit:
    pass
total = time.process_time() - start
for label in sorted(spent):
    print(f"{label:32s} {spent[label]:7.3f} s  {calls[label]:5d} calls")
print(f"{'all (in process)':32s} {total:7.3f} s")
