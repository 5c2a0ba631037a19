"""`matchmeter gate eval`: qualify the gate (rules, and a judge model) on the labelled corpus before trusting it.

Rules run on every case; with `--judge-model` the judge votes on every case too, independently of the
rules, through the same LM client as `optimize` (`sim/judge` through the built-in loopback stub, which
is SIMULATED: string checks, no semantic check); with `--judge-replies FILE` the judge's replies are
recorded ones (one JSON line per case, `{"id": ..., "reply": "<the reply text>"}`), parsed as a live
judge's would be, and only the cases with a reply are measured. The table shows, per kind and per
visibility (rule-visible / judge-only), caught/total for unfaithful kinds and false rejections/total for
faithful ones, for rules alone, judge alone and both, each rate with its 95% Wilson interval.

A judge measured on the held-out split (`--split heldout`, corpus/gate_heldout.jsonl) is recorded
(`qualification_path`); `optimize` refuses a judge with no such measurement, or one whose catch rate is
below `--judge-min-catch` or whose false-rejection rate is above `--judge-max-false-rejection`, unless
`--allow-unmeasured-judge` (`check_judge`). The SIMULATED `sim/judge` ships its measurement
(corpus/sim-judge.measured.json, written by `write_sim_measurement`; a test re-measures and compares), so
the offline demo runs with a measured judge.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import UserError
from matchmeter.gate.evaluate import HELDOUT, EvalReport, evaluate, load_corpus, tabulate, wilson
from matchmeter.gate.judge import Judge
from matchmeter.llm.cache import default_cache_dir
from matchmeter.llm.client import LMClient
from matchmeter.llm.protocols import LMReply
from matchmeter.optimizer.records import source_slug
from matchmeter.optimizer.sim_replies import OptimizerStub
from matchmeter.runner.oracle_outputs import oracle_outputs
from matchmeter.schema import Cost, TokenUsage, sha256_text
from matchmeter.tasks.loader import builtin_suite_dir

JUDGE_ONLY_NOTE = "SIMULATED judge (string checks, no semantic check)"
SIM_MEASUREMENT = HELDOUT.with_name("sim-judge.measured.json")
SPLITS = ("heldout", "test", "dev", "all")


class ReplayClient:
    """A judge whose replies were recorded: the reply of the case whose candidate the prompt holds."""

    def __init__(self, model: str, replies: dict[str, str]) -> None:
        self.model = model
        self.replies = replies  # candidate text (whitespace-normalised) -> reply text

    def complete(self, messages: list[dict[str, Any]], *, timeout_s: float | None = None, **sampling: Any) -> LMReply:
        user = messages[-1]["content"]
        cand = user.split("<<<CANDIDATE>>>\n", 1)[1].split("\n<<<END CANDIDATE>>>", 1)[0]
        text = self.replies.get(" ".join(cand.split()), "")
        return LMReply(text=text, model=self.model, tokens=TokenUsage(), cost=Cost(usd=0.0), new_spend_usd=0.0)

    def close(self) -> None:
        return None


def load_replies(path: Path) -> dict[str, str]:
    """{case id: reply text} of a recorded-replies file (one JSON object a line: id, reply)."""
    if not path.is_file():
        raise UserError("judge replies file not found", str(path), "pass --judge-replies PATH to a .jsonl of {id, reply}")
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            out[str(row["id"])] = str(row["reply"])
        except (ValueError, KeyError, TypeError):
            raise UserError(f"judge replies line {n} is not a JSON object with id and reply", str(path),
                            "fix the file: one {\"id\": ..., \"reply\": ...} per line") from None
    return out


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
                  api_base: str | None = None, suite: Path | None = None,
                  judge_replies: Path | None = None) -> EvalReport:
    if split not in SPLITS:
        raise UserError(f"unknown split {split!r}", "--split", "choose " + ", ".join(SPLITS))
    if split == "heldout" and corpus is None:
        corpus = HELDOUT
    meta, cases = load_corpus(corpus)
    cases = [c for c in cases if split in ("all", "heldout") or c["split"] == split]
    if judge_replies is not None:
        recorded = load_replies(judge_replies)
        cases = [c for c in cases if c["id"] in recorded]
        judge_model = judge_model or f"replay/{judge_replies.stem}"
        client = ReplayClient(judge_model, {" ".join(c["candidate"].split()): recorded[c["id"]] for c in cases})
        results = evaluate(cases, suite=suite or builtin_suite_dir(), judge=Judge(client), votes=votes, corpus_path=corpus,
                           oracle=oracle_outputs)
    else:
        with _judge(judge_model, api_base) as judge:
            results = evaluate(cases, suite=suite or builtin_suite_dir(), judge=judge, votes=votes, corpus_path=corpus,
                               oracle=oracle_outputs)
    builtin = corpus is None or corpus == HELDOUT
    report = tabulate(results, corpus="built-in" if builtin else str(corpus), split=split, judge_model=judge_model,
                      simulated=bool(judge_model and judge_model.startswith("sim/")))
    if votes == 1 and suite is None and judge_replies is None:
        write_qualification(report)
    return report


def _pct(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k}/{n} [{lo:.0%}–{hi:.0%}]" if n else "-"


def render_gate_eval(report: EvalReport, console: Any) -> None:
    from rich.table import Table

    table = Table(title=f"gate eval · corpus {report.corpus} · split {report.split} · 95% Wilson intervals")
    for col in ("label", "kind", "seen by", "n", "rules", "judge", "both"):
        table.add_column(col, justify="right" if col == "n" else "left")
    for row in report.rows:
        seen = "-" if row.label == "faithful" else "rules" if row.rule_visible else "judge"
        judge = "-" if row.judge is None else _pct(row.judge, row.total)
        table.add_row(row.label, row.kind, seen, str(row.total), _pct(row.rules, row.total), judge,
                      _pct(row.both, row.total))
    console.print(table)
    caught, total = report.rate("rules", rule_visible=True)
    fr, ft = report.rate("rules", label="faithful")
    console.print(f"rules: caught {_pct(caught, total)} of the rule-visible unfaithful; "
                  f"false rejections {_pct(fr, ft)} faithful", highlight=False)
    if report.judge_model:
        for name, visible in (("judge-only", False), ("rule-visible", True)):
            jc, jt = report.rate("judge", rule_visible=visible)
            bc, _ = report.rate("both", rule_visible=visible)
            console.print(f"  {name} unfaithful: judge caught {_pct(jc, jt)}, rules+judge caught {_pct(bc, jt)}",
                          highlight=False)
        jc, jt = report.rate("judge")
        jf, _ = report.rate("judge", label="faithful")
        bc, _ = report.rate("both")
        bf, _ = report.rate("both", label="faithful")
        kind = f" — {JUDGE_ONLY_NOTE}" if report.judge_simulated else ""
        console.print(f"judge {report.judge_model}{kind}: caught {_pct(jc, jt)} unfaithful, false rejections "
                      f"{_pct(jf, ft)}; both: caught {_pct(bc, jt)}, false rejections {_pct(bf, ft)}; judge cost "
                      f"${report.judge_cost_usd:.6f}", highlight=False)


# ------------------------------------------------------------------ the judge's qualification, as optimize/demo state it


def qualification_path(model: str) -> Path:
    # keyed by the held-out split's digest: a measurement on another corpus is not this judge's qualification
    corpus = sha256_text(HELDOUT.read_text(encoding="utf-8"))[:12]
    return default_cache_dir() / "gate-qualification" / f"{source_slug(model)}-{corpus}.json"


def measurement(report: EvalReport) -> dict[str, Any]:
    """The judge's measured rates on the held-out split, overall and per kind."""
    caught, total = report.rate("judge")
    both, _ = report.rate("both")
    rules, _ = report.rate("rules")
    false, faithful = report.rate("judge", label="faithful")
    kinds = {f"{r.label}:{r.kind}": {"judge": r.judge, "total": r.total} for r in report.rows}
    return {"model": report.judge_model, "simulated": report.judge_simulated,
            "corpus_sha256": sha256_text(HELDOUT.read_text(encoding="utf-8")), "caught": caught, "total": total,
            "beyond_rules": both - rules, "missed_by_rules": total - rules, "false_rejections": false,
            "faithful": faithful, "kinds": kinds}


def write_qualification(report: EvalReport) -> Path | None:
    """Store the judge's measured rates (built-in held-out split only) for `optimize` and `demo`."""
    if report.judge_model is None or report.corpus != "built-in" or report.split != "heldout":
        return None
    path = qualification_path(report.judge_model)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps({**measurement(report), "cost_usd": report.judge_cost_usd}, indent=2) + "\n")
    return path


def write_sim_measurement() -> Path:
    """Re-measure sim/judge on the held-out split and ship it (run after changing the sim judge or the split)."""
    atomic_write_text(SIM_MEASUREMENT, json.dumps(measurement(run_gate_eval(None, "sim/judge", split="heldout")),
                                                  indent=2, sort_keys=True) + "\n")
    return SIM_MEASUREMENT


def qualification(model: str) -> dict[str, Any] | None:
    """The judge's measurement on the current held-out split: the user's (gate eval), else the shipped sim one."""
    path = qualification_path(model)
    if not path.is_file() and model == "sim/judge" and SIM_MEASUREMENT.is_file():
        path = SIM_MEASUREMENT
    if not path.is_file():
        return None
    q: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return q if q.get("corpus_sha256") == sha256_text(HELDOUT.read_text(encoding="utf-8")) else None


def check_judge(model: str, *, min_catch: float | None, max_false_rejection: float | None, allow_unmeasured: bool) -> None:
    """Refuse (one line) a judge whose rates are unknown, or below/above the user's thresholds."""
    if allow_unmeasured:
        return
    q = qualification(model)
    if q is None:
        raise UserError(f"judge {model} is unmeasured: its catch and false-rejection rates are unknown",
                        "--judge-model", f"run `matchmeter gate eval --judge-model {model} --split heldout`, "
                        "or pass --allow-unmeasured-judge")
    catch = q["caught"] / max(1, q["total"])
    false = q["false_rejections"] / max(1, q["faithful"])
    if min_catch is not None and catch < min_catch:
        raise UserError(f"judge {model} caught {q['caught']}/{q['total']} ({catch:.0%}) of the held-out unfaithful "
                        f"rewrites, below --judge-min-catch {min_catch:.0%}", "--judge-model",
                        "choose a stronger judge, lower the threshold, or pass --allow-unmeasured-judge")
    if max_false_rejection is not None and false > max_false_rejection:
        raise UserError(f"judge {model} rejected {q['false_rejections']}/{q['faithful']} ({false:.0%}) held-out faithful "
                        f"rewrites, above --judge-max-false-rejection {max_false_rejection:.0%}", "--judge-model",
                        "choose another judge, raise the threshold, or pass --allow-unmeasured-judge")


def judge_note(model: str) -> str:
    """One line on what the judge was measured to catch on the held-out split."""
    q = qualification(model)
    if q is None:
        return (f"judge {model}: not qualified: its catch rate is unmeasured "
                f"(run `matchmeter gate eval --judge-model {model} --split heldout`)")
    what = " (SIMULATED: string checks, no semantic check)" if q["simulated"] else ""
    return (f"judge {model}{what}: on the gate corpus's held-out split it caught {q['caught']}/{q['total']} unfaithful "
            f"rewrites, {q['beyond_rules']}/{q['missed_by_rules']} of those the rules miss, and rejected "
            f"{q['false_rejections']}/{q['faithful']} faithful ones")
