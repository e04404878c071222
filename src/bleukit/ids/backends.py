"""Where a batch of ids is counted: the array library (numpy or torch ops) and the counter.

Host ids are counted by the compiled kernel or by the numpy array code of
:mod:`bleukit.ids.host_counting` (:class:`NumpyOps`); torch ops count a padded batch with fixed
shapes (:mod:`bleukit.ids.torch_counting`; :class:`TorchOps` lays the batch out). Which counter
runs is an explicit choice (:class:`Counter`) made by :func:`choose_plan` from the ``backend``
argument and where the ids live; results go back to the caller's kind (:func:`to_output`).

>>> import numpy as np
>>> plan = choose_plan((np.zeros((1, 2), dtype=np.int64),), "numpy")
>>> plan.counter, plan.ops.kind, plan.out_device
(<Counter.HOST_ARRAYS: 'host arrays'>, 'numpy', None)
"""

from __future__ import annotations

import enum
import numbers
from dataclasses import dataclass
from typing import Any, Sequence, Union

import numpy as np

from .._torch import is_torch_tensor
from ..metrics.bleu import kernel as bleu_kernel

__all__ = ["NumpyOps", "TorchOps", "Counter", "Plan", "BACKENDS", "choose_plan", "to_output"]

BACKENDS = ("auto", "numpy", "torch")


class NumpyOps:
    """The array operations of the counting code, spelled for numpy."""

    kind = "numpy"

    def arange(self, n):
        return np.arange(n, dtype=np.int64)

    def zeros(self, n, dtype=np.int64):
        return np.zeros(n, dtype=dtype)

    def ones_bool(self, n):
        return np.ones(n, dtype=bool)

    def zeros_bool(self, n):
        return np.zeros(n, dtype=bool)

    def diff_append(self, x, last):
        return np.diff(x, append=last)

    def cat(self, parts):
        return np.concatenate(parts)

    def stack(self, parts, axis):
        return np.stack(parts, axis)

    def repeat(self, values, counts):
        return np.repeat(values, counts)

    def sort(self, x):
        return np.sort(x)

    def argsort(self, x, stable=False):
        return np.argsort(x, kind="stable" if stable else None)

    def nonzero(self, mask):
        return np.flatnonzero(mask)

    def cumsum(self, x):
        return np.cumsum(x, dtype=np.int64)

    def not_in(self, x, values):
        return ~np.isin(x, np.asarray(values, dtype=np.int64))

    def count_per(self, index, size, weights=None):
        # float64 bincount is exact here: every sum is a count below 2**53.
        out = np.bincount(index, weights=weights, minlength=size)
        return out.astype(np.int64)

    def segment_max(self, values, seg_first, seg_index, size):
        return np.maximum.reduceat(values, seg_first)

    def segment_min(self, values, seg_first, seg_index, size):
        return np.minimum.reduceat(values, seg_first)

    def to_int(self, x) -> int:
        return int(x)

    def minimum(self, a, b):
        return np.minimum(a, b)

    def maximum(self, a, b):
        return np.maximum(a, b)

    def as_index_array(self, x):
        return np.asarray(x, dtype=np.int64)

    def int64(self, x):
        return np.asarray(x, dtype=np.int64)

    def to_numpy(self, x):
        return x


class TorchOps:
    """What the layout step needs spelled for torch, on one device (the padded counter is
    written in torch directly: :mod:`bleukit.ids.torch_counting`)."""

    kind = "torch"

    def __init__(self, torch, device):
        self.torch = torch
        device = torch.device(device)
        if device.type == "cuda" and device.index is None:
            # "cuda" means the current device, which a tensor on it reports with its index
            # (cuda:0): compared as they are, ids on it would be refused as on another device
            device = torch.device("cuda", torch.cuda.current_device())
        self.device = device

    def arange(self, n):
        return self.torch.arange(n, dtype=self.torch.int64, device=self.device)

    def zeros(self, n):
        return self.torch.zeros(n, dtype=self.torch.int64, device=self.device)

    def cat(self, parts):
        return self.torch.cat(parts)

    def not_in(self, x, values):
        # Comparisons with Python ints: no small tensor of pad ids to copy to the device.
        keep = x != values[0]
        for v in values[1:]:
            keep &= x != v
        return keep

    def as_index_array(self, x):
        return self.torch.as_tensor(x, dtype=self.torch.int64, device=self.device)

    def int64(self, x):
        return x if x.dtype == self.torch.int64 else x.to(self.torch.int64)

    def to_numpy(self, x):
        return x.detach().cpu().numpy()


Ops = Union[NumpyOps, TorchOps]


class Counter(enum.Enum):
    """Who turns the assembled batch into statistics rows."""

    #: The compiled kernel (:mod:`bleukit.metrics.bleu.kernel`) on host data.
    KERNEL = "kernel"
    #: The numpy array code, in cache-sized blocks of rows.
    HOST_ARRAYS = "host arrays"
    #: Fixed-shape torch code on the ids' device (no waiting for the device), on a padded batch.
    TORCH_PADDED = "torch padded"


@dataclass(frozen=True)
class Plan:
    """The choice for one call: array operations, counter, and the device results return to."""

    ops: Ops
    counter: Counter
    out_device: Any  # torch device of the caller's tensors; None: results are numpy arrays


def choose_plan(objs: Sequence[Any], backend: str) -> Plan:
    """Pick the counter for ids ``objs`` and a ``backend`` of :data:`BACKENDS`.

    ``"auto"``: torch ops for tensors on an accelerator (they stay where they are); on the host
    (CPU tensors included) the compiled kernel, or the numpy array code where it is not built
    (numpy's sort is several times faster than torch's CPU sort). ``"numpy"`` and ``"torch"``
    force the array code of that library.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend={backend!r}; choose one of {', '.join(BACKENDS)}")
    out_device = _common_device(objs)
    if backend == "auto":
        backend = "torch" if out_device is not None and out_device.type != "cpu" else "numpy"
        if backend == "numpy" and bleu_kernel.ids_kernel_in_use():
            return Plan(NumpyOps(), Counter.KERNEL, out_device)
    if backend == "numpy":
        return Plan(NumpyOps(), Counter.HOST_ARRAYS, out_device)
    import torch

    device = out_device if out_device is not None else torch.device("cpu")
    return Plan(TorchOps(torch, device), Counter.TORCH_PADDED, out_device)


def _common_device(objs: Sequence[Any]):
    """The device of the tensors among ``objs`` (None when there are none); they must agree."""
    devices = []
    for obj in objs:
        stack = [obj]
        while stack:
            o = stack.pop()
            if is_torch_tensor(o):
                devices.append(o.device)
            elif isinstance(o, (list, tuple)) and o and not isinstance(o[0], numbers.Number):
                # Only the first item of each level decides: mixing kinds inside one list is rare
                # and still works (numpy items are moved to the torch device).
                stack.append(o[0])
    if devices and any(d != devices[0] for d in devices):
        raise ValueError(f"token ids are on different devices ({devices[0]} and another); move them to one")
    return devices[0] if devices else None


def to_output(plan: Plan, x: Any) -> Any:
    """Results in the caller's kind: a tensor on the ids' device for tensor input, else numpy."""
    if plan.out_device is None:
        return plan.ops.to_numpy(x)
    if plan.ops.kind == "torch":
        return x
    import torch

    return torch.from_numpy(x).to(plan.out_device)
