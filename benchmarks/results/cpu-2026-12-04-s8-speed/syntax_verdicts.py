import symtable, libcst as cst, sys
cases = {
 'formfeed': "def f():\n\x0c    return 1\n",
 'long_chain': "x = " + "+".join(["a"]*3000) + "\n",
 'deep_parens': "x = " + "("*150 + "1" + ")"*150 + "\n",
 'nested_fstring': "x = f'{a!r:>{w}}'\n",
 'walrus_in_comp': "[y for x in a if (y := x)]\n",
 'backslash_eof': "x = 1 \\\n",
 'tab_mix': "if 1:\n\tx = 1\n        y = 2\n",
 'star_except': "try:\n    pass\nexcept* ValueError:\n    pass\n",
 'global_after_use': "def f():\n    x = 1\n    global x\n",
 'return_outside': "return 1\n",
 'await_outside': "await x\n",
 'yield_outside': "yield 1\n",
 'nonlocal_module': "nonlocal x\n",
 'lambda_default_star': "f = lambda *, a: a\n",
 'empty_file_ff': "\x0c\n",
 'print_stmt': "print 'x'\n",
 'unicode_ident': "ℌ = 1\n",
 'decorator_expr': "@(lambda f: f)\ndef g(): pass\n",
 'dict_unpack_call': "f(**a, *b)\n",
 'semicolon_end': "x = 1;\n",
 'continue_outside': "continue\n",
}
for name, text in cases.items():
    try:
        symtable.symtable(text, "<s>", "exec"); py = "ok"
    except Exception as e: py = type(e).__name__
    try:
        cst.parse_module(text); lc = "ok"
    except RecursionError: lc = "RecursionError"
    except Exception as e: lc = type(e).__name__
    print(f"{name:20s} symtable={py:15s} libcst={lc}")
