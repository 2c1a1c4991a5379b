"""The CPU of uses.captured and uses._binds_global (main 8ccdf4b), -j 1, one process. Usage: PYTHONPATH=<main> python uses_probe_main.py PATH..."""
import sys, time, collections
from stridelint.analysis import uses
from stridelint import cli
calls = collections.Counter(); spent = collections.defaultdict(float)
for name in ("captured", "_binds_global"):
    orig = getattr(uses, name)
    def wrap(func, n, orig=orig, name=name):
        t = time.process_time()
        try: return orig(func, n)
        finally:
            spent[name] += time.process_time() - t; calls[(name, id(func), n)] += 1
    setattr(uses, name, wrap)
try:
    cli.main(["check", "--isolated", "--exit-zero", "-q", "-j", "1", "--no-cache", *sys.argv[1:]], standalone_mode=False)
except SystemExit: pass
for name in spent:
    c = [v for k, v in calls.items() if k[0] == name]
    print(name, f"{spent[name]:.3f}s", "calls", sum(c), "distinct (func,name)", len(c), "funcs", len({k[1] for k in calls if k[0]==name}))
