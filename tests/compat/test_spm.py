"""spBLEU tokenizers (flores101/flores200) against sacreBLEU's, with a tiny SentencePiece model
trained here and placed where sacreBLEU looks for its model (no download)."""

import json
import os
import subprocess
import sys

import pytest

import bleukit
from bleukit.compat import compare_variants, presets
from bleukit.tokenizers.spm import SPM_MODELS

spm = pytest.importorskip("sentencepiece")

TEXT = [
    "The cat sat on the mat.",
    "It is raining today, isn't it?",
    "Über die Brücke gingen 1.000 Menschen.",
    "北京欢迎你。",
    "Les élèves étudient la grammaire française.",
    "A quick brown fox jumps over the lazy dog!",
    "Numbers like 3.14 and 2,718 appear here.",
    "Tokyo は日本の首都です。",
    "Straße, STRASSE und straße.",
]
HYPS = [
    "The cat sat on a mat.",
    "It rains today, isn't it?",
    "Über die Brücke gingen 1000 Menschen.",
    "北京欢迎您。",
    "",
]
REFS = [
    "The cat sat on the mat.",
    "It is raining today, isn't it?",
    "Über die Brücke gingen 1.000 Menschen.",
    "北京欢迎你。",
    "x",
]


@pytest.fixture(scope="module")
def sacrebleu_dir(tmp_path_factory):
    """A $SACREBLEU folder holding a tiny model under both names sacreBLEU looks for."""
    root = tmp_path_factory.mktemp("sacrebleu")
    corpus = root / "train.txt"
    corpus.write_text("\n".join(TEXT * 20) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(root / "tiny"),
        vocab_size=90,
        character_coverage=1.0,
        model_type="unigram",
        minloglevel=2,
    )
    (root / "models").mkdir()
    data = (root / "tiny.model").read_bytes()
    for _, url in SPM_MODELS.values():
        (root / "models" / os.path.basename(url)).write_bytes(data)
    return root


@pytest.fixture
def sacrebleu_cache(sacrebleu_dir, monkeypatch):
    import sacrebleu.tokenizers.tokenizer_spm as sacre_spm

    monkeypatch.setenv("SACREBLEU", str(sacrebleu_dir))
    # sacreBLEU read $SACREBLEU when it was imported
    monkeypatch.setattr(sacre_spm, "SACREBLEU_DIR", str(sacrebleu_dir))
    for name in ("BLEUKIT_SPM_MODEL_FLORES101", "BLEUKIT_SPM_MODEL_FLORES200"):
        monkeypatch.delenv(name, raising=False)
    return sacrebleu_dir


@pytest.mark.parametrize("name", ["flores101", "flores200", "spBLEU-1K", "spm"])
def test_corpus_bleu_equals_sacrebleu_spm(sacrebleu_cache, name):
    sacrebleu = pytest.importorskip("sacrebleu")
    theirs = sacrebleu.corpus_bleu(HYPS, [REFS], tokenize=name)
    ours = bleukit.corpus_bleu(HYPS, REFS, tokenize=name)
    assert ours.counts == theirs.counts and ours.totals == theirs.totals
    assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert ours.score == theirs.score
    their_metric = sacrebleu.BLEU(tokenize=name)
    their_metric.corpus_score(HYPS, [REFS])
    tok_field = "flores101" if name == "spm" else name  # sacreBLEU's spm signs as flores101
    assert f"tok:{tok_field}|" in ours.signature and f"tok:{tok_field}|" in str(their_metric.get_signature())
    sentence = bleukit.sentence_bleu(HYPS[0], [REFS[0]], tokenize=name).score
    assert sentence == sacrebleu.sentence_bleu(HYPS[0], [REFS[0]], tokenize=name).score
    # the same tokens, line for line
    tok = bleukit.get_tokenizer(name)
    from sacrebleu.tokenizers.tokenizer_spm import TokenizerSPM

    assert [tok(t) for t in TEXT] == [TokenizerSPM(name)(t) for t in TEXT]


def test_model_from_environment_variable_and_argument(sacrebleu_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("SACREBLEU", str(tmp_path))  # no cached model there
    monkeypatch.setenv("BLEUKIT_SPM_MODEL_FLORES200", str(sacrebleu_dir / "tiny.model"))
    via_env = bleukit.corpus_bleu(HYPS, REFS, tokenize="flores200").score
    monkeypatch.delenv("BLEUKIT_SPM_MODEL_FLORES200")
    via_arg = presets.spbleu(HYPS, REFS, model_file=str(sacrebleu_dir / "tiny.model")).score
    assert via_env == via_arg
    table = compare_variants(HYPS, REFS, spm_model_files={"flores200": str(sacrebleu_dir / "tiny.model")})
    assert {r.name: r.score for r in table.rows}["spBLEU (flores200)"] == via_arg
    assert "spBLEU (flores101)" in table.skipped


def test_missing_model_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.setenv("BLEUKIT_TESTSETS_OFFLINE", "1")  # a missing model is downloaded otherwise
    monkeypatch.delenv("BLEUKIT_SPM_MODEL_FLORES200", raising=False)
    with pytest.raises(FileNotFoundError, match="BLEUKIT_SPM_MODEL_FLORES200"):
        bleukit.corpus_bleu(["a"], ["a"], tokenize="flores200")
    monkeypatch.setenv("BLEUKIT_SPM_MODEL_FLORES200", str(tmp_path / "nope.model"))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        bleukit.corpus_bleu(["a"], ["a"], tokenize="flores200")


def test_spm_is_not_native_and_sentencepiece_is_imported_lazily():
    from bleukit.metrics.bleu.kernel import NATIVE_TOKENIZERS, uses_native
    from bleukit.metrics.bleu.options import BleuOptions

    assert "flores200" not in NATIVE_TOKENIZERS and not uses_native(BleuOptions(tokenize="flores200"))
    code = "import sys, bleukit, bleukit.compat; print(json.dumps('sentencepiece' in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", "import json; " + code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) is False


@pytest.mark.parametrize("name", ["flores101", "flores200", "spBLEU-1K", "spm"])
def test_command_line_flores_tokenizers_equal_sacrebleu_cli(sacrebleu_cache, name, tmp_path):
    from cli_runs import compare  # both programs in-process, version field normalised

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    for fmt in ("text", "json"):
        code, out = compare([str(ref), "-i", str(hyp), "-tok", name, "-f", fmt])
        assert code == 0 and f"tok:{'flores101' if name == 'spm' else name}" in out


def test_command_line_without_a_model_says_where_to_put_it(monkeypatch, tmp_path):
    import io

    from bleukit.cli import main as bleukit_main

    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.setenv("BLEUKIT_TESTSETS_OFFLINE", "1")  # a missing model is downloaded otherwise
    monkeypatch.delenv("BLEUKIT_SPM_MODEL_FLORES200", raising=False)
    (tmp_path / "f").write_text("a\n", encoding="utf-8")
    err = io.StringIO()
    code = bleukit_main(
        [str(tmp_path / "f"), "-i", str(tmp_path / "f"), "-tok", "flores200"],
        stdin=io.BytesIO(b""),
        stdout=io.StringIO(),
        stderr=err,
    )
    assert code == 1 and "BLEUKIT_SPM_MODEL_FLORES200" in err.getvalue() and len(err.getvalue().splitlines()) == 1
