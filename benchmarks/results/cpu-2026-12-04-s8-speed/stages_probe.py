"""Per-stage CPU of lint_text over the small corpus, one process (-j 1 equivalent)."""
import sys, time, collections, atexit
from stridelint import engine
import libcst as cst
import stridelint.rules as R
T = collections.Counter(); N = collections.Counter()
def wrap(mod, name, key):
    f = getattr(mod, name)
    def w(*a, **k):
        t0 = time.process_time()
        try: return f(*a, **k)
        finally: T[key] += time.process_time() - t0; N[key] += 1
    setattr(mod, name, w)
wrap(engine, 'may_have_findings_text', '1 text screen')
wrap(engine, '_compiles', '2 symtable')
wrap(engine, '_python_tree', '3 ast tree')
wrap(engine, 'may_have_findings', '4 tree prefilter')
wrap(engine.screen, 'plan', '5 screen')
wrap(cst, 'parse_module', '6 libcst parse')
wrap(engine, '_lint_parsed', '7 libcst+analysis total')
wrap(engine, 'lint_text', '9 lint_text total')
from stridelint.analysis import positions as P
wrap(P._Units, '__init__', '8 positions units')
wrap(P.Positions, '_track', '8 positions track')
for rule in R.ALL_RULES:
    if hasattr(rule, 'check'): wrap(rule, 'check', 'r ' + rule.code)
def report():
    for k in sorted(T): print(f"{k:28s} {T[k]:6.3f} {N[k]:5d}", file=sys.stderr)
atexit.register(report)
from stridelint.cli import main
sys.argv = ['stridelint'] + sys.argv[1:]
t0 = time.process_time()
try: main()
finally: print('process total', time.process_time(), file=sys.stderr)
