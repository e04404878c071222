"""Hypothesis strategies for random MT-like text that stresses every tokenizer (shared by tests)."""

from hypothesis import strategies as st

# Words that recur so n-grams match, plus pieces aimed at each tokenizer rule: entities and
# <skipped> (13a), digits around . , - (the number rules), Unicode punctuation and symbols (intl),
# CJK, full-width and the U+2001..U+2A6D quirk range (zh), non-BMP characters, case pairs whose
# lowercase changes length (İ), and every kind of whitespace str.split() honours.
WORDS = [
    "the",
    "The",
    "cat",
    "sat",
    "on",
    "mat",
    "a",
    "dog",
    "ran",
    "Hello",
    "world",
    "ÉCOLE",
    "école",
    "İstanbul",
    "Straße",
    "STRASSE",
    "1,000.50",
    "3.5",
    "2-3",
    "1990-2000",
    "U.S.",
    "e.g.",
    "don't",
    "&amp;",
    "&quot;",
    "&lt;tag&gt;",
    "&#39;",
    "<skipped>",
    "co-\nop",
    "a-b",
    "x.y",
    "end.",
    "(quoted)",
    "“curly”",
    "‘single’",
    "—",
    "–",
    "…",
    "€5",
    "¿Qué?",
    "¡Sí!",
    "«guillemets»",
    "m²",
    "½",
    "٣",
    "१२",
    "北京",
    "欢迎你",
    "中文，标点。",
    "ＡＢＣ１２３",
    "　",
    "한국어",
    "日本語です",
    "カタカナ",
    "𠀀𠀁",
    "😀",
    "👍🏽",
    "ﬁ",
    "Ω",
    "∑x",
    "\u2028",
    "\u200b",
    "tab\tsep",
    "\u00a0nbsp",
    "\x1c",
    "\x85",
]
SEPARATORS = [" ", " ", " ", "  ", "\t", "\u3000", "\u00a0", "\u2009", "\u1680", ""]

word = st.one_of(
    st.sampled_from(WORDS),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6),
)


@st.composite
def sentences(draw, max_words: int = 12) -> str:
    words = draw(st.lists(word, min_size=0, max_size=max_words))
    out = ""
    for w in words:
        out += w + draw(st.sampled_from(SEPARATORS))
    return out


@st.composite
def corpora(draw, max_sentences: int = 5, max_refs: int = 4):
    """(hypotheses, reference streams) with 1-4 references, some missing (None), some empty."""
    n = draw(st.integers(1, max_sentences))
    n_refs = draw(st.integers(1, max_refs))
    hyps = [draw(sentences()) for _ in range(n)]
    streams = [[None] * n for _ in range(n_refs)]
    for i in range(n):
        for k in range(n_refs):
            # Half the time a reference is a perturbed copy of the hypothesis, so high orders match.
            if draw(st.booleans()):
                base = hyps[i].split(" ")
                keep = draw(st.lists(st.booleans(), min_size=len(base), max_size=len(base)))
                streams[k][i] = " ".join(w for w, kept in zip(base, keep) if kept)
            else:
                streams[k][i] = draw(sentences())
        missing = draw(st.lists(st.integers(0, n_refs - 1), max_size=n_refs - 1, unique=True))
        for k in missing:
            streams[k][i] = None
    return hyps, streams
