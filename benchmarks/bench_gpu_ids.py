"""Token-id BLEU on torch: launches and host waits per call (any machine), GPU timings (CUDA).

On any machine, the torch profiler counts what one ``sentence_bleu_ids(..., backend="torch")``
call does on torch tensors (CPU tensors when there is no GPU; the counts are the same ops):

- ``aten ops``: every aten operator the profiler records (nested ones included);
- ``launches``: top-level aten operators that compute something (views such as ``slice`` and
  ``reshape`` excluded): on a GPU, about one kernel launch each;
- ``syncs``: operators that make the host wait for the device: ``nonzero`` (also behind boolean
  indexing) and ``_local_scalar_dense`` (behind ``.item()``, ``bool(t)``, ``int(t)``), listed
  with ``item`` and ``is_nonzero`` as the issue counts them.

On a CUDA machine it also times, at the issue's sizes, ours on CUDA tensors, TensorBLEU
(``rxlm.metrics.tensorbleu``: ``pip install rxlm==0.3.80 --no-deps``; skipped when missing or
when it fails at a size, e.g. out of memory) and our CPU kernel on the same ids, with the peak GPU
memory of each GPU call, and counts CUDA kernels per call. Scores are checked against the CPU
kernel (and TensorBLEU's against ours, reported, not enforced: its smoothing differs).

    python benchmarks/bench_gpu_ids.py [--sizes 256x256,1024x1024] [--profile-sizes 256x256] [--repeat 5]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from typing import Callable, Dict

import numpy as np

from bleukit.ids import sentence_bleu_ids

VOCAB = 32_000
SIZES = "256x256,256x1024,1024x256,1024x1024,4096x1024,16384x256"
VIEW_OPS = {
    "aten::slice",
    "aten::select",
    "aten::view",
    "aten::reshape",
    "aten::_reshape_alias",
    "aten::unsqueeze",
    "aten::squeeze",
    "aten::expand",
    "aten::as_strided",
    "aten::narrow",
    "aten::t",
    "aten::transpose",
    "aten::permute",
    "aten::numpy_T",
    "aten::alias",
    "aten::detach",
    "aten::lift_fresh",
    "aten::unflatten",
    "aten::flatten",
    "aten::empty",
    "aten::empty_like",
    "aten::empty_strided",
    "aten::resolve_conj",
    "aten::resolve_neg",
    "aten::result_type",
}
SYNC_OPS = ("aten::nonzero", "aten::item", "aten::is_nonzero", "aten::_local_scalar_dense")


def make_batch(batch: int, length: int, seed: int):
    """Random ids; references are the hypotheses with 20% of the ids replaced (as bench_ids.py)."""
    rng = np.random.default_rng(seed)
    hyps = rng.integers(3, VOCAB, (batch, length), dtype=np.int64)
    refs = hyps.copy()
    change = rng.random(refs.shape) < 0.2
    refs[change] = rng.integers(3, VOCAB, int(change.sum()))
    return hyps, refs


def profile_counts(fn: Callable[[], object]) -> Dict[str, int]:
    """Operator counts of one call of ``fn`` (after a warm-up call)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    fn()
    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    with profile(activities=activities) as prof:
        fn()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
    events = list(prof.events())
    aten = [e for e in events if e.name.startswith("aten::")]
    top = [e for e in aten if e.cpu_parent is None or not e.cpu_parent.name.startswith("aten::")]
    names = collections.Counter(e.name for e in aten)
    out = {
        "aten ops": len(aten),
        "launches": sum(e.name not in VIEW_OPS for e in top),
        "syncs": names["aten::nonzero"] + names["aten::_local_scalar_dense"],
    }
    out.update({name.split("::")[1]: names[name] for name in SYNC_OPS})
    if torch.cuda.is_available():
        out["cuda kernels"] = sum(
            1 for e in events if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA
        )
    return out


def load_tensorbleu():
    """``tensor_sentence_bleu`` of rxlm 0.3.80, or None (its package's other imports are not needed)."""
    try:
        from rxlm.metrics.tensorbleu import tensor_sentence_bleu

        return tensor_sentence_bleu
    except Exception:  # noqa: BLE001 - any failure means "not available here"
        pass
    import importlib.util
    import os

    spec = importlib.util.find_spec("rxlm")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "metrics", "tensorbleu.py")
    if not os.path.exists(path):
        return None
    module_spec = importlib.util.spec_from_file_location("tensorbleu_standalone", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.tensor_sentence_bleu


def gpu_time(fn, repeat: int):
    """(best seconds, peak GPU MB) of ``fn`` on CUDA; the peak is measured on a separate call."""
    import torch

    fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    fn()
    torch.cuda.synchronize()
    return best, (torch.cuda.max_memory_allocated() - base) / 2**20


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=SIZES, help="batch x length sizes timed on CUDA")
    parser.add_argument("--profile-sizes", default="256x256,1024x256", help="sizes whose ops are counted")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    cuda = torch.cuda.is_available()
    device = "cuda" if cuda else "cpu"
    print(f"torch {torch.__version__}, counting on {device}" + (f" ({torch.cuda.get_device_name()})" if cuda else ""))
    print("\nOps per sentence_bleu_ids(..., backend='torch') call, one reference, no padding / pad_id=0:")
    header = None
    for size in args.profile_sizes.split(","):
        batch, length = (int(x) for x in size.split("x"))
        hyps, refs = make_batch(batch, length, seed=batch * 7 + length)
        th, tr = torch.as_tensor(hyps, device=device), torch.as_tensor(refs, device=device)
        for label, kwargs in (("", {}), (" pad_id=0", {"pad_id": 0})):
            counts = profile_counts(lambda: sentence_bleu_ids(th, tr, backend="torch", **kwargs))
            if header is None:
                header = list(counts)
                print("| batch x length | " + " | ".join(header) + " |")
                print("|" + "---|" * (len(header) + 1))
            print(f"| {size}{label} | " + " | ".join(str(counts[k]) for k in header) + " |")
    if not cuda:
        print("\nNo CUDA device: GPU timings skipped.")
        return 0

    tensorbleu = load_tensorbleu()
    print(
        f"\nPer-sentence BLEU on CUDA, best of {args.repeat} (s), peak GPU memory (MB)"
        + ("" if tensorbleu else "; TensorBLEU not importable (pip install rxlm==0.3.80 --no-deps)")
    )
    print("| batch x length | ours CUDA | peak MB | TensorBLEU | peak MB | x TensorBLEU | our CPU kernel | x CPU |")
    print("|---|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        batch, length = (int(x) for x in size.split("x"))
        hyps, refs = make_batch(batch, length, seed=batch * 7 + length)
        gh, gr = torch.as_tensor(hyps, device="cuda"), torch.as_tensor(refs, device="cuda")
        cpu_scores = sentence_bleu_ids(hyps, refs)
        gpu_scores = sentence_bleu_ids(gh, gr).cpu().numpy()
        diff = float(np.abs(gpu_scores - cpu_scores).max())
        if not diff <= 1e-9:
            print(f"{size}: CUDA scores differ from the CPU kernel by {diff:.3g}", file=sys.stderr)
            return 2
        ours, ours_mb = gpu_time(lambda: sentence_bleu_ids(gh, gr), args.repeat)
        start = time.perf_counter()
        for _ in range(max(1, args.repeat // 2)):
            sentence_bleu_ids(hyps, refs)
        cpu = (time.perf_counter() - start) / max(1, args.repeat // 2)
        tb_cell = tb_mb = ratio = "-"
        if tensorbleu is not None:
            try:
                refs3 = gr[:, None, :]
                tb, mb = gpu_time(lambda: tensorbleu(gh, refs3, pad_token_id=0), args.repeat)
                tb_cell, tb_mb, ratio = f"{tb:.4f}", f"{mb:.0f}", f"{tb / ours:.1f}x"
            except Exception as err:  # noqa: BLE001 - OOM, illegal memory access...
                tb_cell = f"failed: {type(err).__name__}"
                torch.cuda.empty_cache()
        print(
            f"| {size} | {ours:.4f} | {ours_mb:.0f} | {tb_cell} | {tb_mb} | {ratio} | {cpu:.4f} | {cpu / ours:.1f}x |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
