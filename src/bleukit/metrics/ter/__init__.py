"""Translation edit rate (TER), exactly as sacreBLEU 2.6 computes it.

The pieces, each in its own module:

- :mod:`.options`: :class:`TerOptions` (tercom's four switches) and the signature string;
- :mod:`.tokenizer`: tercom's normalisation and tokenisation (:class:`TercomTokenizer`);
- :mod:`.reference`: the pure-Python edit distance with block shifts and the statistics table;
- :mod:`.extract`: the same table from the compiled kernel when it is built (``_kernel``);
- :mod:`.formula`: corpus and sentence scores from a table.
"""
