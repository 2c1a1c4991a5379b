"""The screen (stage 2) keeps every function a finding can involve, and blanks the others
without moving a character. That the staged engine's findings equal the full path's is
proven in test_staged_engine.py; here each cross-function rule is pinned on its own."""

from __future__ import annotations

import ast
import textwrap

from stridelint import screen


def kept(source: str, **settings) -> set[str] | None:
    """The names of the functions the screen keeps (None: no finding possible)."""
    source = textwrap.dedent(source)
    plan = screen.plan(ast.parse(source), source, **settings)
    if plan.text is None:
        return None
    assert len(plan.text) == len(source)
    assert plan.text.count("\n") == source.count("\n")
    tree = ast.parse(plan.text)  # the reduction still parses
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_a_function_without_a_trigger_is_blanked():
    names = kept(
        """
        def seed(x):
            return x.expand(4, -1).sum()

        def unrelated(y):
            return y + 1
        """
    )
    assert names == {"seed"}


def test_no_trigger_anywhere_means_no_finding():
    assert kept("def f(y):\n    return y + 1\n") is None


def test_callees_of_a_seed_are_kept_transitively():
    names = kept(
        """
        def seed(x):
            return helper(x.expand(4, -1))

        def helper(t):
            return deeper(t)

        def deeper(t):
            return t.sum()

        def other(t):
            return t
        """
    )
    assert names == {"seed", "helper", "deeper"}


def test_a_caller_is_kept_only_on_a_path_from_a_wrapper_root():
    source = """
        import triton

        @triton.jit
        def kernel(X):
            pass

        def launcher(x):
            kernel[(1,)](x)
            return reduce_it(x)

        def plain_caller(x):
            return reduce_it(x)

        def reduce_it(mask):
            '''mask: may be broadcast.'''
            return mask.sum()
        """
    assert kept(source) == {"kernel", "launcher", "reduce_it"}
    assert kept(source, scope="all") == {"reduce_it"}


def test_a_hook_named_by_a_kernel_in_a_module_table_is_kept():
    names = kept(
        """
        import triton

        def hook(grid, kernel, args):
            return {"n": count(args["Mask"])}

        def count(m):
            return m.sum()

        @triton.jit(launch_metadata=hook)
        def _rows(X, Mask):
            pass

        KERNELS = {"rows": _rows}

        def run(x, mask):
            '''mask: may be broadcast.'''
            KERNELS["rows"][(1,)](x, mask)

        def unrelated(y):
            return y
        """
    )
    assert names == {"hook", "count", "_rows", "run"}


def test_a_function_holding_an_import_that_kept_code_reads_is_kept():
    names = kept(
        """
        def setup():
            import torch as t

        def seed(x):
            return t.broadcast_to(x, (4, 8)).sum()

        def unrelated():
            import math
        """
    )
    assert names == {"setup", "seed"}


def test_methods_are_blanked_to_a_placeholder_that_keeps_the_class_valid():
    source = textwrap.dedent(
        """
        class Model:
            @property
            def size(self):
                return 4

            def forward(self, x):
                return x.expand(4, -1).sum()
        """
    )
    plan = screen.plan(ast.parse(source), source)
    assert plan.text is not None and not plan.whole
    assert "def size" not in plan.text and "    0" in plan.text
    assert plan.text.index("def forward") == source.index("def forward")


def test_a_module_level_function_named_like_a_kept_method_is_kept():
    """A call `step(...)` reaches every function named `step` in the analysis (by name)."""
    source = textwrap.dedent(
        """
        class A:
            def step(self, x):
                return x.expand(4, -1).sum()

        def step(x):
            return x

        def other(x):
            return x
        """
    )
    plan = screen.plan(ast.parse(source), source)
    assert plan.text is not None
    assert plan.text.count("def step") == 2 and "def other" not in plan.text


def test_a_name_bound_to_a_source_by_an_import_is_a_seed_whatever_its_spelling():
    names = kept(
        """
        from torch import broadcast_to as bt

        def seed(x):
            return bt(x, (4, 8)).sum()

        def other(x):
            return x
        """
    )
    assert names == {"seed"}


def test_a_name_that_only_spells_a_source_word_is_no_seed():
    source = """
        from fla.ops import expand_h0

        def not_a_seed(x, expand_ratio):
            x_expanded = expand_h0(x)
            return x_expanded.sum()
        """
    assert kept(source) is None


def test_only_a_function_docstring_saying_broadcast_is_a_seed():
    """Evidence reads strings only as docstrings: an error message, a class docstring or a
    string value saying "broadcast" starts nothing; a docstring does, a nested function's
    too (it is analysed with its unit)."""
    names = kept(
        '''
        class Shapes:
            """Shapes that broadcast."""

            def check(self, a, b):
                raise ValueError(f"cannot broadcast {a} with {b}")

        def documented(mask):
            """mask: may be broadcast."""
            return mask.sum()

        def outer(x):
            def inner(mask):
                """`mask` may be BROADCAST."""
                return mask.sum()
            return inner(x)

        def message(x):
            return "broadcast" if x else "dense"
        '''
    )
    assert names == {"documented", "outer", "inner"}


def test_an_attribute_is_a_seed_only_when_named_exactly_as_a_source():
    """The analysis matches source methods and functions by their exact names."""
    names = kept(
        """
        import torch
        import triton.language as tl

        def triton_helper(x):
            return tl.expand_dims(x, 0).sum()

        def expanded(x):
            return x.expanded_shape

        def seed(x):
            return torch.broadcast_to(x, (4, 8)).sum()
        """
    )
    assert names == {"seed"}
    assert kept("def f(x):\n    return tl.expand_dims(x, 0).sum()\n") is None


def test_an_annotated_assignment_with_a_broadcast_dim_is_a_seed():
    names = kept(
        """
        def seed(x):
            mask: "Bool[Tensor, '#b n']" = load(x)
            return mask.float().sum()

        def other(x):
            y: "Float[Tensor, 'b n']" = load(x)
            return y.sum()
        """
    )
    assert names == {"seed"}


def test_a_caller_of_a_function_that_makes_a_broadcast_is_kept():
    """The callee may return its expand (module.py's return summaries): the caller is kept,
    whatever the scope; a caller of a function that only reads a broadcast is not."""
    source = """
        def head_mask(keep, heads):
            return keep[:, None, :].expand(-1, heads, -1)

        def bias(keep, heads):
            return (~head_mask(keep, heads)).float()

        def reduce_it(mask):
            '''mask: may be broadcast.'''
            return mask.sum()

        def plain_caller(x):
            return reduce_it(x)
        """
    assert kept(source, scope="all") == {"head_mask", "bias", "reduce_it"}


def test_a_caller_of_a_function_that_calls_an_imported_source_is_kept():
    """The import that binds the source may be the module's own (top-level), not the
    function's: `from torch import broadcast_to` makes `make` a maker all the same."""
    source = """
        from torch import broadcast_to

        def make(x, n):
            return broadcast_to(x, (n, 4))

        def use(x, n):
            return make(x, n).float()

        def other(y):
            return y + 1
        """
    assert kept(source, scope="all") == {"make", "use"}


# ---- what the analysis never runs a flow over starts nothing ------------------------------


KERNEL_WITH_A_SOURCE = """
    import torch
    import triton
    import triton.language as tl

    @triton.autotune(configs=[], key=["N"])
    @triton.heuristics({"EVEN": lambda args: args["N"] % 2 == 0})
    @triton.jit
    def kernel(X, N):
        x = tl.load(X)
        tl.store(X, tl.broadcast_to(x, (4, 4)).expand(4, 4))

    def launch(x):
        kernel[(1,)](x, x.numel())

    def unrelated(y):
        return y
    """


def test_a_source_in_a_kernel_body_is_no_seed():
    """A kernel's body is device code: the analysis runs no flow over it (`is_device_code`),
    so its `broadcast_to`/`expand` start nothing; the lambda is its decorator's."""
    assert kept(KERNEL_WITH_A_SOURCE) is None


def test_a_kernel_body_counts_when_its_decorator_may_resolve_elsewhere():
    """Device code is what the analysis resolves through the imports: an undecorated name,
    a decorator outside the kernel table (`cute.jit`) or a root name bound by two imports
    leaves the body's seeds in."""
    unresolved = KERNEL_WITH_A_SOURCE.replace("    import triton\n", "")
    assert kept(unresolved) == {"kernel", "launch"}
    other = KERNEL_WITH_A_SOURCE.replace("triton.autotune", "cute.jit").replace(
        "triton.heuristics", "cute.jit").replace("@triton.jit", "@cute.jit")  # fmt: skip
    assert kept(other) == {"kernel", "launch"}
    twice = KERNEL_WITH_A_SOURCE + "\n    def elsewhere():\n        import my_triton as triton\n"
    assert kept(twice) == {"kernel", "launch", "elsewhere"}


def test_a_kernel_with_a_nested_scope_keeps_its_seeds():
    """A nested function or a lambda in the body has a flow of its own."""
    nested = KERNEL_WITH_A_SOURCE.replace(
        "        x = tl.load(X)\n", "        x = tl.load(X)\n        f = lambda t: t\n"
    )
    assert kept(nested) == {"kernel", "launch"}


def test_a_source_in_a_kernel_decorator_stays_a_seed():
    source = KERNEL_WITH_A_SOURCE.replace(
        '{"EVEN": lambda args: args["N"] % 2 == 0}',
        '{"EVEN": lambda args: args["N"].expand(2).sum() == 0}',
    )
    assert kept(source) == {"kernel", "launch"}


def test_a_docstring_is_a_seed_only_where_the_analysis_reads_a_name_in_it():
    """Evidence reads a docstring's parameter entries and the lines quoting a parameter; a
    documented name that is no parameter counts only for a hook's `args`."""
    names = kept(
        '''
        def prose(x, y):
            """Reduce the partials and broadcast one shared scalar."""
            return x.sum()

        def in_a_name(x):
            """Backward dx via _token_broadcast_backward."""
            return x.sum()

        def entry(mask, x):
            """Sum.

            Args:
                mask: a mask that may be broadcast over rows.
            """
            return mask.sum()

        def quoted(mask):
            """The `mask` may be broadcast."""
            return mask.sum()

        def other_name(a, b, c):
            """``Helper`` is unused (the broadcast is implicit)."""
            return a.sum()
        '''
    )
    assert names == {"entry", "quoted"}


def test_a_docstring_documenting_a_hooks_args_is_a_seed_in_a_hook():
    source = '''
        import triton

        def metadata(grid, kernel, meta):
            """``Mask`` may be a broadcast view."""
            return {"n": meta["Mask"].sum()}

        @triton.jit(launch_metadata=metadata)
        def _rows(X, Mask):
            pass

        def run(x, mask):
            _rows[(1,)](x, mask)
        '''
    assert kept(source) == {"metadata", "_rows", "run"}
    assert kept(source.replace("launch_metadata=metadata", "debug=True")) is None
    signature = source.replace("launch_metadata=metadata", "debug=True").replace(
        "metadata(grid, kernel, meta)", "metadata(grid, kernel, args)"
    )
    assert kept(signature) == {"metadata"}


def test_an_attribute_source_through_an_import_is_resolved_as_the_analysis_does():
    """`tl.broadcast_to(...)` is `triton.language.broadcast_to`, a function and no source
    (the analysis resolves a call's dotted name through the imports before reading it as
    a method); `torch.broadcast_to` is one, and so is `x.expand` or a relative import's
    `utils.expand` (no qualified name: a method)."""
    names = kept(
        """
        import torch
        import triton.language as tl
        from . import layout_utils

        def device_like(x):
            return tl.broadcast_to(x, (4, 4)).sum()

        def torch_function(x):
            return torch.broadcast_to(x, (4, 4)).sum()

        def relative(x):
            return layout_utils.expand(x, dim=0).sum()

        def method(x):
            return x.expand(4, 4).sum()
        """
    )
    assert names == {"torch_function", "relative", "method"}
    twice = "import torch as tl\nimport triton.language as tl\n\ndef f(x):\n    return tl.broadcast_to(x, (4,))\n"
    assert kept(twice) == {"f"}  # either import may be the one the table keeps


def test_a_method_is_a_source_only_when_named_as_a_broadcast_method():
    """A method call is read by its name (dataflow.py `_method`): `.expand`, `.expand_as`,
    `.broadcast_to`. The last names of the source functions (`einops.repeat`,
    `torch.meshgrid`) start a broadcast only as those functions: `x.repeat(...)` is a
    tensor's copy, `np.meshgrid` and `f(x).repeat` are no source."""
    names = kept(
        """
        import einops
        import numpy as np
        from einops import repeat

        def tensor_repeat(prompt_embeds, n):
            return prompt_embeds.repeat(1, n, 1).float()

        def call_result_repeat(x, n):
            return x.view(-1).repeat(n).float()

        def numpy_grid(h, w):
            return np.meshgrid(h, w)

        def einops_repeat(x, n):
            return einops.repeat(x, "h w -> n h w", n=n).float()

        def imported_repeat(x, n):
            return repeat(x, "h w -> n h w", n=n).float()

        def chained_method(self, x):
            return self.bias.expand_as(x).float()
        """
    )
    assert names == {"einops_repeat", "imported_repeat", "chained_method"}


def test_an_expand_that_keeps_every_size_is_no_seed():
    """`expand` to the literals 1 and -1 grows no dim (dataflow.py `_keeps_every_size`):
    the `position_ids` buffer of most model `__init__`s starts nothing. Any other size,
    a star or a keyword may grow one."""
    names = kept(
        """
        import torch

        def buffer(self, n):
            self.register_buffer("position_ids", torch.arange(n).expand((1, -1)), persistent=False)

        def unit_sizes(x):
            return x.expand(1, -1, -1).float()

        def grows(x, n):
            return x.expand(1, n).float()

        def starred(x, shape):
            return x.expand(*shape).float()

        def negated_twice(x):
            return x.expand(1, --1).float()

        def a_flag(x):
            return x.expand(True, -1).float()
        """
    )
    assert names == {"grows", "starred", "negated_twice", "a_flag"}


def test_a_strided_allocation_is_a_seed_only_with_a_literal_zero_stride():
    """`torch.as_strided`/`torch.empty_strided` make a broadcast when the strides they are
    given (a tuple or list) hold the literal 0 (dataflow.py `_has_literal_zero_stride`)."""
    names = kept(
        """
        import torch

        def spelled_strides(x, n):
            return torch.as_strided(x, (n, 4), (4, 1)).float()

        def computed_strides(shape, strides):
            return torch.empty_strided(shape, strides).float()

        def zero_stride(x, n):
            return torch.as_strided(x, (n, 4), (0, 1)).float()

        def zero_by_keyword(n):
            return torch.empty_strided((n, 4), stride=[0, 1]).float()

        def zero_in_a_size(x):
            return torch.as_strided(x, (0, 4), (4, 1)).float()

        def false_is_no_zero(x, n):
            return torch.as_strided(x, (n, 4), (False, 1)).float()
        """
    )
    assert names == {"zero_stride", "zero_by_keyword"}  # a size of 0 is an empty tensor


def test_reference_implementations_that_keep_their_facts_start_nothing_when_hidden():
    """With `reference_seeds=False` (their findings hidden), the seeds of functions named as
    reference implementations start nothing, as a group that calls only its own members;
    one that calls another function, or that another function calls, stays a seed."""
    source = """
        def naive_attn(q, k):
            return naive_scores(q, k.expand(4, 8)).sum()

        def naive_scores(q, k):
            return q * k

        def ref_with_helper(x):
            return helper(x.expand(4, 8))

        def helper(t):
            return t.sum()

        def ref_called(x):
            return x.expand(4, 8)

        def user(x):
            return ref_called(x).sum()
        """
    everything = {"naive_attn", "naive_scores", "ref_with_helper", "helper", "ref_called", "user"}
    assert kept(source) == everything
    assert kept(source, reference_seeds=False) == {"ref_with_helper", "helper", "ref_called", "user"}
    only_group = source.split("def ref_with_helper")[0]
    assert kept(only_group, reference_seeds=False) is None


def test_facts_follow_calls_into_methods_and_submodules_with_their_constructor():
    """`self._diff(x)` gives back the method's expand; a block of `self.blocks` receives it:
    both methods, the block class's forward and the constructor that says what the blocks
    are (analysis/classes.py) are kept; a method no call reaches is not."""
    names = kept(
        """
        from torch import nn

        class Layer(nn.Module):
            def forward(self, x, diff):
                return x * (diff >= 0)

            def extra_repr(self):
                return "layer"

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([Layer() for _ in range(2)])

            def _diff(self, x):
                return x[:, None].expand(-1, 4, -1)

            def forward(self, x):
                for block in self.blocks:
                    x = block(x, self._diff(x))
                return x
        """
    )
    assert names == {"forward", "__init__", "_diff"}
    assert "extra_repr" not in names
