"""sacreBLEU's ``sacrebleu.tokenizers`` package, as far as callers reach into it for TER:
:mod:`.tokenizer_ter` (``TercomTokenizer``). BLEU's tokenizers are ``bleukit.tokenizers``
(``BLEU.TOKENIZERS`` lists them)."""
