"""What cibuildwheel runs against each built wheel (.github/workflows/release.yml, [tool.cibuildwheel]).

A wheel whose kernels failed to compile would still install (the build falls back to the pure-Python
engine with a notice), so a release wheel must prove its kernels are inside and give sacreBLEU's
numbers, compiled and pure-Python alike: ``wheel_check.py`` checks the compiled engine,
``wheel_check.py --engine python`` the pure-Python one (bleukit reads BLEUKIT_ENGINE when it loads).
"""

import os
import sys

#: the metrics with a C kernel (csrc/metrics/<name>/; tests/test_release.py keeps the two lists equal)
METRIC_KERNELS = ["bleu", "chrf", "ter"]  # csrc/metrics/<name>/: one compiled module per metric
KERNELS = ["bleukit._resample_kernel"]  # shared by every metric
KERNELS += [f"bleukit.metrics.{m}._kernel" for m in METRIC_KERNELS]


def main() -> int:
    if sys.argv[1:] == ["--engine", "python"]:
        os.environ["BLEUKIT_ENGINE"] = "python"
    import sacrebleu

    import bleukit
    from bleukit import _native, corpus_bleu, corpus_chrf, corpus_ter, engine_name, sentence_bleu

    missing = [f"{name}: {_native.kernel_error(name)}" for name in KERNELS if _native.load_kernel(name) is None]
    if missing:
        print("kernels missing from the wheel:\n  " + "\n  ".join(missing), file=sys.stderr)
        return 1
    hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him.", "猫が好きです。"]
    refs = ["The dog bit the man.", "It was not unexpected.", "The man bit him first.", "犬が好きです。"]
    streams = [refs]  # sacreBLEU's layout: one stream of references
    checks = [
        (corpus_bleu(hyps, refs).score, sacrebleu.corpus_bleu(hyps, streams).score),
        (corpus_bleu(hyps, refs, tokenize="intl").score, sacrebleu.corpus_bleu(hyps, streams, tokenize="intl").score),
        (sentence_bleu(hyps[1], [refs[1]]).score, sacrebleu.sentence_bleu(hyps[1], [refs[1]]).score),
        (corpus_chrf(hyps, refs, word_order=2).score, sacrebleu.corpus_chrf(hyps, streams, word_order=2).score),
        (corpus_ter(hyps, refs).score, sacrebleu.corpus_ter(hyps, streams).score),
    ]
    wrong = [(ours, theirs) for ours, theirs in checks if ours != theirs]
    if wrong:
        print(f"scores differ from sacreBLEU's (ours, theirs): {wrong}", file=sys.stderr)
        return 1
    where = os.path.dirname(os.path.dirname(os.path.abspath(bleukit.__file__)))
    print(f"bleukit {bleukit.__version__} from {where}: kernels {KERNELS} inside; engine {engine_name()}: "
          f"{len(checks)} scores equal sacreBLEU's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
