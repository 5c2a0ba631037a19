"""`matchmeter gate eval`: qualify the gate (rules, and a judge model) on the labelled corpus before trusting it.

Rules run on every case; with `--judge-model` the judge votes on every case too, independently of the
rules, through the same LM client as `optimize` (`sim/judge` through the built-in loopback stub, which
is SIMULATED: string checks, no semantic check). The table shows, per kind, caught/total for
unfaithful kinds and false rejections/total for faithful ones, for rules alone, judge alone and both.
A judge measured on the built-in corpus's held-out split is recorded (`qualification_path`), and
`optimize` and `demo` state its measured catch rate next to their gate counts (`judge_note`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import UserError
from matchmeter.gate.evaluate import CORPUS, RULE_KINDS, EvalReport, evaluate, load_corpus, tabulate
from matchmeter.gate.judge import Judge
from matchmeter.llm.cache import default_cache_dir
from matchmeter.llm.client import LMClient
from matchmeter.optimizer.records import source_slug
from matchmeter.optimizer.sim_replies import OptimizerStub
from matchmeter.schema import sha256_text
from matchmeter.tasks.loader import builtin_suite_dir

JUDGE_ONLY_NOTE = "SIMULATED judge (string checks, no semantic check)"


@contextlib.contextmanager
def _judge(model: str | None, api_base: str | None) -> Iterator[Any]:
    if model is None:
        yield None
        return
    stub = None
    if model.startswith("sim/") and api_base is None:
        stub = OptimizerStub(None).start()
        api_base = f"{stub.url}/v1"
    client = LMClient(model, api_base=api_base)
    try:
        yield Judge(client)
    finally:
        client.close()
        if stub is not None:
            stub.stop()


def run_gate_eval(corpus: Path | None, judge_model: str | None, *, split: str = "test", votes: int = 1,
                  api_base: str | None = None, suite: Path | None = None) -> EvalReport:
    if split not in ("test", "dev", "all"):
        raise UserError(f"unknown split {split!r}", "--split", "choose test, dev or all")
    meta, cases = load_corpus(corpus)
    cases = [c for c in cases if split == "all" or c["split"] == split]
    with _judge(judge_model, api_base) as judge:
        results = evaluate(cases, suite=suite or builtin_suite_dir(), judge=judge, votes=votes, corpus_path=corpus)
    report = tabulate(results, corpus=str(corpus or "built-in"), split=split, judge_model=judge_model,
                    simulated=bool(judge_model and judge_model.startswith("sim/")))
    if votes == 1 and api_base is None and suite is None:
        write_qualification(report)
    return report


def render_gate_eval(report: EvalReport, console: Any) -> None:
    from rich.table import Table

    table = Table(title=f"gate eval · corpus {report.corpus} · split {report.split}")
    for col in ("label", "kind", "n", "rules", "judge", "both"):
        table.add_column(col, justify="right" if col in ("n", "rules", "judge", "both") else "left")
    for row in report.rows:
        judge = "-" if row.judge is None else str(row.judge)
        table.add_row(row.label, row.kind, str(row.total), str(row.rules), judge, str(row.both))
    console.print(table)
    caught, total = report.rate("rules", RULE_KINDS)
    fr, ft = report.rate("rules", label="faithful")
    console.print(f"rules: caught {caught}/{total} of the rule-detectable kinds ({', '.join(RULE_KINDS)}); "
                  f"false rejections {fr}/{ft} faithful", highlight=False)
    if report.judge_model:
        jc, jt = report.rate("judge")
        jf, _ = report.rate("judge", label="faithful")
        bc, _ = report.rate("both")
        bf, _ = report.rate("both", label="faithful")
        kind = f" — {JUDGE_ONLY_NOTE}" if report.judge_simulated else ""
        console.print(f"judge {report.judge_model}{kind}: caught {jc}/{jt} unfaithful, false rejections {jf}/{ft}; "
                      f"both: caught {bc}/{jt}, false rejections {bf}/{ft}; judge cost ${report.judge_cost_usd:.6f}",
                      highlight=False)


# ------------------------------------------------------------------ the judge's qualification, as optimize/demo state it


def qualification_path(model: str) -> Path:
    # keyed by the corpus's digest: a measurement on another corpus is not this judge's qualification
    corpus = sha256_text(CORPUS.read_text(encoding="utf-8"))[:12]
    return default_cache_dir() / "gate-qualification" / f"{source_slug(model)}-{corpus}.json"


def write_qualification(report: EvalReport) -> Path | None:
    """Store the judge's measured rates (built-in corpus, held-out split only) for `optimize` and `demo`."""
    if report.judge_model is None or report.corpus != "built-in" or report.split != "test":
        return None
    caught, total = report.rate("judge")
    both, _ = report.rate("both")
    rules, _ = report.rate("rules")
    false, faithful = report.rate("judge", label="faithful")
    body = {"model": report.judge_model, "simulated": report.judge_simulated, "caught": caught, "total": total,
            "beyond_rules": both - rules, "missed_by_rules": total - rules, "false_rejections": false,
            "faithful": faithful, "cost_usd": report.judge_cost_usd}
    path = qualification_path(report.judge_model)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(body, indent=2) + "\n")
    return path


def judge_note(model: str) -> str:
    """One line on what the judge was measured to catch; a sim/ judge is measured on the spot (free)."""
    path = qualification_path(model)
    if not path.is_file() and model.startswith("sim/"):
        write_qualification(run_gate_eval(None, model))
    if not path.is_file():
        return (f"judge {model}: not qualified: its catch rate is unmeasured "
                f"(run `matchmeter gate eval --judge-model {model}`)")
    q = json.loads(path.read_text(encoding="utf-8"))
    what = " (SIMULATED: string checks, no semantic check)" if q["simulated"] else ""
    return (f"judge {model}{what}: on the gate corpus's held-out fifth it caught {q['caught']}/{q['total']} unfaithful "
            f"rewrites, {q['beyond_rules']}/{q['missed_by_rules']} of those the rules miss, and rejected "
            f"{q['false_rejections']}/{q['faithful']} faithful ones")
