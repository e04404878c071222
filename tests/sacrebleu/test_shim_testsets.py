"""``bleukit.sacrebleu.utils`` and ``bleukit.sacrebleu.dataset`` against sacreBLEU 2.6's: the registry
as its functions show it, and the files COMET-style tools get, on a cache built from the shared data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import testset_caches

sacrebleu = pytest.importorskip("sacrebleu")
import sacrebleu.dataset as sb_dataset  # noqa: E402
import sacrebleu.utils as sb_utils  # noqa: E402

from bleukit.sacrebleu import dataset, utils  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"


def test_registry_functions_are_sacrebleus():
    assert utils.get_available_testsets() == sb_utils.get_available_testsets()
    for name in sb_dataset.DATASETS:
        assert utils.get_langpairs_for_testset(name) == sb_utils.get_langpairs_for_testset(name)
    for pair in ("en-de", "de-en", "cs-en", "en-ja", "liv-en", "xx-yy"):
        assert utils.get_available_testsets_for_langpair(pair) == sb_utils.get_available_testsets_for_langpair(pair)
    assert list(dataset.DATASETS) == list(sb_dataset.DATASETS)
    for name, theirs in sb_dataset.DATASETS.items():
        ours = dataset.DATASETS[name]
        assert type(ours).__name__ == type(theirs).__name__
        assert (ours.data, ours.md5, ours.description, ours.citation, ours.langpairs, ours.kwargs) == \
            (theirs.data, theirs.md5, theirs.description, theirs.citation, theirs.langpairs, theirs.kwargs)
    assert dataset.SUBSETS == sb_dataset.SUBSETS
    assert (dataset.COUNTRIES, dataset.DOMAINS) == (sb_dataset.COUNTRIES, sb_dataset.DOMAINS)
    assert utils.get_langpairs_for_testset("nosuch") == []
    with pytest.raises(Exception, match="No such test set nosuch"):
        utils.get_source_file("nosuch", "en-de")


def test_every_top_level_name_of_sacrebleu_is_there():
    import bleukit.sacrebleu as shim

    assert [name for name in sacrebleu.__all__ if not hasattr(shim, name)] == []
    assert shim.get_source_file is utils.get_source_file and shim.DATASETS is dataset.DATASETS


def test_files_are_sacrebleus(tmp_path):
    """After ``install()``, ``from sacrebleu.utils import get_source_file, get_reference_files`` (what
    COMET's CLI imports) gives sacreBLEU's paths and files, with sacreBLEU itself made unimportable."""
    root = tmp_path / "cache"
    extra = testset_caches.build(root)
    theirs_root = testset_caches.copy(root, tmp_path / "theirs")
    code = (
        "import json, sys, bleukit.sacrebleu as s; s.install()\n"
        "from sacrebleu.utils import get_source_file, get_reference_files, SACREBLEU_DIR\n"
        "from sacrebleu.dataset import DATASETS\n"
        "out = {}\n"
        "for t, p in [('wmt17', 'en-de'), ('wmt22', 'de-en'), ('wmt22', 'cs-en'), ('mtnt2019', 'en-fr')]:\n"
        "    files = [get_source_file(t, p), *get_reference_files(t, p)]\n"
        "    out[t + p] = [[f[len(SACREBLEU_DIR):], open(f, encoding='utf-8').read()] for f in files]\n"
        "    out[t + p + 'fields'] = DATASETS[t].fieldnames(p)\n"
        "json.dump(out, sys.stdout)\n"
    )
    poison = tmp_path / "poison" / "sacrebleu"
    poison.mkdir(parents=True)
    (poison / "__init__.py").write_text("raise ImportError('the real sacrebleu must not be imported')\n")
    env = testset_caches.environment(root, extra, PYTHONPATH=os.pathsep.join([str(SRC), str(poison.parent)]))
    ours = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True).stdout)
    their_code = code.replace("import json, sys, bleukit.sacrebleu as s; s.install()", "import json, sys")
    env = testset_caches.environment(theirs_root, extra)
    theirs = json.loads(subprocess.run([sys.executable, "-c", their_code], env=env, capture_output=True,
                                       check=True).stdout)
    assert ours == theirs
