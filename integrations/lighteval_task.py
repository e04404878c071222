"""A lighteval task scored with bleukit's metrics: a translation task on local data, run through
lighteval's own ``Pipeline`` (task registry, dataset loading, metrics, aggregation, standard errors).

    python integrations/lighteval_task.py --smoke                    # offline: a lookup "model"
    python integrations/lighteval_task.py --model Qwen/Qwen2.5-0.5B-Instruct   # a real model (Hub)

The task is ``wmt_local`` (English to German, ``lm_eval_task/wmt_local.jsonl`` beside this file,
loaded by ``datasets`` from the folder): its metrics are bleukit's drop-ins
(``bleukit.integrations.lighteval``: every reference used, the tokenizer from the target language,
the standard error from resampled statistics rows). With ``--smoke`` the model is a lookup table of
translations (``LookupModel``), so the run needs no download; the scores lighteval reports are then
checked against sacreBLEU's on the same outputs (the script exits non-zero when they differ).
lighteval pins ``nltk==3.9.1``: run this in its own venv (``make test-lighteval`` builds
``.venv-lighteval``, whose tests run this with ``--smoke``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

from recipe_extras import require

HERE = Path(__file__).resolve().parent
DATA = HERE / "lm_eval_task"
TASK = "wmt_local"

# What the --smoke "model" answers for each source sentence of the local data (one word off here
# and there, so the scores are neither 0 nor 100).
SMOKE_TRANSLATIONS = {
    "The house is small.": "Das Haus ist klein.",
    "I like green tea.": "Ich mag Tee.",
    "The train leaves at noon.": "Der Zug fährt mittags ab.",
    "She reads a book every night.": "Sie liest jede Nacht ein Buch.",
    "It is raining in the city today.": "Es regnet heute in der Stadt.",
    "Where is the station?": "Wo ist der Bahnhof?",
}


def rows() -> List[Dict[str, str]]:
    with open(DATA / "wmt_local.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def prompt(line: dict, task_name: str = TASK):
    """lighteval's prompt function: the source sentence in, the German reference as the gold."""
    from lighteval.tasks.requests import Doc

    return Doc(
        query=f"Translate to German: {line['source']}\nGerman:",
        choices=[line["target"]],
        gold_index=0,
        task_name=task_name,
        specific={"source": line["source"]},
    )


def task_config():
    """The task, with bleukit's corpus BLEU (German tokenization), chrF, chrF++ and TER."""
    from lighteval.tasks.lighteval_task import LightevalTaskConfig

    from bleukit.integrations import lighteval as bk

    return LightevalTaskConfig(
        name=TASK,
        prompt_function=prompt,
        hf_repo=str(DATA),  # a local folder: datasets reads its jsonl file, no Hub
        hf_subset="default",
        metrics=[bk.corpus_metric("bleu", language="de"), bk.chrf, bk.chrf_plus, bk.ter],
        evaluation_splits=["train"],
        few_shots_split=None,
        generation_size=64,
        stop_sequence=["\n"],
    )


# lighteval reads TASKS_TABLE from the file named by custom_tasks_directory (this one).
TASKS_TABLE = [task_config()] if sys.modules.get("lighteval") is not None else []


def lookup_model():
    """A LightevalModel answering from SMOKE_TRANSLATIONS: the harness runs whole, offline."""
    from lighteval.models.dummy.dummy_model import DummyModel, DummyModelConfig
    from lighteval.models.model_output import ModelResponse

    class LookupModel(DummyModel):
        def greedy_until(self, docs):
            return [ModelResponse(text=[SMOKE_TRANSLATIONS[d.specific["source"]]]) for d in docs]

    return LookupModel(DummyModelConfig(model_name="lookup", seed=0))


def _only_custom_tasks() -> None:
    """Offline, let lighteval's task registry read only the custom task file.

    lighteval 0.13's registry imports every built-in task module to list the tasks, and one of them
    (``tiny_benchmarks``) downloads a pickle when imported, so a Pipeline cannot start without the
    network even for a local task. This replaces only that listing; the rest of the Pipeline runs
    as it is.
    """
    from lighteval.tasks.registry import Registry

    def custom_only(custom_tasks=None, load_multilingual=False):
        return Registry._extract_configs(Registry.create_custom_tasks_module(custom_tasks))

    Registry.load_all_task_configs = staticmethod(custom_only)


def run(model_name: Optional[str], output_dir: str) -> Dict[str, Dict[str, float]]:
    """Run the task through lighteval's Pipeline; returns its results per task."""
    from lighteval.logging.evaluation_tracker import EvaluationTracker
    from lighteval.pipeline import ParallelismManager, Pipeline, PipelineParameters

    if model_name is None:
        _only_custom_tasks()
    params = PipelineParameters(launcher_type=ParallelismManager.NONE, custom_tasks_directory=__file__)
    tracker = EvaluationTracker(output_dir=output_dir, save_details=False)
    if model_name is None:
        pipeline = Pipeline(tasks=f"{TASK}|0", pipeline_parameters=params, evaluation_tracker=tracker,
                            model=lookup_model())
    else:
        from lighteval.models.transformers.transformers_model import TransformersModelConfig

        pipeline = Pipeline(tasks=f"{TASK}|0", pipeline_parameters=params, evaluation_tracker=tracker,
                            model_config=TransformersModelConfig(model_name=model_name))
    pipeline.evaluate()
    return pipeline.get_results()["results"]


def check_against_sacrebleu(results: Dict[str, Dict[str, float]]) -> List[str]:
    """The differences between lighteval's reported scores and sacreBLEU's on the smoke outputs."""
    import sacrebleu

    hyps = [SMOKE_TRANSLATIONS[r["source"]] for r in rows()]
    refs = [[r["target"] for r in rows()]]
    expected = {
        "bleu": sacrebleu.corpus_bleu(hyps, refs).score,  # 13a: what BLEU uses for German
        "chrf": sacrebleu.corpus_chrf(hyps, refs).score,
        "chrf++": sacrebleu.corpus_chrf(hyps, refs, word_order=2).score,
        "ter": sacrebleu.corpus_ter(hyps, refs).score,
    }
    ours = next(v for k, v in results.items() if TASK in k and k != "all")
    return [f"{k}: lighteval reports {ours.get(k)!r}, sacreBLEU {v!r}" for k, v in expected.items() if ours.get(k) != v]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="offline, with a lookup model; checks against sacreBLEU")
    parser.add_argument("--model", default=None, help="a Hub model id for lighteval's transformers backend")
    args = parser.parse_args(argv)
    if not args.smoke and args.model is None:
        parser.error("give --smoke or --model NAME")
    # lighteval pins nltk 3.9.1: make test-lighteval installs it in a venv of its own
    require("'.[lighteval]'", "lighteval")
    with tempfile.TemporaryDirectory() as out:
        results = run(None if args.smoke else args.model, out)
    for name, metrics in sorted(results.items()):
        print(name, json.dumps({k: round(v, 4) for k, v in sorted(metrics.items())}))
    if args.smoke:
        problems = check_against_sacrebleu(results)
        for p in problems:
            print(f"differs: {p}", file=sys.stderr)
        if problems:
            return 1
        print("lighteval's scores are equal to sacreBLEU's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
