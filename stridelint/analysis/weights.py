"""Whether a tensor is a module's own parameter, seen through views.

A module's parameters are cast with it (`model.to(torch.bfloat16)`, a checkpoint loaded in a
dtype), so in a model run in one dtype they have the dtype of its activations: a cast of an
expanded parameter to a dtype the code reads at runtime (`.to(hidden_states.dtype)`,
`.type_as(x)`, a `dtype` argument) returns the tensor itself. Only a model that keeps fp32
weights beside bf16 activations copies there, so such a cast is a low-severity finding. A cast
to a dtype the code names (`.float()`) upcasts bf16 weights and stays a finding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.bindings import reaching_assignment

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts

_MAX_DEPTH = 8
# Methods that return the same elements in the same dtype: views, expands, copies of layout.
_KEEPS_ELEMENTS = torch_ops.VIEW_METHODS | torch_ops.LAYOUT_METHODS | torch_ops.DEVICE_METHODS


def holds_parameter(
    facts: ModuleFacts,
    node: cst.BaseExpression,
    statement: cst.CSTNode | None,
    owner: tuple[str, str] | None,
) -> bool:
    """Whether `node` shows the elements of a parameter of the module whose method reads it
    (`self.pos_embed[None]`, a name bound to `self.registers.unsqueeze(0).reshape(n, -1)`);
    `owner` is (the method's class, the name it calls its instance by)."""
    if owner is None:
        return False
    for _ in range(_MAX_DEPTH):
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value not in _KEEPS_ELEMENTS:
                return False
            node = node.func.value
        elif isinstance(node, cst.Attribute):
            on_self = isinstance(node.value, cst.Name) and node.value.value == owner[1]
            return on_self and node.attr.value in facts.classes.parameters(owner[0])
        elif isinstance(node, cst.Name):
            found = reaching_assignment(facts, node, statement)
            if found is None:
                return False
            node, statement = found[0].value, found[1]
        else:
            return False
    return False
