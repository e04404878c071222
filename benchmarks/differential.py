"""Differential run against sacreBLEU: millions of generated cases, both engines, compared with ``==``.

    python benchmarks/differential.py                          # 1,000,000 sentences, 20,000 corpora
    python benchmarks/differential.py --sentences 20000 --corpora 500 --chrf-sentences 5000 \
        --chrf-corpora 200 --ter-corpora 100 --bootstrap 50 --seed 7                                 # a quick look
    nice python benchmarks/differential.py > differential.log &                   # the full run

Not a test (it takes a while); the counts it prints go in README's reliability table. Cases are
generated from the real WMT/KFTT lines in ../shared/data, mutated (tokens dropped, repeated,
swapped, recased, joined, split; pieces aimed at every tokenizer rule inserted: entities, numbers,
Unicode punctuation and symbols, CJK, Hangul, combining marks, rare whitespace; lines emptied or
cut), and from random text in the manner of Hypothesis (characters drawn from mixed Unicode
categories). Each batch draws options from every tokenizer sacreBLEU has without a model file
(``13a``, ``intl``, ``zh``, ``char``, ``none``, and ``ja-mecab``/``ko-mecab`` when installed), case,
every smoothing method with and without a value, n-gram orders 1-6 and effective order on and
off, and one to four references (sometimes missing ones in corpora).

- sentence cases: ``bleukit.sentence_bleu_scores`` of the batch (and ``sentence_bleu`` on a sample)
  against ``sacrebleu``'s ``BLEU(...).sentence_score`` of each case;
- corpora: ``bleukit.corpus_bleu`` against ``BLEU(...).corpus_score``: score, counts, totals,
  lengths, brevity penalty, precisions and the signature (all but its version field).

- chrF: ``bleukit.sentence_chrf_scores`` against ``CHRF(...).sentence_score`` (and
  ``sentence_chrf`` on a sample), ``bleukit.corpus_chrf`` against ``corpus_score`` (score, the
  statistics, the signature), with character orders 1-6, word orders 0-2, beta 0.5-3, case,
  whitespace and eps smoothing drawn per batch;
- TER: ``bleukit.corpus_ter`` against ``TER(...).corpus_score`` (score, edits, reference length,
  signature) and ``sentence_ter_scores`` against ``sentence_score`` of each of its sentences, with
  normalization, punctuation, Asian support and case drawn per corpus;
- bootstrap: ``corpus_bleu``/``corpus_chrf``/``corpus_ter(..., n_bootstrap=N)`` against
  sacreBLEU's ``corpus_score(..., n_bootstrap=N)``: the mean and the interval, which sacreBLEU
  computes from float32 sums (and for chrF and TER in float32 arithmetic throughout).

Both engines (``BLEUKIT_ENGINE=native`` and ``python``) score every case; every float is compared
with ``==``. The first differences are printed with their case; the exit status is 1 if any.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("BLEUKIT_SHARED_DATA", HERE.parent.parent / "shared" / "data"))

# Pieces aimed at the tokenizers' rules (13a entities and number rules, intl's Unicode classes,
# zh's CJK ranges, char's code points, lowercasing that changes length).
PIECES = [
    "&amp;", "&quot;", "&lt;", "&gt;", "&#39;", "<skipped>", "1,000.50", "3.5", "2-3", "1990-2000", "U.S.",
    "e.g.", "don't", "co-\nop", "a-b", "x.y", "end.", "(quoted)", "“curly”", "‘single’", "—", "–", "…", "€5",
    "¿Qué?", "¡Sí!", "«guillemets»", "m²", "½", "٣", "१२", "北京", "欢迎你", "中文，标点。", "ＡＢＣ１２３",
    "　", "東京は日本の首都です。", "안녕하세요", "สวัสดี", "İstanbul", "Straße", "ǅ", "ﬁ", "e\u0301", "a\u0308",
    "\u00a0", "\t", "\u2028", "\u200b", "\ufeff", "😀", "𝔘𝔫𝔦", "-", ".", ",", "?", "!", ":", ";", "'", '"', "/",
    "\\", "$", "%", "#", "@", "*", "+", "=", "~", "^", "`", "|", "[", "]", "{", "}", "10.000", "1.", ".5",
    "a.", "A.B.C.", "3,14", "-7", "+1", "1/2", "x86-64", "C++", "#1", "@user", "http://x.org/a?b=1",
]
# Character pools for random text, one per Unicode neighbourhood.
POOLS = [
    "abcdefghijklmnopqrstuvwxyz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789",
    " .,;:!?'\"()-[]{}/\\&<>@#$%^*_+=~`|",
    " \t\u00a0\u2009\u3000\u2028",
    "äöüßéèêçñøåæœÄÖÜÉÈÇÑİıſ",
    "αβγδεζηθΑΒΓΔΣσςω",
    "абвгдежзийклмнопАБВГДЕЖЗ",
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
    "あいうえおかきくけこアイウエオカキクケコ",
    "가나다라마바사아자차카타파하",
    "،؛؟٠١٢٣٤٥ابتثجح",
    "‘’“”«»‹›–—…•·¡¿§¶†‡€£¥¢©®™°±×÷",
    "\u0300\u0301\u0302\u0303\u0308\u030a\u0327",
    "😀😃🎉👍🏽🇩🇪𝔘𝔫𝔦𝟘𝟙",
    "ＡＢＣａｂｃ０１２",
]
TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
SMOOTHING = [("exp", None), ("none", None), ("floor", None), ("floor", 0.1), ("floor", 0.37), ("add-k", None),
             ("add-k", 0.5), ("add-k", 2)]


def real_lines() -> List[str]:
    """Every hypothesis and reference line of the shared data (read as a scorer reads them)."""
    lines: List[str] = []
    for path in sorted(SHARED.glob("*/*")):
        if path.is_file() and (path.name.startswith("hyp") or path.name.startswith("ref")):
            with open(path, encoding="utf-8", newline="\n") as f:
                lines.extend(line.rstrip("\n") for line in f)
    if not lines:
        raise SystemExit(f"no data found under {SHARED} (set BLEUKIT_SHARED_DATA)")
    return lines


def random_text(rng: random.Random) -> str:
    """Hypothesis-style text: runs of characters from a few random pools, with words repeated."""
    pools = rng.sample(POOLS, rng.randint(1, 4))
    words = []
    for _ in range(rng.randint(0, 14)):
        pool = rng.choice(pools)
        words.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 7))))
    if words and rng.random() < 0.5:
        words += rng.sample(words, rng.randint(1, len(words)))
        rng.shuffle(words)
    sep = rng.choice([" ", " ", " ", "", "  ", "\t", "\u00a0"])
    return sep.join(words)


def mutate(rng: random.Random, line: str) -> str:
    """A line changed the way MT output differs from a reference, and the way text breaks tokenizers."""
    tokens = line.split(" ")
    for _ in range(rng.randint(0, 4)):
        op = rng.randrange(10)
        i = rng.randrange(len(tokens) + 1)
        if op == 0 and tokens:
            del tokens[min(i, len(tokens) - 1)]
        elif op == 1 and tokens:
            tokens.insert(i, rng.choice(tokens))
        elif op == 2 and len(tokens) > 1:
            j = rng.randrange(len(tokens))
            k = rng.randrange(len(tokens))
            tokens[j], tokens[k] = tokens[k], tokens[j]
        elif op == 3:
            tokens.insert(i, rng.choice(PIECES))
        elif op == 4 and tokens:
            j = min(i, len(tokens) - 1)
            tokens[j] = rng.choice([str.upper, str.lower, str.title, str.swapcase])(tokens[j])
        elif op == 5 and len(tokens) > 1:
            j = min(i, len(tokens) - 2)
            tokens[j : j + 2] = [tokens[j] + rng.choice(["", "-", ".", ",", "'"]) + tokens[j + 1]]
        elif op == 6 and tokens:
            j = min(i, len(tokens) - 1)
            w = tokens[j]
            cut = rng.randint(0, len(w))
            tokens[j : j + 1] = [w[:cut], w[cut:]]
        elif op == 7:
            tokens = tokens[: rng.randint(0, len(tokens))]
        elif op == 8 and tokens:
            j = min(i, len(tokens) - 1)
            tokens[j] = tokens[j] + rng.choice(PIECES)
        else:
            tokens.insert(i, random_text(rng))
    out = " ".join(tokens)
    r = rng.random()
    if r < 0.01:
        return ""
    if r < 0.02:
        return " " * rng.randint(1, 3)
    if r < 0.04:
        return out + rng.choice([" ", "  ", "\t", "\u00a0"])
    return out


def make_case(rng: random.Random, lines: Sequence[str], n_refs: int) -> Tuple[str, List[str]]:
    """A hypothesis and its references: mutations of one real line (so they match), or random text."""
    if rng.random() < 0.8:
        base = rng.choice(lines)
        hyp = mutate(rng, base)  # first: the draws stay in the order of the seeds' recorded runs
        return hyp, [mutate(rng, base) if rng.random() < 0.9 else rng.choice(lines) for _ in range(n_refs)]
    words = random_text(rng)
    return mutate(rng, words), [mutate(rng, words) if rng.random() < 0.7 else random_text(rng) for _ in range(n_refs)]


def draw_options(rng: random.Random, tokenizers: Sequence[str]) -> Dict[str, Any]:
    method, value = rng.choice(SMOOTHING)
    opts: Dict[str, Any] = {
        "tokenize": rng.choice(tokenizers),
        "lowercase": rng.random() < 0.3,
        "smooth_method": method,
        "max_ngram_order": rng.choice([4, 4, 4, 1, 2, 3, 5, 6]),
    }
    if value is not None:
        opts["smooth_value"] = value
    return opts


def available_tokenizers() -> List[str]:
    import bleukit

    out = list(TOKENIZERS)
    for name in ("ja-mecab", "ko-mecab"):
        try:
            bleukit.get_tokenizer(name)
            import sacrebleu.metrics.bleu as sb

            sb._get_tokenizer(name)()
            out.append(name)
        except Exception:  # noqa: BLE001 - not installed here: left out, and said so
            print(f"(tokenizer {name} not available here: left out)")
    return out


class Tally:
    def __init__(self, max_shown: int) -> None:
        self.cases: Dict[str, int] = {}
        self.diffs: Dict[str, int] = {}
        self.max_shown = max_shown
        self.shown = 0

    def add(self, kind: str, n: int) -> None:
        self.cases[kind] = self.cases.get(kind, 0) + n

    def differ(self, kind: str, what: str) -> None:
        self.diffs[kind] = self.diffs.get(kind, 0) + 1
        if self.shown < self.max_shown:
            self.shown += 1
            print(f"DIFFERENCE [{kind}] {what}", flush=True)


def run_sentences(rng, lines, tokenizers, n, batch, engines, tally) -> None:
    from sacrebleu.metrics import BLEU

    import bleukit

    done = 0
    while done < n:
        k = min(batch, n - done)
        opts = draw_options(rng, tokenizers)
        eff = rng.random() < 0.85
        n_refs = rng.choice([1, 1, 1, 2, 3, 4])
        cases = [make_case(rng, lines, n_refs) for _ in range(k)]
        metric = BLEU(effective_order=eff, **opts)
        theirs = [metric.sentence_score(h, refs).score for h, refs in cases]
        hyps = [h for h, _ in cases]
        refs = [r for _, r in cases]
        for engine in engines:
            os.environ["BLEUKIT_ENGINE"] = engine
            ours = bleukit.sentence_bleu_scores(hyps, refs, effective_order=eff, **opts).tolist()
            for i, (a, b) in enumerate(zip(ours, theirs)):
                if a != b:
                    tally.differ(f"sentence/{engine}", f"{opts} eff={eff}: {a!r} != {b!r} for {cases[i]!r}")
            tally.add(f"sentence/{engine}", k)
            # the one-sentence entry point on a sample of the batch
            for i in rng.sample(range(k), min(3, k)):
                a = bleukit.sentence_bleu(hyps[i], refs[i], effective_order=eff, **opts).score
                if a != theirs[i]:
                    what = f"{opts} eff={eff}: {a!r} != {theirs[i]!r} for {cases[i]!r}"
                    tally.differ(f"sentence_bleu/{engine}", what)
                tally.add(f"sentence_bleu/{engine}", 1)
        done += k


def _signature(text: str) -> List[str]:
    return [f for f in text.split("|") if not f.startswith(("version:", "order:"))]


def run_corpora(rng, lines, tokenizers, n, engines, tally) -> None:
    from sacrebleu.metrics import BLEU

    import bleukit

    for _ in range(n):
        opts = draw_options(rng, tokenizers)
        eff = rng.random() < 0.2
        n_refs = rng.choice([1, 1, 2, 3])
        size = rng.choice([1, 2, 3, 5, 8, 13, 21, 40, 80])
        cases = [make_case(rng, lines, n_refs) for _ in range(size)]
        hyps = [h for h, _ in cases]
        streams: List[List[Optional[str]]] = [[refs[j] for _, refs in cases] for j in range(n_refs)]
        if n_refs > 1 and rng.random() < 0.2:  # a missing reference here and there (nrefs:var)
            for i in range(size):
                if rng.random() < 0.3:
                    streams[rng.randrange(1, n_refs)][i] = None
        metric = BLEU(effective_order=eff, **opts)
        theirs = metric.corpus_score(hyps, streams)
        their_sig = _signature(str(metric.get_signature()))
        refs = bleukit.references_from_streams(streams)
        for engine in engines:
            os.environ["BLEUKIT_ENGINE"] = engine
            ours = bleukit.corpus_bleu(hyps, refs, effective_order=eff, **opts)
            same = (
                ours.score == theirs.score
                and ours.counts == list(theirs.counts)
                and ours.totals == list(theirs.totals)
                and (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
                and ours.bp == theirs.bp
                and ours.precisions == list(theirs.precisions)
                and _signature(ours.signature) == their_sig
            )
            if not same:
                tally.differ(f"corpus/{engine}", f"{opts} eff={eff}: {ours} != {theirs} ({size} sentences)")
            tally.add(f"corpus/{engine}", 1)


def draw_chrf_options(rng: random.Random) -> Dict[str, Any]:
    return {
        "char_order": rng.choice([6, 6, 6, 1, 2, 3, 4, 5]),
        "word_order": rng.choice([0, 0, 2, 2, 1]),
        "beta": rng.choice([2, 2, 2, 1, 3, 0.5]),
        "lowercase": rng.random() < 0.3,
        "whitespace": rng.random() < 0.2,
        "eps_smoothing": rng.random() < 0.2,
    }


def run_chrf_sentences(rng, lines, n, batch, engines, tally) -> None:
    from sacrebleu.metrics import CHRF

    import bleukit

    done = 0
    while done < n:
        k = min(batch, n - done)
        opts = draw_chrf_options(rng)
        n_refs = rng.choice([1, 1, 1, 2, 3, 4])
        cases = [make_case(rng, lines, n_refs) for _ in range(k)]
        metric = CHRF(**opts)
        theirs = [metric.sentence_score(h, refs).score for h, refs in cases]
        hyps = [h for h, _ in cases]
        refs = [r for _, r in cases]
        for engine in engines:
            os.environ["BLEUKIT_ENGINE"] = engine
            ours = bleukit.sentence_chrf_scores(hyps, refs, **opts).tolist()
            for i, (a, b) in enumerate(zip(ours, theirs)):
                if a != b:
                    tally.differ(f"chrf-sentence/{engine}", f"{opts}: {a!r} != {b!r} for {cases[i]!r}")
            tally.add(f"chrf-sentence/{engine}", k)
            for i in rng.sample(range(k), min(3, k)):
                a = bleukit.sentence_chrf(hyps[i], refs[i], **opts).score
                if a != theirs[i]:
                    tally.differ(f"sentence_chrf/{engine}", f"{opts}: {a!r} != {theirs[i]!r} for {cases[i]!r}")
                tally.add(f"sentence_chrf/{engine}", 1)
        done += k


def _corpus_case(rng, lines, size=None):
    n_refs = rng.choice([1, 1, 2, 3])
    size = size or rng.choice([1, 2, 3, 5, 8, 13, 21, 40, 80])
    cases = [make_case(rng, lines, n_refs) for _ in range(size)]
    hyps = [h for h, _ in cases]
    streams: List[List[Optional[str]]] = [[refs[j] for _, refs in cases] for j in range(n_refs)]
    return hyps, streams


def run_chrf_corpora(rng, lines, n, engines, tally) -> None:
    from sacrebleu.metrics import CHRF

    import bleukit

    for _ in range(n):
        opts = draw_chrf_options(rng)
        hyps, streams = _corpus_case(rng, lines)
        metric = CHRF(**opts)
        theirs = metric.corpus_score(hyps, streams)
        their_stats = [sum(c) for c in zip(*metric._extract_corpus_statistics(hyps, streams))]
        their_sig = _signature(str(metric.get_signature()))
        refs = bleukit.references_from_streams(streams)
        for engine in engines:
            os.environ["BLEUKIT_ENGINE"] = engine
            ours = bleukit.corpus_chrf(hyps, refs, **opts)
            stats = bleukit.corpus_statistics(hyps, refs, options=bleukit.ChrfOptions(**opts)).rows.sum(0).tolist()
            if not (ours.score == theirs.score and stats == their_stats and _signature(ours.signature) == their_sig):
                tally.differ(f"chrf-corpus/{engine}", f"{opts}: {ours} != {theirs} ({len(hyps)} sentences)")
            tally.add(f"chrf-corpus/{engine}", 1)


def draw_ter_options(rng: random.Random) -> Dict[str, Any]:
    return {k: rng.random() < 0.3 for k in ("normalized", "no_punct", "asian_support", "case_sensitive")}


def run_ter(rng, lines, n, engines, tally) -> None:
    """TER corpora (score, edits, reference length, signature) and their sentence scores."""
    from sacrebleu.metrics import TER

    import bleukit

    for _ in range(n):
        opts = draw_ter_options(rng)
        hyps, streams = _corpus_case(rng, lines, rng.choice([1, 2, 3, 5, 8, 13, 21]))
        metric = TER(**opts)
        theirs = metric.corpus_score(hyps, streams)
        their_sig = _signature(str(metric.get_signature()))
        refs = bleukit.references_from_streams(streams)
        their_sentences = [metric.sentence_score(h, [r for r in rs if r is not None]).score
                           for h, rs in zip(hyps, refs)]
        for engine in engines:
            os.environ["BLEUKIT_ENGINE"] = engine
            ours = bleukit.corpus_ter(hyps, refs, **opts)
            same = (ours.score == theirs.score and ours.num_edits == theirs.num_edits
                    and ours.ref_length == theirs.ref_length and _signature(ours.signature) == their_sig)
            if not same:
                tally.differ(f"ter-corpus/{engine}", f"{opts}: {ours} != {theirs} ({len(hyps)} sentences)")
            tally.add(f"ter-corpus/{engine}", 1)
            sentences = bleukit.sentence_ter_scores(hyps, refs, **opts).tolist()
            for a, b, h, r in zip(sentences, their_sentences, hyps, refs):
                if a != b:
                    tally.differ(f"ter-sentence/{engine}", f"{opts}: {a!r} != {b!r} for {(h, r)!r}")
            tally.add(f"ter-sentence/{engine}", len(hyps))


def run_bootstrap(rng, lines, tokenizers, n, engines, tally) -> None:
    """Bootstrap estimates of small corpora (100 resamples), BLEU, chrF and TER in turn."""
    from sacrebleu.metrics import BLEU, CHRF, TER

    import bleukit

    for _ in range(n):
        which = rng.randrange(3)
        hyps, streams = _corpus_case(rng, lines, rng.choice([3, 8, 20, 60, 150]))
        refs = bleukit.references_from_streams(streams)
        if which == 1:
            opts = draw_chrf_options(rng)
            metric: Any = CHRF(**opts)
            kind, ours_fn = "bootstrap-chrf", bleukit.corpus_chrf
        elif which == 2:
            opts = draw_ter_options(rng)
            metric = TER(**opts)
            kind, ours_fn = "bootstrap-ter", bleukit.corpus_ter
        else:
            opts = draw_options(rng, tokenizers)
            metric = BLEU(**opts)
            kind, ours_fn = "bootstrap-bleu", bleukit.corpus_bleu
        try:
            theirs = metric.corpus_score(hyps, streams, n_bootstrap=100)
        except TypeError:  # statistics.mean of float32 and Python 0.0 scores (chrF, TER): sacreBLEU fails
            tally.add(f"{kind} (sacreBLEU failed)", 1)
            continue
        for engine in engines:
            os.environ["BLEUKIT_ENGINE"] = engine
            ours = ours_fn(hyps, refs, n_bootstrap=100, seed=12345, **opts)
            if (ours.mean, ours.ci) != (float(theirs._mean), float(theirs._ci)):
                tally.differ(f"{kind}/{engine}", f"{opts}: {(ours.mean, ours.ci)} != {(theirs._mean, theirs._ci)}")
            tally.add(f"{kind}/{engine}", 1)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--corpora", type=int, default=20_000)
    parser.add_argument("--chrf-sentences", type=int, default=200_000)
    parser.add_argument("--chrf-corpora", type=int, default=5_000)
    parser.add_argument("--ter-corpora", type=int, default=2_000, help="TER corpora (and their sentences)")
    parser.add_argument("--bootstrap", type=int, default=1_000, help="corpora with bootstrap estimates")
    parser.add_argument("--batch", type=int, default=500, help="sentence cases per batch (one option draw)")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--engines", default="native,python")
    parser.add_argument("--show", type=int, default=20, help="differences printed in full")
    args = parser.parse_args(argv)

    import logging

    import sacrebleu

    import bleukit

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # its advice on effective order, per call
    engines = [e for e in args.engines.split(",") if e]
    rng = random.Random(args.seed)
    lines = real_lines()
    tokenizers = available_tokenizers()
    print(f"bleukit {bleukit.__version__} ({bleukit.engine_name()} kernel built), sacreBLEU {sacrebleu.__version__}, "
          f"Python {sys.version.split()[0]}; {len(lines)} real lines; tokenizers {', '.join(tokenizers)}; "
          f"engines {', '.join(engines)}; seed {args.seed}; load average {os.getloadavg()[0]:.2f}", flush=True)
    tally = Tally(args.show)
    start = time.perf_counter()
    step = max(args.batch, args.sentences // 20)
    done = 0
    while done < args.sentences:
        k = min(step, args.sentences - done)
        run_sentences(rng, lines, tokenizers, k, args.batch, engines, tally)
        done += k
        print(f"  {done} sentence cases, {sum(tally.diffs.values())} differences, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    step = max(1, args.corpora // 10)
    done = 0
    while done < args.corpora:
        k = min(step, args.corpora - done)
        run_corpora(rng, lines, tokenizers, k, engines, tally)
        done += k
        print(f"  {done} corpora, {sum(tally.diffs.values())} differences, {time.perf_counter() - start:.0f} s",
              flush=True)
    for what, total, run in (
        ("chrF sentence cases", args.chrf_sentences,
         lambda k: run_chrf_sentences(rng, lines, k, args.batch, engines, tally)),
        ("chrF corpora", args.chrf_corpora, lambda k: run_chrf_corpora(rng, lines, k, engines, tally)),
        ("TER corpora", args.ter_corpora, lambda k: run_ter(rng, lines, k, engines, tally)),
        ("bootstrap corpora", args.bootstrap, lambda k: run_bootstrap(rng, lines, tokenizers, k, engines, tally)),
    ):
        step = max(1, total // 5)
        done = 0
        while done < total:
            k = min(step, total - done)
            run(k)
            done += k
            print(f"  {done} {what}, {sum(tally.diffs.values())} differences, {time.perf_counter() - start:.0f} s",
                  flush=True)
    print(f"done in {time.perf_counter() - start:.0f} s; load average {os.getloadavg()[0]:.2f}")
    print(f"{'what':34s} {'cases':>10s} {'differences':>12s}")
    for kind in sorted(tally.cases):
        print(f"{kind:34s} {tally.cases[kind]:10d} {tally.diffs.get(kind, 0):12d}")
    return 1 if tally.diffs else 0


if __name__ == "__main__":
    sys.exit(main())
