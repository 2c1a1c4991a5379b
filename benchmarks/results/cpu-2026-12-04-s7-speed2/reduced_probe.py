"""What the reduced texts of the screen keep: module-level code vs kept units, in characters (non-blank)."""
import sys, ast, collections
from pathlib import Path
from stridelint import engine, screen
from stridelint.config import Config
from stridelint.prefilter import may_have_findings, may_have_findings_text
from stridelint.source import decode
tot = collections.Counter()
kinds = collections.Counter()
for root in sys.argv[1:]:
    for path in sorted(Path(root).rglob("*.py")):
        text = decode(path.read_bytes()).text
        if not may_have_findings_text(text, ()): continue
        try: tree = ast.parse(text)
        except SyntaxError: continue
        if not may_have_findings(tree, ()): continue
        p = screen.plan(tree, text, ())
        if p.text is None: continue
        red = p.text
        lines = red.splitlines()
        tot["files"] += 1; tot["whole" if p.whole else "reduced"] += 1
        tot["chars"] += sum(len(l.strip()) for l in lines); tot["chars in whole files" if p.whole else "chars in reduced files"] += sum(len(l.strip()) for l in lines); tot["units kept"] += p.kept; tot["units"] += p.units
        red_tree = ast.parse(red)
        for st in red_tree.body:
            seg = lines[st.lineno-1:st.end_lineno]
            n = sum(len(l.strip()) for l in seg)
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                tot["unit chars"] += n
            elif isinstance(st, ast.ClassDef):
                for inner in st.body:
                    s2 = lines[inner.lineno-1:inner.end_lineno]; m = sum(len(l.strip()) for l in s2)
                    if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)): tot["unit chars"] += m
                    else: tot["class-level chars"] += m; kinds["class:"+type(inner).__name__] += m
            else:
                tot["module-level chars"] += n; kinds[type(st).__name__] += n
print(dict(tot)); print(kinds.most_common(12))
