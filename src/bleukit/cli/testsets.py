"""The command line's test-set options, sacreBLEU 2.6's: ``-t``, ``--echo``, ``--list``, ``--citation``,
``--download``, ``--origlang``, ``--subset``, ``-d``, on the cache of :mod:`bleukit.testsets`.

Output is sacreBLEU's byte for byte; where 2.6 crashes bleukit does what the option says
(docs/sacrebleu.md lists each difference): ``--citation`` prints the BibTeX, ``--download`` without
``-l`` fetches every pair, ``--origlang``/``--subset``/``-d`` work on the pairs that name their
references, ``ref:A``/``ref:B`` are in sorted order, the empty-subset message names the regex once,
``-d --origlang xx`` shows that language (2.6 splits it into letters).
"""

from __future__ import annotations

import argparse
from typing import IO, Any, Dict, List, Optional, Sequence, Tuple

from ..testsets import cache as tcache
from ..testsets import echo, registry
from .io import CliError

__all__ = ["add_arguments", "early", "references", "filter_documents", "detail", "TESTSET_ERRORS"]

#: the errors of the test-set layer that the command line prints as one line
TESTSET_ERRORS = (registry.RegistryError, tcache.CacheError)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """sacreBLEU's test-set options (its flags, destinations and help)."""
    p.add_argument("--citation", "--cite", default=False, action="store_true",
                   help="Dump the bibtex citation and quit.")
    p.add_argument("--list", default=False, action="store_true", help="Print a list of all available test sets.")
    p.add_argument("--test-set", "-t", type=str, default=None,
                   help="The test set to use (see also --list) or a comma-separated list of test sets to be "
                        "concatenated.")
    p.add_argument("--origlang", "-ol", dest="origlang", default=None,
                   help='Use a subset of sentences with a given original language (2-char ISO639-1 codes), "non-" '
                        "prefix means negation.")
    p.add_argument("--subset", dest="subset", default=None,
                   help="Use a subset of sentences whose document annotation matches a given regex.")
    p.add_argument("--download", type=str, default=None, help="Download a test set and quit.")
    p.add_argument("--echo", nargs="+", type=str, default=None,
                   help="Output the source (src), reference (ref), or other available field (docid, ref:A, ...) "
                        "to STDOUT and quit; `--echo all` outputs every field.")
    p.add_argument("--detail", "-d", default=False, action="store_true",
                   help="Print detailed information (split test sets based on origlang).")


def _sets(args: argparse.Namespace) -> List[str]:
    return args.test_set.split(",") if args.test_set else []


def early(args: argparse.Namespace, out: IO, log: Any) -> Optional[int]:
    """The options that print and exit, and the checks sacreBLEU makes before reading anything;
    the exit status, or ``None`` to go on scoring."""
    if args.download:
        info = registry.get(args.download)
        for pair in [args.langpair] if args.langpair else list(info.langpairs):
            tcache.field_paths(info, pair, tcache.fieldnames(info, pair))
        return 0
    if args.list:
        _list(args, out)
        return 0
    if args.sentence_level and len(args.metrics) > 1:
        raise CliError("Only one metric can be used in sentence-level mode.")
    if args.citation:
        if not args.test_set:
            raise CliError("I need a test set (-t).")
        for name in _sets(args):
            cite = registry.get(name).citation
            if cite:
                out.write(cite + "\n")
            else:
                log.error(f"No citation found for {name}")
        return 0
    if args.num_refs != 1 and (args.test_set is not None or len(args.refs) > 1):
        raise CliError("The --num-refs argument allows you to provide any number of tab-delimited references in a "
                       "single file; you can only use it with externally provided references (not with -t), and "
                       "you cannot then provide multiple reference files.")
    if args.test_set is None:
        if args.echo or args.origlang or args.subset:
            raise CliError("--echo, --origlang and --subset need a test set (-t) and a language pair (-l)")
        return None
    for name in _sets(args):
        if name not in registry.testset_names():
            raise CliError(f"Unknown test set {name!r}; run with --list to see the available test sets.")
    if args.refs:
        raise CliError("I need exactly one of (a) a predefined test set (-t) or (b) a list of references")
    if args.langpair is None:
        raise CliError("I need a language pair (-l). Use --list to see available language pairs for this test set.")
    for name in _sets(args):
        pairs = registry.langpairs_for(name)
        if args.langpair not in pairs:
            raise CliError(f"No such language pair {args.langpair!r}; available language pairs for {name!r}: "
                           f"{', '.join(pairs)}")
    if args.echo:
        for name in _sets(args):
            out.write(echo(name, args.langpair, args.echo, args.origlang, args.subset))
        return 0
    if args.tokenize == "none":
        log.warning("You are turning off BLEU's internal tokenizer presumably to supply your own tokenized files.")
        log.warning("Published numbers will not be comparable to other papers.")
    return None


def _list(args: argparse.Namespace, out: IO) -> None:
    if args.test_set:
        info = registry.get(args.test_set)
        for pair in [args.langpair] if args.langpair else list(info.langpairs):
            out.write(f"{pair}: {', '.join(tcache.fieldnames(info, pair))}\n")
        return
    from ..testsets import testsets_for_langpair

    # sacreBLEU's sets only, so that the list stays 2.6's byte for byte (wmt25: --list -t wmt25)
    if args.langpair:
        out.write(f"The available test sets for {args.langpair} are:\n")
        names = [n for n in testsets_for_langpair(args.langpair) if n in registry.SACREBLEU_TESTSETS]
    else:
        out.write("The available test sets are:\n")
        names = list(registry.SACREBLEU_TESTSETS)
    for name in sorted(names):
        out.write(f"{name:<30}: {registry.get(name).description.strip()}\n")


def references(args: argparse.Namespace, log: Any) -> Tuple[List[str], List[List[str]]]:
    """The reference streams of ``-t`` (sets concatenated) and a label for each."""
    per_set = []
    for name in _sets(args):
        info = registry.get(name)
        fields = tcache.reference_fields(info, args.langpair)
        if not fields:
            log.warning(f"No references found for test set {name}/{args.langpair}.")
        per_set.append(tcache.field_lines(info, args.langpair, fields))
    n = max(len(per_set[0]), args.num_refs)
    streams: List[List[str]] = [[] for _ in range(n)]
    for lines in per_set:
        for k, stream in enumerate(lines):
            streams[k].extend(stream)
    return [f"{args.test_set}:{args.langpair} reference {k + 1}" for k in range(n)], streams


def _mask(args: argparse.Namespace, origlang: Optional[str], subset: Optional[str]) -> List[bool]:
    keep: List[bool] = []
    for name in _sets(args):
        keep += tcache.keep_mask(registry.get(name), args.langpair, origlang, subset)
    return keep


def filter_documents(systems: List[List[str]], refs: List[List[str]], args: argparse.Namespace
                     ) -> Tuple[List[List[str]], List[List[str]]]:
    """``--origlang``/``--subset``: the segments of the documents kept (an error when none is)."""
    if args.origlang is None and args.subset is None:
        return systems, refs
    keep = _mask(args, args.origlang, args.subset)
    pick = [[s for s, ok in zip(stream, keep) if ok] for stream in [*systems, *refs]]
    systems, refs = pick[:len(systems)], pick[len(systems):]
    if any(len(s) == 0 for s in systems):
        message = f"Test set {args.test_set!r} contains no sentence with"
        if args.origlang:
            message += f" origlang={args.origlang}"
        if args.subset:
            message += f" subset={args.subset}"
        raise CliError(message)
    return systems, refs


def detail(system: List[str], refs: List[List[str]], metrics: Sequence[Any], args: argparse.Namespace,
           colors: Any, out: IO) -> None:
    """``-d``: one row per original language × domain (or country), the full system and references."""
    from ..pipeline import corpus_result

    def reference_entries(streams: List[List[str]]) -> List[Any]:  # one entry per segment
        return streams[0] if len(streams) == 1 else list(zip(*streams))

    sets = [registry.get(n) for n in _sets(args)]
    if args.origlang:
        origlangs = [args.origlang]
    else:
        origlangs = sorted({o for info in sets for o in tcache.available_origlangs(info, args.langpair)})
    if not origlangs:
        out.write("No subset information found. Consider using --origlang argument.\n")
        return
    subsets: List[Optional[str]] = [None]
    if args.subset is not None:
        subsets.append(args.subset)
    else:
        subsets += sorted({s for info in sets for s in tcache.available_subsets(info, args.langpair)})
    rows: Dict[str, List[Tuple[int, Any]]] = {}
    for origlang in origlangs:
        for subset in subsets:
            keep = _mask(args, origlang, subset)
            hyp = [s for s, ok in zip(system, keep) if ok]
            if not hyp:
                continue
            sub_refs = [[s for s, ok in zip(stream, keep) if ok] for stream in refs]
            key = f"origlang={origlang}"
            key += " domain=ALL" if subset is None else (f" country={subset[8:]}" if subset.startswith("country:")
                                                          else f" domain={subset}")
            rows[key] = [(len(hyp), corpus_result(hyp, reference_entries(sub_refs), m)) for m in metrics]
    if not rows:
        return
    left = max(len(k) for k in rows) + 1
    name_width = max(len(r.name) for _, r in next(iter(rows.values())))
    w = args.width
    lines = []
    for key, results in rows.items():
        label = colors.format(f"{key:<{left}}", "yellow")
        for n, result in results:
            lines.append(f"{label}: sentences={n:<6} {result.name:<{name_width}} = {result.score:.{w}f}")
    out.write("".join(line + "\n" for line in lines))

