"""The generated programs (programs.py) moved out of function bodies, where the fixes must
be just as sound: in a lambda the function makes and calls (`return (lambda: EXPR)()`: the
lambda closes over the function's locals), and as module-level code, a module of its own per
program, its parameters bound as globals before the module runs (`result = EXPR`, or
`result = (lambda: EXPR)()` over the module's names).

`lambda_form` gives a module `harness.check_module` runs like any other; `check_module_level`
runs each program's module before and after the safe fixes, on the same argument recipes, and
compares what harness.difference compares: the result, the exception type, the arguments
afterwards and the `kept_*` globals.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass

from tests.fix_soundness.harness import Difference, Tally, difference, safely_fixed
from tests.fix_soundness.programs import GeneratedModule, Program, materialize

_HOOK_PARAMETERS = ["grid", "kernel", "args"]


def lambda_form(module: GeneratedModule) -> GeneratedModule:
    """Each function's one-line final `return EXPR` becomes `return (lambda: EXPR)()`."""
    lines = module.source.split("\n")
    for func in _functions(module.source):
        last = func.body[-1]
        one_line = last.lineno == last.end_lineno
        if isinstance(last, ast.Return) and last.value is not None and one_line:
            line = lines[last.lineno - 1]
            indent = line[: len(line) - len(line.lstrip())]
            expression = line.strip().removeprefix("return ")
            lines[last.lineno - 1] = f"{indent}return (lambda: ({expression}))()"
    return GeneratedModule(module.seed, "\n".join(lines), module.programs)


@dataclass(frozen=True)
class ModuleProgram:
    """One program as module-level code: its source, and the globals its parameters become."""

    program: Program
    parameters: tuple[str, ...]
    source: str


def module_level_forms(module: GeneratedModule, *, in_lambda: bool) -> list[ModuleProgram]:
    """The programs whose body can run at top level: not hooks, one `return` at the end."""
    header = module.source[: module.source.index("\ndef ")] + "\n"
    lines = module.source.split("\n")
    programs = {p.name: p for p in module.programs}
    forms = []
    for func in _functions(module.source):
        parameters = tuple(a.arg for a in func.args.args)
        program = programs.get(func.name)
        if program is None or list(parameters) == _HOOK_PARAMETERS:
            continue
        body = func.body[1:] if _is_docstring(func.body[0]) else func.body
        last = body[-1] if body else None
        if not isinstance(last, ast.Return) or last.value is None or _returns_early(body[:-1]):
            continue
        if in_lambda and last.lineno != last.end_lineno:
            continue
        text = [line[4:] for line in lines[body[0].lineno - 1 : last.end_lineno]]
        final = last.lineno - body[0].lineno
        expression = text[final].removeprefix("return ")
        value = f"(lambda: ({expression}))()" if in_lambda else expression
        text[final] = f"result = {value}"
        forms.append(ModuleProgram(program, parameters, header + "\n" + "\n".join(text) + "\n"))
    return forms


def check_module_level(seed: int, forms: list[ModuleProgram]) -> Tally:
    tally = Tally(modules=len(forms), programs=len(forms))
    for form in forms:
        fixed, errors = safely_fixed(form.source)
        if errors:
            tally.errors.append(f"seed {seed} {form.program.name}: {errors}")
            continue
        try:
            original_code = compile(form.source, f"<module {form.program.name}>", "exec")
            fixed_code = compile(fixed, f"<fixed {form.program.name}>", "exec")
        except SyntaxError as error:
            tally.errors.append(f"seed {seed} {form.program.name}: does not compile: {error}")
            continue
        if fixed != form.source:
            tally.rewritten += 1
        for index, recipe in enumerate(form.program.calls):
            tally.calls += 1
            before = _run(original_code, form.parameters, recipe)
            after = _run(fixed_code, form.parameters, recipe)
            if before[1] is not None:
                tally.raised += 1
            what = _compare(before, after)
            if what is not None:
                tally.differences.append(Difference(
                    seed, form.program.name, index, what, form.source, fixed, repr(recipe)
                ))  # fmt: skip
                break
    return tally


def _compare(before, after) -> str | None:
    (result, error, arguments, kept), (result2, error2, arguments2, kept2) = before, after
    if error is not error2:
        return f"the original raised {error}, the fix {error2}"
    return (
        (difference(result, result2, "result") if error is None else None)
        or difference(arguments, arguments2, "arguments after the module ran")
        or difference(kept, kept2, "globals after the module ran")
    )


def _run(code, parameters: tuple[str, ...], recipe: tuple):
    arguments = materialize(recipe)
    namespace = {"__name__": "generated_module_level", **dict(zip(parameters, arguments))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(code, namespace)  # noqa: S102 - generated code
            error = None
        except Exception as raised:  # noqa: BLE001 - an exception is an outcome to compare
            error = type(raised)
    kept = {k: v for k, v in namespace.items() if k.startswith("kept_")}
    return namespace.get("result"), error, arguments, kept


def _functions(source: str) -> list[ast.FunctionDef]:
    return [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _returns_early(statements: list[ast.stmt]) -> bool:
    """A `return` before the last statement, outside nested functions and lambdas."""
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False
