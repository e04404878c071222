"""The app's form: its limits and choices, and the checks that turn the page's fields (text
boxes, uploads, number boxes) and the API's arguments into the library's inputs and options, or a
``ValueError``/``TypeError`` whose message the page shows as it is.

The option ranges are the library's (:class:`bleukit.BleuOptions`, :func:`bleukit.inputs.check_seed`,
:func:`bleukit.analysis.significance.check_test`); the app adds only the limits that keep one request from
exhausting a shared server (documented in docs/app.md).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from bleukit.analysis.score_files import FORMATS
from bleukit.analysis.score_table import read_score_files, system_name
from bleukit.analysis.segment_scores import ScoreInputError, SegmentScores
from bleukit.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from bleukit.inputs import check_seed, check_sequence
from bleukit.metrics import get_metric
from bleukit.metrics.base import MetricOptions
from bleukit.metrics.bleu.options import OPTION_NAMES, SMOOTH_DEFAULTS, BleuOptions, check_max_ngram_order
from bleukit.tokenizers import TOKENIZERS, get_tokenizer

# Limits that keep one request from exhausting the server (documented in docs/app.md).


MAX_REFERENCE_SETS = 4
MAX_SEGMENTS = 10_000  # lines per text field
MAX_CHARS = 2_000_000  # characters per text field
MAX_MAX_ORDER = 10  # largest max n-gram order offered
MAX_UPLOAD_BYTES = 5_000_000  # per uploaded file: read_upload names a larger one
#: Gradio's own cap on an upload, a backstop far above ours so that our message is the one seen
#: (a larger file never reaches the server; Gradio says so in its own words).
MAX_FILE_SIZE = "50mb"
MAX_TABLE_CHARS = 200  # hypothesis text shown per table row (the JSON has it whole)
MAX_SHOWN_TOKENS = 1_000  # tokens drawn per segment in "why this score" (the rest is announced)
MAX_SHOWN_NGRAMS = 200  # n-grams listed per cell of the per-order table (likewise)
MAX_EXPLAIN_CHARS = 50_000  # characters per segment explained (the page's "why this score", /explain)
MAX_EXPLAIN_TOKENS = 5_000  # tokens per segment explained: about a second for a hypothesis and 4 references
MAX_SEED = 2**64 - 1  # JSON readers (and Gradio's own encoder) take 64-bit integers
MAX_SYSTEMS = 5  # systems in one comparison (the first is the baseline)
MAX_NAME_CHARS = 80  # characters of a system name
MAX_PAIRED_SAMPLES = 20_000  # resamples or randomization trials per comparison
SIGNIFICANCE_LEVEL = 0.05
MAX_SCORE_FILES = 50  # segment-score files in one table (WMT25: one file per system, 40 systems a pair)
MAX_TABLE_SYSTEMS = 50  # systems in one table of systems × metrics (780 pairs at 40)
#: The formats of segment-score files, by their label on the page (``bleukit.read_scores``'s names).
SCORE_FORMATS = {"told from each file": "auto", **{name: name for name in FORMATS}}
#: WMT's AutoRank over the table's metrics, by its label on the page (bleukit.autorank's methods).
AUTORANK_CHOICES = {"none": None, "WMT25 (scaled by median and P100 − P25)": "wmt25",
                    "WMT24 (each metric mapped to [1, N])": "wmt24"}
PLOT_BINS = 30  # histogram bins of the bootstrap distributions (shared by every system)
SORT_CHOICES = ["input order", "lowest BLEU first", "highest BLEU first"]
TABLE_COLUMNS = ["line", "sentence BLEU", "hyp len", "ref len", "hypothesis"]
ALL_ORDERS = "all orders (highest match)"
#: The paired tests the compare tab offers, by their label on the page (sacreBLEU's names as keys).
METHODS = {"paired bootstrap": "bs", "approximate randomization": "ar"}
#: What the compare tab tests, by its label on the page: sacreBLEU's comparison with the baseline,
#: or every pair with a ranking and significance clusters (bleukit.compare_systems).
COMPARISONS = {"each against the baseline": "baseline", "all pairs: ranking with clusters": "rank"}
#: The multiple-comparison corrections, by their label on the page (bleukit.analysis.significance.adjust_p_values).
CORRECTIONS = {"none (as sacreBLEU)": None, "Holm-Bonferroni": "holm", "Bonferroni": "bonferroni"}
RANKING_COLUMNS = ["rank", "cluster", "rank range", "system", "score"]  # the score's column: the metric's name
COMPARE_COLUMNS = ["system", "BLEU", "mean ± 95% CI", "p-value", f"significant (p < {SIGNIFICANCE_LEVEL})"]
VARIANT_COLUMNS = ["variant", "BLEU", "differs from sacreBLEU by"]
#: The metrics a user can pick, by their label on the page: (metric name, option keywords). BLEU
#: takes the form's options; the others sacreBLEU's defaults (``-m chrf``, ``-m chrf
#: --chrf-word-order 2``, ``-m ter``). Any metric of the protocol fits here.
METRIC_CHOICES: Dict[str, Tuple[str, Dict[str, Any]]] = {
    "BLEU": ("bleu", {}),
    "chrF": ("chrf", {}),
    "chrF++": ("chrf", {"word_order": 2}),
    "TER": ("ter", {}),
}
OTHER_METRICS = [label for label in METRIC_CHOICES if label != "BLEU"]
#: The chrF and TER options the compare tab sets, in the order of its inputs (chrF's word order is
#: the choice's: 0 for chrF, 2 for chrF++); their defaults and ranges are the library's.
CHRF_FORM_OPTIONS = ("char_order", "beta", "lowercase", "whitespace", "eps_smoothing")
TER_FORM_OPTIONS = ("normalized", "no_punct", "asian_support", "case_sensitive")
MAX_CHAR_ORDER = 10  # largest character n-gram order offered (the library takes more; the page caps the work)
METRIC_COLUMNS = ["metric", "score", "better", "signature"]


@dataclass(frozen=True)
class ScoreTableDefaults:
    """The "Systems × metrics" tab's settings as the page opens (and ``/scores``'s defaults): one
    place for both. Labels as on the page; ``n_samples`` ``None``: the test's own default
    (sacreBLEU's, as the compare tab's). The files, metric name, language pair, lower-is-better
    metrics and text metrics start empty."""

    score_format: str = next(iter(SCORE_FORMATS))
    method: str = next(iter(METHODS))
    n_samples: Optional[int] = None
    seed: int = DEFAULT_SEED
    correction: str = "Holm-Bonferroni"
    autorank: str = next(iter(AUTORANK_CHOICES))
    drop_missing: bool = False


#: The "Systems × metrics" tab's settings as the page opens, and ``/scores``'s defaults.
SCORE_TABLE_DEFAULTS = ScoreTableDefaults()
assert SCORE_TABLE_DEFAULTS.correction in CORRECTIONS
#: The corpus defaults, read from the core (never spelled out here).
DEFAULTS = BleuOptions()
#: The options the form sets, in the order of its inputs (``weights`` has no control on the page).
FORM_OPTIONS = ("tokenize", "smooth_method", "smooth_value", "lowercase", "max_ngram_order", "effective_order")
assert set(FORM_OPTIONS) <= set(OPTION_NAMES)
BOM = "\ufeff"


def available_tokenizers() -> List[str]:
    """Tokenizers that work in this environment (MeCab ones need their optional extras).

    >>> {"13a", "intl", "zh", "char", "none"} <= set(available_tokenizers())
    True
    """
    names = []
    for name in TOKENIZERS:
        try:
            if TOKENIZERS[name].startswith("spm:"):  # a model already there: listing never downloads one
                from bleukit.tokenizers.spm import spm_model_path

                spm_model_path(name, download=False)
            get_tokenizer(name)("test")
        except Exception:  # a missing optional dependency only hides that choice
            continue
        names.append(name)
    return names


def split_lines(text: Optional[str], what: str) -> List[str]:
    """Segments of a text field: one per line, a final line end does not start an empty segment.

    >>> split_lines("a\\r\\nb\\n", "hypotheses")
    ['a', 'b']
    """
    if text is None:
        return []
    if not isinstance(text, str):
        raise TypeError(f"{what} must be one text with one segment per line, got {type(text).__name__}")
    if not text.strip():
        return []
    if len(text) > MAX_CHARS:
        raise ValueError(f"{what}: {len(text):,} characters is over the limit of {MAX_CHARS:,} per field")
    text = text.replace("\r\n", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    lines = text.split("\n")
    if len(lines) > MAX_SEGMENTS:
        raise ValueError(f"{what}: {len(lines):,} lines is over the limit of {MAX_SEGMENTS:,} segments")
    return lines


def read_upload(path: Optional[str], what: str) -> str:
    """An uploaded file's text, whatever its name ends with (``.de``, ``.zh``, ``.txt`` ...): at
    most ``MAX_UPLOAD_BYTES``, text (no NUL byte) in UTF-8 and within the field limits, or a
    ValueError naming the file and what to do. A byte-order mark stays (see
    :func:`bleukit.app.views.bom_notes`).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "news.de").write_bytes("Grüße\\n".encode("utf-8")) and read_upload(str(folder / "news.de"), "File")
    'Grüße\\n'
    >>> (folder / "latin1.de").write_bytes("Grüße".encode("latin-1")) and read_upload(str(folder / "latin1.de"), "File")
    Traceback (most recent call last):
    ...
    ValueError: File latin1.de is not UTF-8 text (invalid start byte at byte 2): save it as UTF-8 and upload it again.
    """
    if not path:
        return ""
    text = _upload_text(Path(path), f"{what} {Path(path).name}")
    split_lines(text, f"{what} {Path(path).name}")  # size limits, with the same message as pasted text
    return text


def _upload_text(file: Path, what: str) -> str:
    """An uploaded file's bytes as text: at most ``MAX_UPLOAD_BYTES``, no NUL byte, UTF-8."""
    size = file.stat().st_size
    if size > MAX_UPLOAD_BYTES:
        raise ValueError(
            f"{what} is {size:,} bytes: uploads are limited to {MAX_UPLOAD_BYTES:,} bytes per file. "
            "Upload a part of it (the score of a larger corpus: the bleukit command line)."
        )
    data = file.read_bytes()
    nul = data.find(b"\0")
    if nul >= 0:  # valid UTF-8, yet no text file holds one: an image, an archive, UTF-16 text
        raise ValueError(
            f"{what} is not a text file (a NUL byte at byte {nul}): upload UTF-8 text, "
            "one segment per line."
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(
            f"{what} is not UTF-8 text ({e.reason} at byte {e.start}): save it as UTF-8 and upload it again."
        ) from None


def read_score_uploads(
    paths: Optional[Sequence[str]],
    score_format: str = "auto",
    metric: Optional[str] = None,
    language_pair: Optional[str] = None,
    lower_is_better: Optional[str] = None,
) -> SegmentScores:
    """Uploaded segment-score files as one table, read as ``bleukit-scores`` reads them
    (:func:`bleukit.analysis.score_table.read_score_files`: format told from each file's name and
    content unless ``score_format`` says it, systems named after the files), each file first checked
    as text uploads are (size, NUL byte, UTF-8); ``lower_is_better``: metric names, comma-separated.
    A bad file is one ValueError naming it (by its uploaded name) and, where the reader knows it,
    the line.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "sysA.txt").write_text("0.5\\n0.7\\n", encoding="utf-8")
    >>> _ = (folder / "sysB.txt").write_text("0.4\\nabc\\n", encoding="utf-8")
    >>> read_score_uploads([str(folder / "sysA.txt")], metric="judge").systems
    ('sysA',)
    >>> read_score_uploads([str(folder / "sysA.txt"), str(folder / "sysB.txt")])
    Traceback (most recent call last):
    ...
    ValueError: sysB.txt, line 2: 'abc' is not a number
    """
    paths = [p for p in (paths or []) if p]
    if not paths:
        raise ValueError("No score files: upload one or more segment-score files (COMET, MetricX, WMT25, "
                         "mt-metrics-eval, one number per line, TSV/CSV).")
    if len(paths) > MAX_SCORE_FILES:
        raise ValueError(f"At most {MAX_SCORE_FILES} score files, got {len(paths)}.")
    fmt = SCORE_FORMATS.get(score_format, score_format) if score_format else "auto"
    if fmt not in SCORE_FORMATS.values():
        raise ValueError(f"unknown score format {score_format!r}: choose one of {', '.join(SCORE_FORMATS.values())}")
    for p in paths:
        _upload_text(Path(p), f"The score file {Path(p).name}")
    lower = [m.strip() for m in (lower_is_better or "").split(",") if m.strip()]
    try:
        table = read_score_files(paths, format=fmt, metric=(metric or "").strip() or None,
                                 language_pair=(language_pair or "").strip() or None, lower_is_better=lower)
    except (ScoreInputError, ValueError, KeyError) as e:  # the server's upload folders are not the user's
        message = str(e.args[0] if isinstance(e, KeyError) and e.args else e)
        for p in sorted(paths, key=len, reverse=True):
            message = message.replace(str(p), Path(p).name)
        message = message.replace("with language_pair=", "in the language pair box")
        raise ValueError(message) from None
    if len(table.systems) > MAX_TABLE_SYSTEMS:
        raise ValueError(f"The score files hold {len(table.systems)} systems: at most {MAX_TABLE_SYSTEMS}.")
    for name in table.systems:
        if len(name) > MAX_NAME_CHARS:
            raise ValueError(f"The system name {name[:MAX_NAME_CHARS]!r}… is {len(name)} characters long; "
                             f"at most {MAX_NAME_CHARS}.")
    return table


def read_system_uploads(
    system_paths: Optional[Sequence[str]], reference_paths: Optional[Sequence[str]]
) -> Tuple[Dict[str, List[str]], List[List[str]]]:
    """Uploaded hypothesis files (one per system, named as its score files name it: ``sysA.txt``
    is system ``sysA``) and reference files (one reference set each), read as the other tabs'
    uploads (:func:`read_upload`), as ``score_table``'s ``hypotheses`` and ``references``; or a
    ValueError naming the file.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name, text in (("sysA.txt", "a b\\nc"), ("sysB.de", "a\\nc"), ("ref.txt", "a b\\nc d")):
    ...     _ = (folder / name).write_text(text, encoding="utf-8")
    >>> read_system_uploads([str(folder / "sysA.txt"), str(folder / "sysB.de")], [str(folder / "ref.txt")])
    ({'sysA': ['a b', 'c'], 'sysB.de': ['a', 'c']}, [['a b'], ['c d']])
    """
    system_paths = [p for p in (system_paths or []) if p]
    reference_paths = [p for p in (reference_paths or []) if p]
    if not system_paths or not reference_paths:
        raise ValueError("BLEU, chrF and TER need the systems' text files and 1 to "
                         f"{MAX_REFERENCE_SETS} reference files: upload both, or pick no text metric.")
    if len(system_paths) > MAX_TABLE_SYSTEMS:
        raise ValueError(f"At most {MAX_TABLE_SYSTEMS} system files, got {len(system_paths)}.")
    if len(reference_paths) > MAX_REFERENCE_SETS:
        raise ValueError(f"At most {MAX_REFERENCE_SETS} reference files, got {len(reference_paths)}.")
    hypotheses: Dict[str, List[str]] = {}
    for k, p in enumerate(system_paths, start=1):
        name = system_name(p)
        if name in hypotheses:
            raise ValueError(f"System file {Path(p).name} names system {name!r} a second time.")
        lines = split_lines(read_upload(p, f"System file {k}"), f"system file {Path(p).name}")
        if not lines:
            raise ValueError(f"System file {Path(p).name} is empty.")
        hypotheses[name] = lines
    first, base = next(iter(hypotheses.items()))
    for name, lines in hypotheses.items():
        if len(lines) != len(base):
            raise ValueError(f"System {name!r} has {len(lines)} line(s) but {first!r} has {len(base)}: every "
                             "system must translate the same segments, line by line.")
    sets: List[str] = []
    for k, p in enumerate(reference_paths, start=1):  # sacreBLEU's --num-refs layout: a set per column
        text = read_upload(p, f"Reference file {k}")
        sets.extend(tab_separated_references(text) or [text])
    if len(sets) > MAX_REFERENCE_SETS:
        raise ValueError(f"The reference files hold {len(sets)} reference sets (tab-separated columns count one "
                         f"each): at most {MAX_REFERENCE_SETS}.")
    _, references = parse_corpus("\n".join(base), sets)
    return hypotheses, references


def tab_separated_references(text: Optional[str]) -> Optional[List[str]]:
    """The reference sets of sacreBLEU's ``--num-refs`` layout (several references per line, cut
    by tabs), one text per set, when every line of ``text`` holds the same number (one or more) of
    tabs; ``None`` for any other text. Such a file read as one set would score each line's
    references glued into one, a wrong number, so uploads are split and a pasted one is refused.

    >>> tab_separated_references("a b\\tA B\\nc\\tC\\n")
    ['a b\\nc\\n', 'A B\\nC\\n']
    >>> tab_separated_references("a b\\nc\\tC") is None
    True
    """
    lines = split_lines(text, "reference set")
    counts = {line.count("\t") for line in lines}
    if len(counts) != 1 or counts == {0}:
        return None
    columns = zip(*(line.split("\t") for line in lines))
    return ["".join(f"{line}\n" for line in column) for column in columns]


def testset_references(testset: Optional[str], langpair: Optional[str]) -> Tuple[List[str], List[List[str]]]:
    """A registered test set's scoring references (``bleukit -t NAME -l PAIR``'s, from sacreBLEU's
    cache, ``$SACREBLEU``, downloaded where it is missing and the network allows): their field
    names and one list of segments each. Every problem is a ``ValueError`` naming it: no name or
    pair, an unknown one (with what there is), a cache that cannot be filled, more references than
    the form's boxes.

    >>> testset_references("wmt22", "")
    Traceback (most recent call last):
    ...
    ValueError: Give a test set and its language pair, e.g. wmt22 and de-en (bleukit --list shows the test sets).
    """
    from bleukit import testsets

    name, pair = (testset or "").strip(), (langpair or "").strip()
    if not name or not pair:
        raise ValueError("Give a test set and its language pair, e.g. wmt22 and de-en (bleukit --list shows the "
                         "test sets).")
    if name not in testsets.testsets():
        raise ValueError(f"Unknown test set {name!r} (bleukit --list shows the test sets).")
    if pair not in testsets.langpairs(name):
        raise ValueError(f"{name} has no language pair {pair!r}; it has {', '.join(testsets.langpairs(name))}.")
    try:
        loaded = testsets.load(name, pair)
    except (testsets.CacheError, testsets.RegistryError, OSError) as e:
        raise ValueError(f"Cannot read {name} {pair}: {e}") from None
    streams = loaded.reference_streams
    if not streams:
        raise ValueError(f"{name} {pair} has no references to score with.")
    if len(streams) > MAX_REFERENCE_SETS:
        raise ValueError(f"{name} {pair} scores with {len(streams)} references: at most {MAX_REFERENCE_SETS} here.")
    return list(loaded.reference_names), [list(s) for s in streams]


def parse_corpus(
    hypotheses: Optional[str], reference_sets: Sequence[Optional[str]]
) -> Tuple[List[str], List[List[str]]]:
    """Hypotheses and per-hypothesis references from the text fields, or a ValueError saying what
    to fix. Empty reference sets are skipped; an empty line inside a used set is an empty reference,
    as in sacreBLEU.

    >>> parse_corpus("a b\\nc", ["a b\\nc d", "", "a\\nc"])
    (['a b', 'c'], [['a b', 'a'], ['c d', 'c']])
    """
    hyps = split_lines(hypotheses, "hypotheses")
    if not hyps:
        raise ValueError("The hypotheses are empty: paste one segment per line or upload a text file.")
    if isinstance(reference_sets, str):
        raise TypeError("reference sets must be a list of texts (one per set), got a single string")
    if len(reference_sets) > MAX_REFERENCE_SETS:
        raise ValueError(f"At most {MAX_REFERENCE_SETS} reference sets, got {len(reference_sets)}.")
    sets = []
    for k, text in enumerate(reference_sets, start=1):
        lines = split_lines(text, f"reference set {k}")
        if not lines:
            continue
        columns = tab_separated_references(text)
        if columns is not None:
            raise ValueError(
                f"Reference set {k} holds {len(columns)} tab-separated references per line (sacreBLEU's "
                "--num-refs layout): put each reference set in its own box (uploading the file splits it), "
                "or replace the tabs with spaces if they belong to one reference."
            )
        if len(lines) != len(hyps):
            raise ValueError(
                f"Reference set {k} has {len(lines)} line(s) but there are {len(hyps)} hypotheses: "
                "line i of every reference set must be a reference of hypothesis line i."
            )
        sets.append(lines)
    if not sets:
        raise ValueError("No references: fill at least one reference set (one segment per line).")
    return hyps, [list(refs) for refs in zip(*sets)]


def make_options(
    tokenize: str = DEFAULTS.tokenize,
    smooth_method: str = DEFAULTS.smooth_method,
    smooth_value: Union[float, str, None] = None,
    lowercase: bool = DEFAULTS.lowercase,
    max_ngram_order: int = DEFAULTS.max_ngram_order,
    effective_order: bool = DEFAULTS.effective_order,
) -> BleuOptions:
    """Corpus options from the form (the core validates them; the defaults are the core's).

    >>> make_options("intl", "floor", 0.2, max_ngram_order=3).signature(1)  # doctest: +ELLIPSIS
    'nrefs:1|case:mixed|eff:no|tok:intl|smooth:floor[0.20]|order:3|version:bleukit-...'
    >>> make_options(smooth_method="add-k", smooth_value=" ").resolved_smooth_value  # the page's empty box
    1
    """
    if isinstance(smooth_value, str):
        # The page's box is text, so that "no value" shows empty instead of a misleading 0.
        text = smooth_value.strip()
        try:
            smooth_value = float(text) if text else None
        except ValueError:
            raise ValueError(f"smoothing value must be a number, got {smooth_value!r}") from None
    order = whole_number(max_ngram_order, "max n-gram order")
    if order is None:
        raise ValueError(f"max n-gram order is empty: give a whole number from 1 to {MAX_MAX_ORDER}")
    if order > MAX_MAX_ORDER or order < 1:  # the library takes any order >= 1; the page caps the work
        raise ValueError(f"max n-gram order must be between 1 and {MAX_MAX_ORDER}, got {order}")
    check_max_ngram_order(order)
    if smooth_value is not None and SMOOTH_DEFAULTS.get(smooth_method, 0) is None:
        smooth_value = None  # exp and none take no value; a leftover number in the form is ignored
    return BleuOptions.from_keywords(
        {
            "tokenize": tokenize,
            "lowercase": bool(lowercase),
            "smooth_method": smooth_method,
            "smooth_value": float(smooth_value) if smooth_value is not None else None,
            "max_ngram_order": order,
            "effective_order": bool(effective_order),
        }
    )


def metric_options(
    metric: str, bleu_options: Optional[BleuOptions] = None, keywords: Optional[Dict[str, Any]] = None
) -> MetricOptions:
    """The options of a metric picked on the page (a :data:`METRIC_CHOICES` label): BLEU's are the
    form's (``bleu_options``); chrF's and TER's are sacreBLEU's defaults where ``keywords`` (the
    form's :data:`CHRF_FORM_OPTIONS` or :data:`TER_FORM_OPTIONS`, as the page gives them) set none.
    The library checks every value (:meth:`~bleukit.metrics.base.MetricOptions.from_keywords`).

    >>> metric_options("TER").signature(1).split("|")[:3]
    ['nrefs:1', 'case:lc', 'tok:tercom']
    >>> o = metric_options("chrF++", keywords={"char_order": 4.0, "beta": "3", "whitespace": True})
    >>> o.char_order, o.word_order, o.beta, o.whitespace
    (4, 2, 3, True)
    """
    if metric not in METRIC_CHOICES:
        raise ValueError(f"unknown metric {metric!r}: choose one of {', '.join(METRIC_CHOICES)}")
    name, fixed = METRIC_CHOICES[metric]
    if name == "bleu":
        return bleu_options if bleu_options is not None else DEFAULTS
    options_type = get_metric(name).options_type
    given = {k: v for k, v in (keywords or {}).items() if k in options_type.option_names() and v is not None}
    if "char_order" in given:
        order = whole_number(given["char_order"], "character n-gram order")
        if order is not None and not 1 <= order <= MAX_CHAR_ORDER:
            raise ValueError(f"character n-gram order must be between 1 and {MAX_CHAR_ORDER}, got {order}")
        given["char_order"] = order
    if isinstance(given.get("beta"), str):
        try:
            given["beta"] = float(given["beta"]) if given["beta"].strip() else None
        except ValueError:
            raise ValueError(f"beta must be a number, got {given['beta']!r}") from None
    if isinstance(given.get("beta"), float) and given["beta"].is_integer():
        given["beta"] = int(given["beta"])  # a number box's 2.0 is sacreBLEU's beta 2 (and its signature)
    return options_type.from_keywords({**{k: v for k, v in given.items() if v is not None}, **fixed})


def parse_systems(
    system_texts: Sequence[Optional[str]], names: Sequence[Optional[str]], reference_sets: Sequence[Optional[str]]
) -> Tuple[List[Tuple[str, List[str]]], List[List[str]]]:
    """Named systems (the first filled box is the baseline) and per-hypothesis references from the
    compare tab's fields, or a ValueError saying what to fix. Empty system boxes are skipped; a
    system without a name is called by its box ("system 2"). References as in :func:`parse_corpus`.

    >>> parse_systems(["a b\\nc", "", "a\\nc d"], ["base", "", ""], ["a b\\nc d"])
    ([('base', ['a b', 'c']), ('system 3', ['a', 'c d'])], [['a b'], ['c d']])
    """
    if isinstance(system_texts, str) or isinstance(names, str):
        raise TypeError("systems and names must be lists of texts (one per system), got a single string")
    if len(system_texts) > MAX_SYSTEMS:
        raise ValueError(f"At most {MAX_SYSTEMS} systems, got {len(system_texts)}.")
    names = list(names or []) + [None] * (len(system_texts) - len(names or []))
    if len(names) > len(system_texts):
        raise ValueError(f"{len(names)} names for {len(system_texts)} systems: give one name per system.")
    filled = []
    for k, (text, name) in enumerate(zip(system_texts, names), start=1):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"the name of system {k} must be a string, got {type(name).__name__}")
        name = (name or "").strip() or f"system {k}"
        if len(name) > MAX_NAME_CHARS:
            raise ValueError(f"The name of system {k} is {len(name)} characters long; at most {MAX_NAME_CHARS}.")
        lines = split_lines(text, f"system {k} ({name})")
        if lines:
            filled.append((name, lines))
    if len(filled) < 2:
        raise ValueError(
            f"Fill at least 2 systems (the first is the baseline), one segment per line; got {len(filled)}."
        )
    seen = {}
    for name, _ in filled:
        if name in seen:
            raise ValueError(f"Two systems are named {name!r}: give each system its own name.")
        seen[name] = True
    (base_name, base), others = filled[0], filled[1:]
    _, refs = parse_corpus("\n".join(base), reference_sets)
    for name, lines in others:
        if len(lines) != len(base):
            raise ValueError(
                f"System {name!r} has {len(lines)} line(s) but the baseline {base_name!r} has {len(base)}: "
                "every system must translate the same segments, line by line."
            )
    return filled, refs


def whole_number(value: Any, what: str) -> Optional[int]:
    """An int from the page (a float from a number box, a string) or the API, never rounded: a
    float beyond 2**53 does not hold every whole number, so it is refused rather than read as a
    neighbour. ``None`` (an empty box) stays ``None``.

    >>> whole_number(12345.0, "the seed"), whole_number(" 2 ", "n"), whole_number(2**64 + 1, "the seed")
    (12345, 2, 18446744073709551617)
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a whole number, got {value!r}") from None
    if not number.is_integer():
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    if abs(number) > 2**53:
        raise ValueError(
            f"{what} {value!r} is a float above 2**53, where floats skip whole numbers; give it as an integer"
        )
    return int(number)


def paired_settings(method: str, n_samples: Any, seed: Any) -> Tuple[str, int, int]:
    """The test, its number of samples (empty: sacreBLEU's default for the test) and its seed,
    checked against the limits; whole numbers are taken as they are, never through a float.

    >>> paired_settings("approximate randomization", None, 12345)
    ('ar', 10000, 12345)
    >>> paired_settings("bs", 200.0, 2**53 + 1)
    ('bs', 200, 9007199254740993)
    """
    key = METHODS.get(method, method) if isinstance(method, str) else method
    if key not in DEFAULT_SAMPLES:
        raise ValueError(f"unknown test {method!r}: choose {' or '.join(METHODS)} ({' or '.join(METHODS.values())})")
    n = whole_number(n_samples, "the number of samples")
    if n is None:
        n = DEFAULT_SAMPLES[key]
    if not 1 <= n <= MAX_PAIRED_SAMPLES:  # the library takes any count >= 1; the page caps the work
        raise ValueError(f"the number of samples must be between 1 and {MAX_PAIRED_SAMPLES:,}, got {n:,}")
    whole = whole_number(seed, "the seed")
    if whole is None or not 0 <= whole <= MAX_SEED:
        raise ValueError(
            f"the seed must be a whole number >= 0 and below 2**64 (sacreBLEU's default is {DEFAULT_SEED}), "
            f"got {seed!r}"
        )
    return key, n, int(check_seed(whole) or 0)


def api_texts(value: Any, what: str, layout: str) -> List[Any]:
    """A list argument of the API as a list (missing: empty), checked by the core: a single
    string would otherwise be iterated as characters, each a reference set.

    >>> api_texts(None, "references", "one text per reference set")
    []
    """
    if value is None:
        return []
    if isinstance(value, str):
        raise TypeError(f"{what} must be a list ({layout}), got a single string; wrap it: [text]")
    return check_sequence(value, what, of="texts")
