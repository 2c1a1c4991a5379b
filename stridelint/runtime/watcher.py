"""Record, while a block runs, the ops that really materialized or wrote broadcast tensors.

Static analysis says an op *may* see a stride-0 tensor; the watcher says it *did*. It is a
`TorchFunctionMode`, not a `TorchDispatchMode`: both run Python on every call, but a function
mode sees one call per user-level op (`x.reshape(...)`, not the `aten.clone` + `_unsafe_view`
it lowers to), so it costs less and names the op the user wrote. `benchmarks/runtime_overhead.py`,
a loop of 32x32 ops, best of 15, relative to no mode:

    host                        empty TorchFunctionMode  empty TorchDispatchMode  watch()
    torch 2.13 CPU, 2 threads   1.90x                    4.03x                    2.26x
    torch 2.11, 16 threads      1.61x                    3.53x                    2.17x

Per call, an empty function mode adds about 2 us and the watcher 1 us more (7 us more for an
op with a broadcast input). On a real suite that is lost in the noise: `pytest tests/reference`
took 23.9 s bare and 22.5 s with `--stridelint-runtime` (CPU, Triton interpreter), 28.4 s and
28.3 s on an H200.

Nothing is installed until the block is entered, so an unused watcher costs nothing. Only the
metadata of plain tensors is read (`stride()`, `shape`, `untyped_storage()`), which works the
same on every device; tensor subclasses (FakeTensor, DTensor, ...) are left alone because their
storages are not memory the op allocated.
"""

from __future__ import annotations

import contextlib
import functools
import linecache
import os
import sys
from typing import Any, Callable, Iterable, Iterator

import torch
from torch.overrides import TorchFunctionMode, resolve_name

from stridelint.runtime.classify import (
    FAMILIES,
    REDUCTIONS,
    STATIC_CODE_PREFIXES,
    allocation_kind,
    writes_first_argument,
)
from stridelint.runtime.report import Event, SummaryRow, summarize
from stridelint.runtime.static_codes import static_code
from stridelint.suppression import Suppressions, read_suppressions

_PLAIN_TENSORS = frozenset({torch.Tensor, torch.nn.Parameter})

# Frames that are never the user's line: torch itself (including `torch/_tensor.py` wrappers
# such as `__rsub__`), this package, and the context-manager and decorator plumbing.
_NOT_USER_CODE = (
    os.path.dirname(torch.__file__) + os.sep,
    os.path.dirname(os.path.abspath(__file__)) + os.sep,
    contextlib.__file__,
    functools.__file__,
)


def watch(threshold: float = 16.0, min_bytes: int = 1 << 20) -> Watcher:
    """Use as `with watch() as w:`; afterwards `w.events` and `w.summary()` hold what happened.

    An op is recorded when its fresh outputs take more than `threshold` times the largest
    storage among its inputs and at least `min_bytes`, or when it is a reduction whose
    broadcast input is that large logically; a write into a broadcast tensor is always recorded.
    Only calls made from Python by this thread are seen: not other threads (mode stacks are
    per thread), nor what PyTorch runs internally, such as autograd's backward ops.
    """
    return Watcher(threshold=threshold, min_bytes=min_bytes)


class Watcher(TorchFunctionMode):
    """The mode `watch()` returns; entering it pushes it on this thread's torch function stack."""

    def __init__(self, threshold: float, min_bytes: int) -> None:
        super().__init__()
        self.threshold = threshold
        self.min_bytes = min_bytes
        self.events: list[Event] = []

    def summary(self) -> list[SummaryRow]:
        """Events grouped by (source location, op): count and worst blow-up."""
        return summarize(self.events)

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        # Runs with this mode popped, so torch calls made here do not come back to it.
        kwargs = kwargs or {}
        if not _has_broadcast(args) and not (kwargs and _has_broadcast(kwargs.values())):
            return func(*args, **kwargs)
        name = func.__name__
        # Recorded before the call: PyTorch rejects most such writes with an exception (§1.3).
        for target in _written(name, args, kwargs):
            if _is_broadcast(target):
                logical = target.numel() * target.element_size()
                self._record(func, "write", target, logical, _storage(target)[1])
        result = func(*args, **kwargs)
        outputs = _strided(_tensors((result,)))
        if outputs:  # metadata calls (`stride()`, `shape`, `item()`) end here
            inputs = _strided([*_tensors(args), *_tensors(kwargs.values())])
            self._check_allocation(func, name, inputs, outputs)
        return result

    def _check_allocation(
        self,
        func: Callable[..., Any],
        name: str,
        inputs: list[torch.Tensor],
        outputs: list[torch.Tensor],
    ) -> None:
        storages = dict(map(_storage, inputs))
        # An output whose storage is an input's is a view or `self`, not an allocation.
        fresh = {key: size for key, size in map(_storage, outputs) if key not in storages}
        nbytes = sum(fresh.values())
        reduction = name in REDUCTIONS
        if nbytes < self.min_bytes and not reduction:
            return
        source = _largest_broadcast(inputs)
        if reduction:  # its temporaries are invisible here; assume a logical-size one
            nbytes = max(nbytes, source.numel() * source.element_size())
        largest_storage = max(storages.values())
        if self._exceeds(nbytes, largest_storage):
            if reduction:
                kind = "reduction"
            else:
                kind = allocation_kind(name, source.dtype, outputs[0].dtype)
            self._record(func, kind, source, nbytes, largest_storage)

    def _exceeds(self, nbytes: int, storage_bytes: int) -> bool:
        return nbytes >= self.min_bytes and nbytes > self.threshold * storage_bytes

    def _record(
        self,
        func: Callable[..., Any],
        kind: str,
        tensor: torch.Tensor,
        output_bytes: int,
        storage_bytes: int,
    ) -> None:
        family = FAMILIES[kind]
        filename, lineno, function = _user_location()
        if _suppressed(filename, lineno, kind):
            return
        code = static_code(filename, lineno, kind)
        self.events.append(
            Event(
                op=_op_name(func),
                kind=kind,
                family=family,
                shape=tuple(tensor.shape),
                stride=tensor.stride(),
                dtype=str(tensor.dtype).removeprefix("torch."),
                device=str(tensor.device),
                output_bytes=output_bytes,
                storage_bytes=storage_bytes,
                filename=filename,
                lineno=lineno,
                function=function,
                code=code,
            )
        )


def _tensors(values: Iterable[Any]) -> Iterator[torch.Tensor]:
    """Plain tensors among `values`, one level into lists and tuples (`cat`, `out=(v, i)`)."""
    for value in values:
        kind = type(value)
        if kind in _PLAIN_TENSORS:
            yield value
        elif kind is list or isinstance(value, tuple):  # `torch.return_types` subclass tuple
            for item in value:
                if type(item) in _PLAIN_TENSORS:
                    yield item


def _strided(tensors: Iterable[torch.Tensor]) -> list[torch.Tensor]:
    """The tensors that have a storage to measure (not sparse, not mkldnn)."""
    return [t for t in tensors if t.layout == torch.strided]


def _has_broadcast(values: Iterable[Any]) -> bool:
    """`any(map(_is_broadcast, _tensors(values)))`, unrolled: it runs on every call."""
    for value in values:
        kind = type(value)
        if kind in _PLAIN_TENSORS:
            if _is_broadcast(value):
                return True
        elif kind is list or isinstance(value, tuple):
            for item in value:
                if type(item) in _PLAIN_TENSORS and _is_broadcast(item):
                    return True
    return False


def _is_broadcast(t: torch.Tensor) -> bool:
    """A dim with stride 0 and size > 1: several indices read one memory location (§0.1)."""
    try:
        strides = t.stride()
    except RuntimeError:  # sparse, nested and mkldnn tensors have no strides
        return False
    if 0 in strides:
        for stride, size in zip(strides, t.shape):  # a loop, not any(): this is the hot path
            if stride == 0 and size > 1:
                return True
    return False


def _largest_broadcast(tensors: list[torch.Tensor]) -> torch.Tensor:
    """The broadcast tensor with the most logical elements: the one an event describes."""
    broadcast = [t for t in tensors if _is_broadcast(t)]
    sizes = [t.numel() for t in broadcast]
    return broadcast[sizes.index(max(sizes))]


def _written(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[torch.Tensor]:
    if "out" in kwargs:
        yield from _tensors((kwargs["out"],))
    if args and writes_first_argument(name):
        yield from _tensors(args[:1])


def _op_name(func: Callable[..., Any]) -> str:
    """`torch.Tensor.ne`, `torch.add`, `torch.nn.functional.relu`: the name the user wrote."""
    qualname = getattr(func, "__qualname__", func.__name__)
    module = getattr(func, "__module__", None)
    return resolve_name(func) or (f"{module}.{qualname}" if module else qualname)


def _storage(t: torch.Tensor) -> tuple[tuple[int, torch.device], int]:
    """(identity, bytes) of the tensor's storage."""
    storage = t.untyped_storage()
    return (storage.data_ptr(), t.device), storage.nbytes()


def _user_location() -> tuple[str, int, str]:
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_NOT_USER_CODE):
        frame = frame.f_back
    if frame is None:  # an op run by a thread with no Python caller
        return "<unknown>", 0, "<unknown>"
    return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name


def _suppressed(filename: str, lineno: int, kind: str) -> bool:
    """The linter's own comments on the event's line: `# noqa`, or a code that can name an
    event of this kind: its family (`# noqa: SL2`, `# noqa: SL201`, `# stridelint:
    ignore[SL2xx]`) or the static code the line would get (`# noqa: SL101` on the `!=` of
    `(e != 0).sum()`); or `# stridelint: skip-file`.
    """
    suppressions = _file_suppressions(filename)
    if suppressions.skip_file:
        return True
    if lineno not in suppressions.rows:
        return False
    codes = suppressions.rows[lineno]
    prefixes = STATIC_CODE_PREFIXES[kind]
    return codes is None or any(code.startswith(prefixes) for code in codes)


@functools.lru_cache(maxsize=256)
def _file_suppressions(filename: str) -> Suppressions:
    return read_suppressions("".join(linecache.getlines(filename)))
