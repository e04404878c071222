"""``exp``, ``log`` and ``sum`` of many floats, each giving what Python's own would, bit for bit.

sacreBLEU computes BLEU with ``math.exp``, ``math.log`` and the built-in ``sum``. numpy's ``exp`` and
``log`` are SIMD code on CPUs with AVX-512 (AMD EPYC, recent Intel) that differs from the C library's
``exp()``/``log()`` (what ``math`` calls) in the last bit for some arguments, and ``sum`` of floats
is compensated (Neumaier) since Python 3.12. So the vectorised formula takes these three from here:

- :func:`exp` and :func:`log` call the C library's functions on every element through the compiled
  ``bleukit.metrics.bleu._kernel`` (csrc/metrics/bleu/libm.c), or, when it is not built or
  ``BLEUKIT_ENGINE=python``, ``math.exp``/``math.log`` on each element (the same functions, slower);
- :func:`python_sum` adds along the first axis exactly as the running Python's ``sum`` adds a list
  of floats (plain left-to-right additions before 3.12, Neumaier's compensated sum from 3.12 on;
  which one is probed at import, not guessed from the version).

Arrays are numpy (the formula scores CPU tensors as the numpy arrays they are). A tensor on an
accelerator (CUDA) gets the device's own ``exp``/``log``: moving the values to the host and back
would synchronise the device on every call, which the GPU path is built to avoid, and those may
differ from the C library's in the last bit for some arguments (a score's last digit, some 1e-14
on BLEU's 0-100 scale). Sentence scores of GPU token ids that must equal sacreBLEU's to the last
bit are scored on the host: count on the device, score the table there,
``bleukit.sentence_scores_from_statistics(bleukit.ids.id_statistics(...), options)``
(``corpus_bleu_ids`` always scores on the host).

>>> import math, numpy as np
>>> x = np.array([0.1, 1.0, 2.5])
>>> exp(x).tolist() == [math.exp(v) for v in x.tolist()]
True
>>> bool(python_sum(np.array([[0.1], [0.2], [0.3]]))[0] == sum([0.1, 0.2, 0.3]))
True
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ... import _native
from ..._torch import array_namespace, is_torch_tensor

__all__ = ["KERNEL", "exp", "log", "python_sum", "COMPENSATED_SUM"]

# This module imports numpy where it is first used, not at import: the formula reads the two
# constants below on its numpy-free routes (the command line's ``-b``, :func:`.formula.score_row`).

#: BLEU's compiled module (built from csrc/metrics/bleu/): here libm's exp and log, and the float32 scores.
KERNEL = _native.MAIN_KERNEL

#: Whether this Python's ``sum`` of floats is compensated (Neumaier; CPython 3.12 and later).
COMPENSATED_SUM = sum([1.0, 1e100, 1.0, -1e100]) == 2.0


def _py_exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:  # the C function returns inf (and sets errno) where math raises
        return math.inf


def _py_log(v: float) -> float:
    if v > 0:
        return math.log(v)
    return -math.inf if v == 0 else math.nan  # what log() returns where math raises


def _apply(name: str, python: Callable[[float], float], x: Any) -> Any:
    if is_torch_tensor(x):
        # An accelerator's own function (the formula scores CPU tensors as numpy arrays): the
        # scores stay on the device without a synchronisation (see the module's text).
        return getattr(x, name)()
    import numpy as np

    values = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(values)
    kernel = _native.kernel(KERNEL)
    if kernel is not None:
        getattr(kernel, name)(values, out)
        return out
    out.reshape(-1)[:] = [python(v) for v in values.reshape(-1).tolist()]
    return out


def exp(x: Any) -> Any:
    """``math.exp`` of every element (a float64 array of the same shape; inf where ``math.exp``
    overflows); a torch tensor gets torch's ``exp`` (see the module's text).

    >>> import numpy as np
    >>> exp(np.array([0.0, -np.inf])).tolist()
    [1.0, 0.0]
    """
    return _apply("exp", _py_exp, x)


def log(x: Any) -> Any:
    """``math.log`` of every element (``-inf`` for 0 and ``nan`` below, where ``math.log`` raises).

    >>> import numpy as np
    >>> log(np.array([1.0, 0.0])).tolist()
    [0.0, -inf]
    """
    return _apply("log", _py_log, x)


def python_sum(terms: Any) -> Any:
    """``sum(list(terms[:, j]))`` for every column ``j``: the running Python's ``sum`` of floats,
    element for element, vectorised (summing along axis 0).

    The first term is the start (``0 + x`` is ``x``); from 3.12 each later term is added with
    Neumaier's correction term, which is added back at the end when it is finite and nonzero.

    >>> import numpy as np
    >>> float(python_sum(np.array([1.0, 1e100, 1.0, -1e100]))) == sum([1.0, 1e100, 1.0, -1e100])
    True
    """
    xp = array_namespace(terms)
    total = terms[0]  # Python's sum starts from 0, and 0 + x is x
    if not COMPENSATED_SUM:
        for n in range(1, terms.shape[0]):
            total = total + terms[n]
        return total
    comp = xp.zeros_like(total)
    for n in range(1, terms.shape[0]):
        x = terms[n]
        t = total + x
        comp = comp + xp.where(xp.abs(total) >= xp.abs(x), (total - t) + x, (x - t) + total)
        total = t
    return xp.where((comp != 0) & xp.isfinite(comp), total + comp, total)
