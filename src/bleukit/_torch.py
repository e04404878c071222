"""One test for "is this a torch tensor", and the array library of an array, shared by every module.

torch is optional and heavy: the test looks the module up in ``sys.modules`` instead of importing
it, since an object can only be a tensor if torch was already imported by whoever made it.

>>> import numpy as np
>>> is_torch_tensor(np.zeros(2)), is_torch_tensor([1, 2])
(False, False)
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["is_torch_tensor", "array_namespace"]


def is_torch_tensor(obj: Any) -> bool:
    """True for a ``torch.Tensor`` (subclasses included); never imports torch.

    >>> is_torch_tensor(3)
    False
    """
    torch = sys.modules.get("torch")
    tensor_type = getattr(torch, "Tensor", None)
    return tensor_type is not None and isinstance(obj, tensor_type)


def array_namespace(array: Any) -> Any:
    """The module whose functions work on ``array``: ``torch`` for a tensor, else ``numpy``.

    A formula written with ``xp = array_namespace(rows)`` runs unchanged on CPU and GPU tensors.

    >>> import numpy as np
    >>> array_namespace(np.zeros(2)).__name__
    'numpy'
    """
    if is_torch_tensor(array):
        return sys.modules["torch"]
    import numpy

    return numpy
