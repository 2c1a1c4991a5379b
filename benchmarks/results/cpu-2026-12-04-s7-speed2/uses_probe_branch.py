"""The CPU of uses._exposed (this branch), -j 1, one process. Usage: PYTHONPATH=. python uses_probe_branch.py PATH..."""
import sys, time
from stridelint.analysis import uses
from stridelint import cli
spent = [0.0, 0]
orig = uses._exposed
def wrap(facts, owner):
    t = time.process_time()
    try: return orig(facts, owner)
    finally: spent[0] += time.process_time() - t; spent[1] += 1
uses._exposed = wrap
try:
    cli.main(["check", "--isolated", "--exit-zero", "-q", "-j", "1", "--no-cache", *sys.argv[1:]], standalone_mode=False)
except SystemExit: pass
print(f"_exposed {spent[0]:.3f}s calls {spent[1]}")
