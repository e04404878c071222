"""One test for "is this a torch tensor", shared by every module that accepts tensors.

torch is optional and heavy: the test looks the module up in ``sys.modules`` instead of importing
it, since an object can only be a tensor if torch was already imported by whoever made it.

>>> import numpy as np
>>> is_torch_tensor(np.zeros(2)), is_torch_tensor([1, 2])
(False, False)
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["is_torch_tensor"]


def is_torch_tensor(obj: Any) -> bool:
    """True for a ``torch.Tensor`` (subclasses included); never imports torch.

    >>> is_torch_tensor(3)
    False
    """
    torch = sys.modules.get("torch")
    tensor_type = getattr(torch, "Tensor", None)
    return tensor_type is not None and isinstance(obj, tensor_type)
