"""How to run each golden case that has a fix: which top-level function(s) to call, a strategy
for their arguments, and, for float results of unsafe fixes, the magnitude the tolerance is
scaled by (see test_fixes_keep_values.py).

One `Spec` per case id ("SL101/launch_metadata_hook"); a case with a `.after.py` or
`.unsafe.py` must have a spec here, or be listed in `NOT_EXECUTABLE` with the reason.

Kernel launches (`k[grid](...)`) cannot run on a CPU-only machine outside Triton's
interpreter, so each spec names its module's kernels and the position of the output argument:
the test replaces every kernel with a stub that zero-fills that output (the wrapper's host
code, which the fixes rewrite, runs unchanged; the outputs are deterministic).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

import torch
from hypothesis import strategies as st

from tests.differential.strategies import (
    Draw,
    draw_dims,
    draw_expandable_rows,
    draw_leading_copies,
    draw_size,
    draw_tensor,
)

KERNEL = SimpleNamespace(name="k")  # what Triton passes a launch-metadata hook as `kernel`
GRID = (1, 1, 1)


@dataclass(frozen=True)
class Call:
    """One way to call a case's module: `function(*args)` for args drawn from `arguments`
    (`function` may be `Class.method`, given a stand-in for the instance as its first arg).

    `magnitude(*args)` is Σ|x| in float64 of the logical tensor the call reduces (or the
    analogous error scale for a product or a logsumexp, see its definition); it is needed only
    where an unsafe fix may round a float result differently. `reference(*args)` is the exact
    (float64) result, for reductions whose original can be far from exact (products, whose
    intermediate values overflow or go subnormal in fp16/bf16): see the test's docstring."""

    function: str
    arguments: st.SearchStrategy[tuple]
    magnitude: Callable[..., float] | None = None
    reference: Callable[..., torch.Tensor] | None = None


@dataclass(frozen=True)
class Spec:
    """The calls that exercise a case's fixed code (examples are spread over them)."""

    calls: tuple[Call, ...]
    kernels: dict[str, int] = field(default_factory=dict)  # kernel name -> output position
    helper_module: str | None = None  # the case's `helper-module`, registered before loading


# Cases with a fix that this module does not execute, each with the reason.
_HAND_WRITTEN = "proven by its own differential test in tests/differential_hoist_copy"
NOT_EXECUTABLE: dict[str, str] = {
    case: _HAND_WRITTEN
    for case in (
        "SL201/padding_mask_chain", "SL201/padding_bias_scaled",
        "SL201/rotary_angle_cast_for_strided_kernel", "SL201/rotary_cos_sin_of_expanded_angle",
        "SL201/where_with_scalars", "SL201/where_two_expanded_operands",
        "SL201/inverted_mask_returned", "SL201/functional_softplus_of_expanded",
        "SL301/contiguous_mask_with_strides",
        "SL301/contiguous_of_documented_param", "SL301/zeros_like_of_expanded_read_only",
    )
} | {
    f"SL101/{case}": "top-level code, no function to call: the module-level forms of"
    " tests/fix_soundness/test_outer_forms.py prove it"
    for case in (
        "module_level_script_count", "module_level_main_guard",
        "module_level_followed_name_is_unsafe",
    )
} | {
    f"SL101/{case}": "proven by tests/differential_hooks/test_launch_hook_fixes.py"
    for case in (
        "launch_specialized_kernel_attribute", "launch_kernel_in_variable_after_splats",
        "launch_helper_strides_keyword_flags", "launch_partial_of_kernel_table",
        "launch_cached_launcher_autotuned",
    )
}  # fmt: skip


# ---- magnitudes ----------------------------------------------------------------------------


def abs_sum(t: torch.Tensor) -> float:
    return float(t.double().abs().sum())


def lse_scale(t: torch.Tensor, dim: int) -> float:
    """Error scale of a logsumexp over `dim`: per reduced row, n (the relative error of a sum
    of n exponentials is at most ~n·eps, which is the absolute error of its log) plus twice
    |result| (rounding of `max + log(...)` and of the outer sum); summed over rows."""
    t = t.double()
    if t.numel() == 0:
        return 0.0
    rows = torch.logsumexp(t, dim=dim)
    return float((t.shape[dim] + 2 * rows.abs().nan_to_num(posinf=0.0, neginf=0.0)).sum())


def prod_scale(t: torch.Tensor) -> float:
    """Error scale of a product of n factors: n·Π|x| (each of the n - 1 roundings is relative),
    the analogue of Σ|x| for sums."""
    t = t.double()
    return float(t.numel() * t.abs().prod())


def prod_reference(p, trials):
    return torch.broadcast_to(p.double(), (trials, *p.shape)).prod()


def _expanded(t, copies):
    return t.expand(copies, -1)


# ---- argument strategies -------------------------------------------------------------------
# Each builds the whole argument tuple in one composite (see strategies.py on speed).


def arguments(build: Callable[[Draw], tuple]) -> st.SearchStrategy[tuple]:
    return st.composite(build)()


def rows(ndim: int, *extra: Callable[[Draw], Any], runtime_dim_first: bool = False):
    """(t, copies, *extra) for `t.expand(copies, -1, ...)` with `ndim` sizes; with
    `runtime_dim_first`, (t, extra, copies) for signatures like `f(mask, dim, copies)`."""

    def build(draw):
        t, copies = draw_expandable_rows(draw, ndim)
        drawn = tuple(e(draw) for e in extra)
        return (t, *drawn, copies) if runtime_dim_first else (t, copies, *drawn)

    return arguments(build)


def leading(*extra: Callable[[Draw], Any], max_dims: int = 3):
    """(t, copies, *extra) for `t.expand(copies, *t.shape)` and friends."""

    def build(draw):
        t, copies = draw_leading_copies(draw, max_dims)
        return (t, copies, *(e(draw) for e in extra))

    return arguments(build)


def one_tensor(min_dims: int, max_dims: int, wrap: Callable[[torch.Tensor], tuple], **kwargs):
    return arguments(lambda draw: wrap(draw_tensor(draw, min_dims, max_dims, **kwargs)))


def small_int(high: int = 10):
    return lambda draw: draw(_INTS[high])


_INTS = {high: st.integers(0, high) for high in (4, 10)}
_BOOLS = st.booleans()
_FLOATS = st.sampled_from([0.1, 1 / 3, -0.7, 2.5, 1.0, 0.0, 1e-3, 3.0])


def boolean(draw):
    return draw(_BOOLS)


def float_scalar(draw):
    return draw(_FLOATS)


def runtime_dims(ndim: int):
    return lambda draw: draw_dims(draw, ndim)


def _latents_timesteps_and_frames(draw):
    """(B, C, frames * per_frame) latents, (B, frames) timesteps, frames."""
    b, c, frames, per_frame = (max(1, draw_size(draw)) for _ in range(4))
    latents = draw_tensor(draw, shape=[b, c, frames * per_frame])
    return latents, draw_tensor(draw, shape=[b, frames]), frames


def same_shape_pair(draw):
    """(a, b, n): two broadcast tensors of one logical shape, each with its own stride-0 dims,
    for `a.expand(n, -1)` and `b.expand(n, -1)`."""
    a, n = draw_expandable_rows(draw, 2)
    return a, draw_tensor(draw, shape=list(a.shape)), n


def broadcastable_pair(draw):
    """(pred, target) that `torch.broadcast_tensors` accepts: the second's sizes are the
    first's or 1, sometimes with fewer dims; either may come first."""
    pred = draw_tensor(draw, 0, 3)
    shape = [n if draw(_INTS[4]) else 1 for n in pred.shape]
    if shape and draw(_BOOLS):
        shape = shape[draw(_INTS[4]) % (len(shape) + 1):]
    target = draw_tensor(draw, shape=shape)
    return (target, pred) if draw(_BOOLS) else (pred, target)


def broadcastable_triple(draw):
    """(pred, target, weight) for `torch.broadcast_tensors`: a broadcastable pair and a third
    tensor that may grow the dims both have size 1 on (drawn sizes there)."""
    pred, target = broadcastable_pair(draw)
    common = torch.broadcast_shapes(pred.shape, target.shape)
    shape = [None if n == 1 else (n if draw(_BOOLS) else 1) for n in common]
    return pred, target, draw_tensor(draw, shape=shape)


def hook_metadata_args(draw):
    """The PR hook's arguments: a 3-D possibly broadcast mask and a runtime DIM."""
    mask = draw_tensor(draw, shape=[None, None, None])
    x = torch.zeros(mask.shape, dtype=torch.float32)
    return GRID, KERNEL, {"X": x, "Mask": mask, "DIM": draw_dims(draw, 3)}


_DIMS_OF_3 = st.sampled_from(range(-3, 3))
_MOSTLY_TRUE = st.sampled_from((True, True, True, False))


def reference_hook_args(draw):
    """The reference kernel's launch arguments as its wrapper binds them: X, Y and Scale are
    only measured (shapes, element sizes), Mask is 3-D and possibly broadcast."""
    mask = draw_tensor(draw, shape=[None, None, None])
    dim = draw(_DIMS_OF_3)
    x = torch.zeros(mask.shape, dtype=torch.float16)
    y = torch.zeros([n for d, n in enumerate(mask.shape) if d != dim % 3], dtype=torch.float16)
    return GRID, KERNEL, {
        "X": x, "Y": y, "Mask": mask, "Scale": torch.zeros(mask.shape), "DIM": dim,
        "HAS_MASK": draw(_MOSTLY_TRUE), "HAS_SCALE": draw(_BOOLS),
    }  # fmt: skip


def scaled_matmul_args(draw):
    m, k, n = draw_size(draw), draw_size(draw), draw_size(draw)
    scale = draw_tensor(draw, 0, 3)
    return GRID, KERNEL, {"A": torch.zeros(m, k), "B": torch.zeros(k, n), "Scale": scale}


def gather_args(draw):
    mask = draw_tensor(draw, 0, 3)
    return GRID, KERNEL, {"Index": torch.zeros(mask.shape, dtype=torch.int64), "Mask": mask}


def mask_list_and_rows(draw):
    """(masks, rows): one to three masks of rank 0-2 (the first one is expanded)."""
    count = 1 + draw(_INTS[4]) % 3
    return [draw_tensor(draw, 0, 2) for _ in range(count)], draw_size(draw)


def mask_of_any_rank_and_rows(draw):
    """(mask, rows): a mask of rank 0-3, for code that expands only 1-D masks."""
    return draw_tensor(draw, 0, 3), draw_size(draw)


def two_masks_and_rows(draw):
    """(mask, other, rows) for code that expands one, then the other, to `rows` rows."""
    mask, copies = draw_expandable_rows(draw, 2)
    return mask, draw_tensor(draw, 0, 2), copies


def optional_mask_hook_args(draw):
    """A hook's arguments whose `args` may lack the `Mask` entry."""
    entries = {"Mask": draw_tensor(draw, 0, 3)} if draw(_BOOLS) else {}
    return GRID, KERNEL, entries


def registers_and_patches(draw):
    """A module holding (R, D) register tokens, (B, P, D) patches and a dtype to cast to."""
    width = draw_size(draw)
    registers = draw_tensor(draw, 2, 2, shape=(None, width))
    patches = draw_tensor(draw, 3, 3, shape=(None, None, width))
    dtype = draw(st.sampled_from((torch.float16, torch.float32, torch.int32)))
    return SimpleNamespace(registers=registers), patches, dtype


def weights_and_activations(attribute: str):
    """(a stand-in module holding (L, C) weights as `attribute`, (B, L, C) activations)."""

    def build(draw):
        width = draw_size(draw)
        weights = draw_tensor(draw, 2, 2, shape=(None, width))
        hidden = draw_tensor(draw, 3, 3, shape=(None, weights.shape[0], width))
        return SimpleNamespace(**{attribute: weights}), hidden

    return arguments(build)


DENSE = torch.zeros(2, 3)  # an operand the fixed code never reads (kernels are stubbed)


# ---- the specs -----------------------------------------------------------------------------

def _grouped_states(draw: Draw) -> tuple:
    """(b_states (B, G, S), a 0-d dt, num_heads = G * k) for the grouped-heads case."""
    groups, repeats = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    states = draw_tensor(draw, shape=[draw_size(draw), groups, draw_size(draw)])
    return states, draw_tensor(draw, 0, 0), groups * repeats


def _counts_and_routes(draw: Draw) -> tuple[torch.Tensor, torch.Tensor, int]:
    """(extra, slots) float counts, a valid slot -> expert map of the slots (a reversal), extra."""
    counts = draw_tensor(draw, shape=[None, None], dtypes=(torch.float32,))
    extra, slots = counts.shape
    return counts, torch.arange(slots).flip(0).to(torch.int32), extra


def _table_and_columns(draw: Draw) -> tuple[torch.Tensor, torch.Tensor, int]:
    """A (rows, cols) table, valid column indices to pick (a reversal), and rows."""
    table = draw_tensor(draw, shape=[None, None])
    rows, cols = table.shape
    return table, torch.arange(cols).flip(0), rows


def _scan_and_row(draw: Draw) -> tuple[torch.Tensor, torch.Tensor, int, int]:
    """(height, width) ranges, a (width,) azimuth vector, height, and a row in range."""
    ranges = draw_tensor(draw, shape=[1 + draw_size(draw), None], dtypes=(torch.float32,))
    height, width = ranges.shape
    azimuth = draw_tensor(draw, shape=[width], dtypes=(torch.float32,))
    return ranges, azimuth, height, draw(st.integers(0, height - 1))


def _gates_and_self_blocks(draw: Draw) -> tuple[torch.Tensor, torch.Tensor, int]:
    """(heads, rows, cols) gate scores, a (rows, cols) bool self-block mask, and heads."""
    self_blocks = draw_tensor(draw, shape=[None, None], dtypes=(torch.bool,))
    heads = draw_size(draw)
    gates = draw_tensor(draw, shape=[heads, *self_blocks.shape], dtypes=(torch.float32,))
    return gates, self_blocks, heads


def _row_pair_and_copies(draw: Draw) -> tuple[torch.Tensor, torch.Tensor, int, int]:
    """Two (m,) rows, the copies n and m, for `row.view(1, -1).expand(n, m)`."""
    row = draw_tensor(draw, shape=[None], dtypes=(torch.float32, torch.int64))
    col = draw_tensor(draw, shape=list(row.shape), dtypes=(torch.float32, torch.int64))
    return row, col, draw_size(draw), row.shape[0]


def _row_pair_and_table(draw: Draw) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two (m,) rows and an (n, m) table, for `row.unsqueeze(0).expand_as(table)`."""
    row_a, row_b, copies, width = _row_pair_and_copies(draw)
    return row_a, row_b, draw_tensor(draw, shape=[copies, width], dtypes=(row_a.dtype,))


def _scores_and_keep(draw: Draw) -> tuple[torch.Tensor, torch.Tensor]:
    """(batch, heads, keys) scores and a (batch, keys) bool mask."""
    scores = draw_tensor(draw, shape=[None, None, None], dtypes=(torch.float32,))
    batch, _, keys = scores.shape
    return scores, draw_tensor(draw, shape=[batch, keys], dtypes=(torch.bool,))


SPECS: dict[str, Spec] = {
    "SL301/contiguous_before_a_merging_reshape": Spec(
        (Call("grouped_to_heads", arguments(_grouped_states)),
         Call("grouped_read", arguments(_grouped_states)))
    ),  # fmt: skip
    "SL201/head_mask_copied_per_layer_is_low_severity": Spec(
        (Call("head_mask_per_layer", arguments(lambda draw: (
             draw_tensor(draw, shape=[None]), draw_size(draw),
             draw(st.sampled_from((torch.float16, torch.float32, torch.int32)))))),
         Call("token_weights_per_channel", arguments(lambda draw: (
             draw_tensor(draw, shape=[None]), draw_size(draw),
             draw(st.sampled_from((torch.float16, torch.float32, torch.int32)))))))
    ),  # fmt: skip
    "SL201/small_broadcasts_are_low_severity": Spec(
        (Call("rope_rows", arguments(lambda draw: (draw_tensor(draw, 2, 2),))),
         Call("per_sample_scale",
              arguments(lambda draw: (draw_tensor(draw, 0, 0), draw_size(draw)))),
         Call("many_copies", arguments(lambda draw: (draw_tensor(draw, 2, 2), draw_size(draw)))),
         Call("eight_copies", arguments(lambda draw: (draw_tensor(draw, 2, 2),))),
         Call("per_expert_scale", arguments(lambda draw: (SimpleNamespace(
             scale=draw_tensor(draw, 1, 2), num_local_experts=draw_size(draw)),))))
    ),  # fmt: skip
    "SL201/timesteps_copied_per_token_are_low_severity": Spec(
        (Call("per_token_timesteps", arguments(_latents_timesteps_and_frames)),
         Call("per_token_embedding", arguments(lambda draw: (
             draw_tensor(draw, 0, 2), draw_tensor(draw, 2, 2), draw_size(draw)))))
    ),  # fmt: skip
    "SL201/torch_max_of_two_tensors_is_elementwise": Spec(
        (Call("floor_at", rows(2, lambda draw: draw_tensor(draw, 0, 1), runtime_dim_first=True)),)
    ),
    "SL201/cast_used_as_a_scatter_index_is_output_sized": Spec(
        tuple(Call(name, arguments(lambda draw: (draw_tensor(draw, shape=[]), draw_tensor(draw, 0, 3))))
              for name in ("clamp_timesteps", "scaled_timesteps"))
        + (Call("routed_counts", arguments(_counts_and_routes)),)
    ),  # fmt: skip
    "SL201/reference_implementations_are_low_severity": Spec(
        tuple(Call(name, arguments(_scores_and_keep)) for name in ("naive_keep_scores", "keep_scores"))
    ),
    "SL301/copies_that_are_output_sized": Spec(
        (Call("scaled", arguments(lambda draw: (draw_tensor(draw, 1, 1, dtypes=(torch.float32,)),
                                                draw_size(draw)))),
         Call("picked", arguments(_table_and_columns)))
    ),  # fmt: skip
    "SL201/meshgrid_anchors_are_a_position_grid": Spec(
        (Call("anchors", arguments(lambda draw: (
            draw_size(draw), draw_size(draw), draw_size(draw), 0.5 + draw_size(draw)
        ))),
         Call("block_causal_mask", arguments(lambda draw: (draw_tensor(draw, 1, 1),))))
    ),  # fmt: skip
    "SL201/mask_gather_of_an_expand_is_dense": Spec(
        (Call("scan_to_points_by_row", arguments(_scan_and_row)),)
    ),
    "SL201/mixed_with_a_dense_tensor_then_summed": Spec(
        (Call("routed_blocks", arguments(_gates_and_self_blocks)),
         Call("self_block_count", arguments(lambda draw: _gates_and_self_blocks(draw)[1:])))
    ),  # fmt: skip
    "SL201/outer_and_of_a_mask_with_its_transpose": Spec(
        (Call("row_mask", arguments(lambda draw: (
            draw_tensor(draw, shape=[None, None], dtypes=(torch.bool,)), draw_size(draw)
        ))),)
    ),  # fmt: skip
    "SL201/expanded_as_one_table_along_different_dims": Spec(
        (Call("shared_row", arguments(lambda draw: _row_pair_and_table(draw))),)
    ),
    "SL201/outer_sum_of_views_is_the_output": Spec(
        (Call("shared_dim", arguments(_row_pair_and_copies)),)
    ),
    "SL201/rotary_casts_to_the_dtype_it_has": Spec(
        (Call("rotary_angles_half", arguments(lambda draw: (
            draw_tensor(draw, shape=[None, None], dtypes=(torch.float32,)),
            2 * draw_size(draw),
        ))),)
    ),  # fmt: skip
    "SL201/chained_unsqueezes_name_the_broadcast_dims": Spec((
        Call("attention_bias", arguments(lambda draw: (
            draw_tensor(draw, shape=[None, None], dtypes=(torch.bool,)), draw_size(draw),
            draw_size(draw)))),
    )),  # fmt: skip
    "SL201/position_grid_cast": Spec(
        (
            Call("frame_features", arguments(lambda draw: (draw_tensor(draw, 2, 2), draw_size(draw)))),
            Call("frame_positions", arguments(lambda draw: (draw_size(draw), draw_size(draw)))),
        )
    ),
    "SL201/register_tokens_joined": Spec(
        (Call("prepend_registers", arguments(registers_and_patches)),
         Call("scaled_registers", arguments(registers_and_patches)))
    ),  # fmt: skip
    "SL201/module_parameter_cast_to_its_activations_dtype_is_low_severity": Spec(
        (Call("NullPrompt.upcast", weights_and_activations("null_prompt")),
         Call("NullPrompt.table", weights_and_activations("sinusoids")))
    ),  # fmt: skip
    "SL101/alias_of_expanded": Spec((Call("busiest_row", rows(2)),)),
    "SL101/lambda_closes_over_broadcast_local": Spec((
        Call("row_stats", arguments(lambda draw: (draw_tensor(draw, 1, 1), draw_size(draw)))),
    )),  # fmt: skip
    "SL101/lambda_parameter_expanded": Spec((
        Call("count_positive", arguments(
            lambda draw: (draw_tensor(draw, shape=[8, 1], dtypes=(torch.float32,)),)
        )),
    )),  # fmt: skip
    "SL101/module_level_global_read_in_function": Spec((
        Call("selected_count", arguments(lambda draw: (draw_size(draw),))),
    )),  # fmt: skip
    "SL101/style_inline_short": Spec((Call("active_rows", rows(2)),)),
    "SL101/style_line_length_wrap": Spec(
        (
            Call(
                "heads_with_tokens",
                arguments(
                    lambda draw: (draw_tensor(draw, 1, 1), draw_size(draw), draw_size(draw))
                ),
            ),
            Call("rows_with_tokens", rows(2)),
        )
    ),
    "SL101/style_helper_module": Spec(
        (
            Call(
                "masked_count",
                arguments(lambda draw: (draw_tensor(draw, 2, 2), draw_dims(draw, 2))),
            ),
        ),
        helper_module="mylib._broadcast",
    ),
    "SL101/style_pasted_helper": Spec(
        (Call("masked_count", one_tensor(0, 4, lambda mask: (mask,))),)
    ),
    "SL101/amax_negative_dim_keepdim": Spec((Call("peak_magnitude", leading()),)),
    "SL101/any_runtime_dims_then_sum": Spec(
        (Call("rows_with_any_hit", rows(2, runtime_dims(2), runtime_dim_first=True)),)
    ),
    "SL101/any_without_dim": Spec((Call("has_odd_flag", rows(2)),)),
    "SL101/bool_counts_in_one_expression": Spec(
        (Call("kept_and_extra", rows(3)), Call("kept_if_any_extra", rows(3)))
    ),
    "SL101/branch_both_expand": Spec((Call("active_gates", rows(2, boolean)),)),
    "SL101/branch_one_side_expands": Spec((Call("active_gates", rows(2, boolean)),)),
    "SL101/chain_functional_clamp": Spec((Call("extra_adds", rows(2)),)),
    "SL101/helper_called_with_possible_param": Spec(
        (Call("dropout", one_tensor(2, 2, lambda keep: (torch.zeros(keep.shape), keep, 0.5))),),
        kernels={"_dropout_kernel": 0},
    ),
    "SL101/broadcast_flag_in_launch": Spec(
        (Call("rms_norm", one_tensor(1, 3, lambda w: (DENSE, w, 1e-6))),),
        kernels={"_rms_norm_kernel": 0},
    ),
    "SL101/broadcast_hints_config": Spec(
        (
            Call(
                "attention",
                one_tensor(0, 4, lambda mask: (DENSE, DENSE, DENSE, mask)),
                magnitude=lambda q, k, v, mask: abs_sum(mask.float()),
            ),
        ),
        kernels={"_attention_kernel": 3},
    ),
    "SL101/broadcast_tensors_unpacking": Spec(
        (
            Call(
                "agreement",
                arguments(broadcastable_triple),
                magnitude=lambda p, t, w: abs_sum(torch.eq(*torch.broadcast_tensors(p, t, w)[:2])),
            ),
        )
    ),
    "SL101/call_site_passes_expanded_tensor": Spec(
        (
            Call(
                "route_tokens",
                arguments(lambda draw: (draw_tensor(draw, shape=[None, None]), draw_size(draw))),
            ),
        )
    ),
    "SL101/count_nonzero_list_dim": Spec((Call("columns_hit", leading()),)),
    "SL101/docstring_broadcastable_param": Spec(
        (Call("pack_selected", one_tensor(2, 2, lambda keep: (torch.zeros(keep.shape), keep))),),
        kernels={"_pack_kernel": 0},
    ),
    "SL101/excess_of_counts_not_rewritten": Spec(
        tuple(
            Call(function, rows(3, runtime_dims(3), runtime_dim_first=True))
            for function in (
                "extra_adds_of_counts", "extra_adds_and_widest_row", "extra_adds_commented"
            )
        )
    ),
    "SL101/expand_then_compare_sum": Spec(
        (
            Call(
                "count_valid",
                arguments(lambda draw: (draw_tensor(draw, 0, 2, max_numel=40), draw_size(draw))),
            ),
        )
    ),
    "SL101/float_scalar_param_scales_sum": Spec(
        (
            Call(
                "weighted_count",
                rows(2, float_scalar),
                magnitude=lambda mask, copies, weight: abs_sum(
                    (_expanded(mask, copies) != 0) * weight
                ),
            ),
        )
    ),
    "SL101/hook_arg_from_documented_wrapper": Spec(
        (Call("_scaled_matmul_metadata", arguments(scaled_matmul_args)),)
    ),
    "SL101/jaxtyping_hash_dim_annotation": Spec(
        (Call("masked_softmax", one_tensor(0, 3, lambda mask: (DENSE, mask))),),
        kernels={"_masked_softmax_kernel": 0},
    ),
    "SL101/launch_metadata_hook": Spec(
        (Call("reduce_launch_metadata", arguments(hook_metadata_args)),)
    ),
    "SL101/reference_hook": Spec((Call("reduce_launch_metadata", arguments(reference_hook_args)),)),
    "SL101/logsumexp_then_sum": Spec(
        (
            Call(
                "log_partition",
                rows(2),
                magnitude=lambda logits, copies: lse_scale(_expanded(logits, copies) / 2.0, 1),
            ),
        )
    ),
    "SL101/loop_over_chunks": Spec((Call("nonzero_per_chunk", rows(2, small_int(4))),)),
    "SL101/max_min_without_dim": Spec((Call("value_range", leading()),)),
    "SL101/mean_runtime_dim": Spec(
        (
            Call(
                "worst_coverage",
                rows(2, runtime_dims(2), runtime_dim_first=True),
                magnitude=lambda mask, dim, copies: abs_sum(_expanded(mask, copies).float()),
            ),
        )
    ),
    "SL101/nanmean_keepdim": Spec(
        (
            Call(
                "spread_from_half",
                rows(2),
                # each row's nanmean errs within its own Σ|x|-scaled bound; the outer sum adds
                # the rounding of Σ|mu - 0.5| <= Σ|x| + 0.5·rows
                magnitude=lambda x, copies: abs_sum(_expanded(x, copies))
                + 0.5 * _expanded(x, copies).shape[0],
            ),
        )
    ),
    "SL101/nansum_tuple_dim": Spec(
        (
            Call(
                "peak_channel_energy",
                leading(),
                magnitude=lambda x, batch: abs_sum(x.unsqueeze(0).expand(batch, *x.shape)),
            ),
        )
    ),
    # `suppressed` is the same code in every output: only the fixed function is run.
    "SL101/noqa_suppression": Spec((Call("other_code_does_not_suppress", rows(2)),)),
    "SL101/pr_chain_literal_broadcast_dim": Spec((Call("extra_adds", rows(2)),)),
    "SL101/prod_of_integer_cast": Spec((Call("signed_product", rows(2)),)),
    "SL101/runtime_dim_chain": Spec(
        (Call("per_row_extra", rows(3, runtime_dims(3), runtime_dim_first=True)),)
    ),
    "SL101/stride_call_compared_with_zero": Spec(
        (Call("bias_add", one_tensor(1, 3, lambda bias: (DENSE, bias))),),
        kernels={"_bias_add_kernel": 0},
    ),
    "SL101/sum_positional_int_dim": Spec(
        (
            Call(
                "heads_over_budget",
                arguments(
                    lambda draw: (
                        draw_tensor(draw, shape=[None, None]), draw_size(draw), small_int()(draw)
                    )
                ),
            ),
        )
    ),
    "SL101/sum_with_float32_dtype": Spec((Call("kept_as_float", rows(2)),)),
    "SL101/torch_all_keyword_dim": Spec(
        (
            Call(
                "all_rows_valid",
                arguments(lambda draw: (draw_tensor(draw, shape=[None, None]), draw_size(draw))),
            ),
        )
    ),
    "SL101/torch_amin_tuple_dim": Spec((Call("min_margin", leading(float_scalar)),)),
    "SL101/torch_sum_keyword_negative_dim": Spec((Call("longest_row", leading()),)),
    "SL101/two_broadcast_operands": Spec(
        (Call("agreeing_positions", arguments(same_shape_pair)),)
    ),
    "SL101/unpacked_strides_compared_with_zero": Spec(
        (Call("masked_fill", one_tensor(1, 3, lambda mask: (DENSE, mask, 0.5))),),
        kernels={"_fill_kernel": 0},
    ),
    "SL102/any_all_of_documented_param": Spec(
        (
            Call(
                "select_rows",
                one_tensor(0, 3, lambda cond: (cond, torch.ones(2, 3), torch.full((2, 3), 2.0))),
            ),
        ),
        kernels={"_where_kernel": 0},
    ),
    "SL102/bool_counts_of_expanded_comparison": Spec((Call("kept_and_extra", rows(2)),)),
    "SL102/count_nonzero_in_hook": Spec((Call("_gather_metadata", arguments(gather_args)),)),
    "SL102/count_nonzero_negative_dim": Spec((Call("busiest_column", rows(3)),)),
    "SL102/logsumexp_keyword_dim": Spec(
        (
            Call(
                "total_log_partition",
                rows(2),
                magnitude=lambda logits, copies: lse_scale(_expanded(logits, copies), -1),
            ),
        )
    ),
    "SL102/mean_of_broadcast_tensors": Spec(
        (
            Call(
                "mean_gap",
                arguments(broadcastable_pair),
                magnitude=lambda x, y: sum(abs_sum(t) for t in torch.broadcast_tensors(x, y)),
            ),
        )
    ),
    "SL102/prod_of_expanded": Spec(
        (
            Call(
                "joint_probability",
                leading(),
                magnitude=lambda p, trials: prod_scale(torch.broadcast_to(p, (trials, *p.shape))),
                reference=prod_reference,
            ),
        )
    ),
    "SL102/stridelint_ignore_suppression": Spec(  # `suppressed` is never rewritten
        (
            Call(
                "other_code_does_not_suppress",
                rows(2),
                magnitude=lambda weights, rows: abs_sum(_expanded(weights, rows)),
            ),
        )
    ),
    "SL102/sum_of_expanded": Spec(
        (
            Call(
                "total_weight",
                rows(2),
                magnitude=lambda weights, rows: abs_sum(_expanded(weights, rows)),
            ),
        )
    ),
    # Fix soundness: the narrowing runs only where the op ran, names and imports are its own.
    "SL101/assert_test_narrows_inside": Spec((Call("checked_count", rows(2)),)),
    "SL101/attribute_rebound_between_narrowings": Spec(
        (Call("counts", arguments(two_masks_and_rows)),)
    ),
    "SL101/comprehension_over_range": Spec((Call("repeated_counts", rows(2, small_int(4))),)),
    "SL101/comprehension_variable_shadows_source": Spec(
        (Call("per_mask_counts", arguments(mask_list_and_rows)),)
    ),
    "SL101/elif_test_narrows_inside": Spec((Call("classify", rows(2, boolean)),)),
    "SL101/fresh_names_avoid_existing_locals": Spec((Call("count", rows(2)),)),
    "SL101/generator_expression_reads_source_later": Spec(
        (Call("lazy_counts", rows(2, small_int(4))),)
    ),
    "SL101/guard_and_short_circuit": Spec((Call("count_rows", rows(2)),)),
    "SL101/guard_conditional_expression_hoisted": Spec((Call("count_rows", rows(2, boolean)),)),
    "SL101/guard_conditional_expression_inline": Spec(
        (Call("count_rows", arguments(mask_of_any_rank_and_rows)),)
    ),
    "SL101/guard_key_check_in_hook": Spec(
        (Call("masked_metadata", arguments(optional_mask_hook_args)),)
    ),
    "SL101/guard_or_short_circuit": Spec((Call("all_rows_set", rows(2)),)),
    "SL101/helper_name_already_imported": Spec(
        (
            Call("extra_adds", rows(2, runtime_dims(2))),
            Call("area", arguments(lambda draw: (draw_size(draw), draw_size(draw)))),
        )
    ),
    "SL101/helper_name_assigned": Spec(
        (Call("count", rows(2)), Call("label", st.just(())))
    ),
    "SL101/math_alias_shadowed_by_local": Spec(
        (Call("count", rows(2)), Call("circle", arguments(lambda draw: (float_scalar(draw),))))
    ),
    "SL101/math_shadowed_by_local": Spec((Call("count", rows(2)),)),
    "SL101/torch_alias_is_a_helper_local": Spec((Call("count", leading()),)),
    "SL101/torch_only_under_type_checking": Spec((Call("count", rows(2)),)),
    "SL101/two_narrowings_in_one_round": Spec((Call("before_and_after_transpose", rows(2)),)),
    "SL101/walrus_rebinds_source_before_the_op": Spec((Call("transposed_counts", rows(2)),)),
    "SL101/while_test_narrows_inside": Spec((Call("shrink_until_sparse", rows(2)),)),
    "SL101/zero_dim_parameter_literal_dim": Spec(
        (Call("busiest", one_tensor(0, 4, lambda mask: (mask,))),)
    ),
    "SL102/any_dim_then_sum_is_exact": Spec((Call("rows_with_a_hit", rows(2, runtime_dims(2))),)),
}
