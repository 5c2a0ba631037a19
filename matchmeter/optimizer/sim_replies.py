"""SIMULATED rewriter and judge (`sim/rewriter`, `sim/judge`) for offline demos and tests.

`OptimizerStub` is the loopback stub server (llm/stub_server.py) with one extra route: plain `/v1`
requests whose model is `sim/rewriter` or `sim/judge` are answered here; everything else (the
`sim/<persona>` agents on `/sim/<task>/<seed>/v1`, scripted replies) goes to the stub unchanged, so the
LM layer's code is not touched.

sim/rewriter: each candidate is the Original, verbatim, plus appended sentences that restate what the
Original already says (its paths in backticks, "meant literally"), as many as fit under 2.9× the
Original's length; candidate i uses i+1 sentences, so the candidates differ in explicitness
(llm/sim.py `explicitness`), which changes how often sloppy/explorer personas skip a step. When 3 or
more candidates are asked for, the last one is unfaithful: it replaces the first path of the Original
with "the file", which the gate must reject (`drops_literal:path:...`).
sim/judge: drops_requirement when a path, number or quoted literal of the Original is missing,
lowers_difficulty when numbered steps were added, same when identical, else immaterial.
Every diagnosis, rationale and reason says SIMULATED.
"""

from __future__ import annotations

import json
import re
from typing import Any

from matchmeter.gate.rules import NUMBERED, numbers_in, paths_in, quoted_in
from matchmeter.llm.stub_server import StubReply, StubServer

SIM_REWRITER, SIM_JUDGE = "sim/rewriter", "sim/judge"
MAX_RATIO = 2.9


def _block(text: str, name: str) -> str | None:
    found = re.search(rf"<<<{name}>>>\n(.*?)\n<<<END {name}>>>", text, re.S)
    return found.group(1) if found else None


def _user(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in request.get("messages") or [] if m.get("role") == "user")


def _clarifications(original: str) -> list[str]:
    paths = [p for p in paths_in(original) if "." in p or p.endswith("/")]
    pool = []
    if paths:
        named = ", ".join(f"`{p}`" for p in paths[:4])
        pool.append(f"To be explicit: {named} are named relative to the working directory.")
    pool += [
        "Every name, number and format stated above is meant literally, exactly as written.",
        "Nothing beyond what is stated above is required, and nothing stated above is optional.",
        "Check the result against each requirement above before you finish.",
    ]
    return pool


def sim_candidates(original: str, attempt: str | None, n: int) -> list[dict[str, str]]:
    pool = _clarifications(original)
    body = original.rstrip()
    out: list[dict[str, str]] = []
    for i in range(n):
        added: list[str] = []
        for sentence in pool[: i + 1]:
            if len(body) + 2 + len(" ".join([*added, sentence])) > MAX_RATIO * len(body):
                break
            added.append(sentence)
        if len(added) < min(i + 1, len(pool)):  # a short original: one different sentence per candidate
            alone = pool[i % len(pool)]
            added = [alone] if len(body) + 2 + len(alone) <= MAX_RATIO * len(body) else added
        text = body + ("\n\n" + " ".join(added) if added else "")
        rationale = f"SIMULATED sim/rewriter: restates {len(added)} point(s) of the original explicitly"
        if i == n - 1 and n >= 3 and paths_in(original):
            text = text.replace(paths_in(original)[0], "the file")
            rationale = "SIMULATED sim/rewriter: unfaithful on purpose (drops a path) to exercise the gate"
        out.append({"text": text + "\n", "rationale": rationale})
    return out


def rewriter_reply(request: dict[str, Any]) -> StubReply:
    user = _user(request)
    original = _block(user, "ORIGINAL") or ""
    attempt = _block(user, "ATTEMPT")
    found = re.search(r"Write exactly (\d+) candidates", user)
    n = int(found.group(1)) if found else 3
    failed = re.search(r"failed steps: (.*)", attempt or "")
    diagnosis = ["SIMULATED sim/rewriter: the paths and literals of the description could be stated more explicitly"]
    if failed and failed.group(1) != "none":
        diagnosis.append(f"SIMULATED sim/rewriter: the attempt had failing steps ({failed.group(1)})")
    body = {"diagnosis": diagnosis, "candidates": sim_candidates(original, attempt, n)}
    return StubReply(text=json.dumps(body), simulated=True)


def judge_verdict(original: str, candidate: str) -> tuple[str, str]:
    missing = [t for t in [*paths_in(original), *numbers_in(original), *quoted_in(original)] if t not in candidate]
    if missing:
        return "drops_requirement", f"SIMULATED sim/judge: the candidate no longer states {missing[0]!r}"
    if len(NUMBERED.findall(candidate)) > len(NUMBERED.findall(original)):
        return "lowers_difficulty", "SIMULATED sim/judge: the candidate adds numbered steps"
    if " ".join(candidate.split()) == " ".join(original.split()):
        return "same", "SIMULATED sim/judge: identical"
    return "immaterial", "SIMULATED sim/judge: same requirements, stated more explicitly"


def judge_reply(request: dict[str, Any]) -> StubReply:
    user = _user(request)
    verdict, reason = judge_verdict(_block(user, "ORIGINAL") or "", _block(user, "CANDIDATE") or "")
    return StubReply(text=json.dumps({"verdict": verdict, "reason": reason}), simulated=True)


class OptimizerStub(StubServer):
    """The stub server plus routes for sim/rewriter and sim/judge on plain /v1 requests."""

    def respond(self, path: str, request: dict[str, Any]) -> StubReply | None:
        model = str(request.get("model", "")).removeprefix("openai/")
        if not path.strip("/").startswith("sim/") and model in (SIM_REWRITER, SIM_JUDGE):
            return rewriter_reply(request) if model == SIM_REWRITER else judge_reply(request)
        return super().respond(path, request)
