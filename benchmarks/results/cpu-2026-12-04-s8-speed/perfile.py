"""Per file reaching LibCST: kept units/chars, parse and analysis CPU, findings."""
import sys, time, ast
from pathlib import Path
from stridelint import engine, screen
from stridelint.config import load_config
from stridelint.source import decode
import libcst as cst
root = Path(sys.argv[1]); subs = sys.argv[2:]
config = load_config(root, isolated=True)
rows = []
orig_plan = screen.plan
info = {}
def plan(*a, **k):
    p = orig_plan(*a, **k); info['plan'] = p; return p
screen.plan = plan
orig_parse = cst.parse_module
def parse(text, *a, **k):
    t = time.process_time(); m = orig_parse(text, *a, **k); info.setdefault('parse', []).append((time.process_time()-t, len(text.replace(' ','').replace('\n',''))))
    return m
cst.parse_module = parse
orig_lp = engine._lint_parsed
def lp(*a, **k):
    t = time.process_time(); r = orig_lp(*a, **k); info.setdefault('lp', []).append(time.process_time()-t); return r
engine._lint_parsed = lp
for sub in subs:
  for f in sorted((root/sub).rglob('*.py')):
    info.clear()
    src = decode(f.read_bytes())
    r = engine.lint_text(src, config, f)
    if 'lp' in info:
        p = info.get('plan')
        rows.append((sum(info['lp']), sum(t for t,_ in info.get('parse', [])), sum(c for _,c in info.get('parse', [])), len(info['lp']), p.kept if p else -1, p.units if p else -1, p.whole if p else None, len(r.findings), str(f.relative_to(root))))
rows.sort(reverse=True)
tot = [0,0]
for r in rows:
    tot[0]+=r[0]; tot[1]+=r[1]
    print(f"{r[0]:.3f} parse {r[1]:.3f} chars {r[2]:7d} passes {r[3]} kept {r[4]}/{r[5]} whole {r[6]} findings {r[7]} {r[8]}")
print("total", tot, len(rows))
