"""The syntax check of the files the text screen rules out: what the interpreter offers, CPU s."""
import ast, gc, symtable, sys, time, warnings
from pathlib import Path
from stridelint.prefilter import may_have_findings_text
from stridelint.source import decode
root = Path(sys.argv[1])
texts = []
for sub in sys.argv[2:]:
    for f in sorted((root / sub).rglob('*.py')):
        t = decode(f.read_bytes()).text
        if not may_have_findings_text(t):
            texts.append(t)
warnings.simplefilter('ignore')
def run(name, fn):
    best = []
    for _ in range(3):
        t0 = time.process_time()
        for t in texts: fn(t)
        best.append(time.process_time() - t0)
    print(f"{name:40s} {min(best):.3f} s  (runs {', '.join(f'{b:.3f}' for b in best)})")
print(len(texts), 'files', sum(t.count('\n') for t in texts), 'lines')
run('symtable.symtable', lambda t: symtable.symtable(t, '<s>', 'exec'))
def paused(fn):
    def w(t):
        gc.disable()
        try: fn(t)
        finally: gc.enable()
    return w
run('compile PyCF_ONLY_AST (gc paused)', paused(lambda t: compile(t, '<s>', 'exec', ast.PyCF_ONLY_AST)))
run('compile to bytecode', lambda t: compile(t, '<s>', 'exec', dont_inherit=True))
run('symtable on bytes', lambda t: symtable.symtable(t.encode(), '<s>', 'exec'))
