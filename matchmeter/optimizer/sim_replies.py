"""SIMULATED rewriter and judge (`sim/rewriter`, `sim/judge`) for offline demos and tests.

`OptimizerStub` is the loopback stub server (llm/stub_server.py) with one extra route: plain `/v1`
requests whose model is `sim/rewriter` or `sim/judge` are answered here; everything else (the
`sim/<persona>` agents on `/sim/<task>/<seed>/v1`, scripted replies) goes to the stub unchanged, so the
LM layer's code is not touched.

sim/rewriter is trajectory-conditioned: it reads the attempt it is shown and turns what went wrong into
clarifications that restate the Original's own words (never a new path, number, tool or step):
a failed step that touched a path of the Original → that path is named exactly, relative to the working
directory; a step that read a file the Original does not name → the Original's inputs are the ones
meant; a literal with shell-special characters ($, backticks, quotes, backslashes) that the attempt's
commands do not carry intact → it is to be reproduced character for character; a subgoal below full
score → the Original's sentence about it is repeated as not optional. Candidate i holds the first i+1
of these (then generic restatements), as many as fit under 2.9× the Original's length, so two sources
whose runs failed differently get different candidates. With no attempt (the generic rewrite) only
the generic restatements are used. When 3 or more candidates are asked for, the last one is
unfaithful on purpose: it replaces the first path of the Original with "the file", which the gate must reject.

sim/judge answers the checklist with string checks only (a path, literal, number or format item is
`kept` when its text is still there; prohibitions, scope and requirements are always `kept`): a
SIMULATED judge with no semantic check, whose catch rate `matchmeter gate eval` measures.
Every diagnosis, rationale and reason says SIMULATED.
"""

from __future__ import annotations

import json
import re
from typing import Any

from matchmeter.gate.commands import NUMBERED
from matchmeter.gate.contract import (
    ContractItem,
    clauses,
    extract_contract,
    formats_in,
    literals_in,
    numbers_in,
    paths_in,
)
from matchmeter.gate.rules import literal_count
from matchmeter.llm.stub_replies import StubReply
from matchmeter.llm.stub_server import StubServer

SIM_REWRITER, SIM_JUDGE = "sim/rewriter", "sim/judge"
MAX_RATIO = 2.9
SHELL_SPECIAL = re.compile(r"[$`\\'\"]")
GENERIC = ["Every name, number and format stated above is meant literally, exactly as written.",
           "Nothing beyond what is stated above is required, and nothing stated above is optional.",
           "Check the result against each requirement above before you finish."]


def _block(text: str, name: str) -> str | None:
    found = re.search(rf"<<<{name}>>>\n(.*?)\n<<<END {name}>>>", text, re.S)
    return found.group(1) if found else None


def _user(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in request.get("messages") or [] if m.get("role") == "user")


def parse_attempt(attempt: str) -> dict[str, Any]:
    """Steps (command, exit, output) and subgoal scores from the rendered attempt (rewriter.render_attempt)."""
    steps = []
    for m in re.finditer(r"--- step (\d+) \(([^)]*)\)\n\$ ([^\n]*)\n(.*?)(?=\n--- |\Z)", attempt, re.S):
        ok = m.group(2) == "exit 0"
        steps.append({"index": int(m.group(1)), "ok": ok, "command": m.group(3), "output": m.group(4)})
    scores = dict(re.findall(r"(\w[\w-]*)=([\d.]+)", (re.search(r"subgoals: (.*)", attempt) or [""," "])[1]))
    return {"steps": steps, "subgoals": {k: float(v) for k, v in scores.items()}}


def trajectory_clarifications(original: str, attempt: str) -> list[tuple[str, str]]:
    """(sentence, why) pairs drawn from what the attempt shows; each sentence repeats the Original's own words."""
    seen = parse_attempt(attempt)
    paths = [p for p in paths_in(original) if "/" in p or "." in p]
    out: list[tuple[str, str]] = []
    for step in (s for s in seen["steps"] if not s["ok"]):
        hit = next((p for p in paths if p in step["command"] or p in step["output"]), None)
        if hit:
            out.append((f"`{hit}` is named exactly as written, relative to the working directory.",
                        f"step {step['index']} failed on {hit}"))
    read = [s for s in seen["steps"] if re.match(r"(cat|head|tail|less|jq|python3?|sed -n)\b", s["command"])]
    strays = [s for s in read if paths and not any(p in s["command"] for p in paths)]
    if strays and paths:
        named = ", ".join(f"`{p}`" for p in paths[:3])
        out.append((f"The files meant are the ones named above ({named}).", f"step {strays[0]['index']} read another file"))
    commands = "\n".join(s["command"] for s in seen["steps"])
    for lit in literals_in(original):
        if SHELL_SPECIAL.search(lit) and seen["steps"] and lit not in commands:
            out.append((f"The text `{lit}` is meant character for character: nothing in it is expanded or escaped.",
                        "the attempt's commands do not carry this literal intact (quoting damage)"))
            break
    for name, score in sorted(seen["subgoals"].items()):
        about = next((c for c in clauses(original) if name.lower().rstrip("s") in c.lower()), None)
        if score < 1.0 and about:
            out.append((f"This part is not optional: {about}", f"subgoal {name} scored {score:.2f}"))
    return list(dict.fromkeys(out))


def _fit(body: str, pool: list[str], want: int) -> list[str]:
    added: list[str] = []
    for sentence in pool:
        if len(added) == want:
            break
        if len(body) + 2 + len(" ".join([*added, sentence])) <= MAX_RATIO * len(body):
            added.append(sentence)
    return added


def sim_candidates(original: str, attempt: str | None, n: int) -> tuple[list[dict[str, str]], list[str]]:
    """The candidates and the diagnosis: trajectory-derived clarifications first, generic ones after."""
    derived = trajectory_clarifications(original, attempt) if attempt else []
    body = original.rstrip()
    pool = [s for s, _ in derived] + GENERIC
    out = []
    for i in range(n):
        added = _fit(body, pool, i + 1) or _fit(body, [pool[i % len(pool)]], 1)
        text = body + ("\n\n" + " ".join(added) if added else "")
        from_run = sum(a in [s for s, _ in derived] for a in added)
        rationale = f"SIMULATED sim/rewriter: {from_run} clarification(s) from the attempt, {len(added) - from_run} generic"
        if i == n - 1 and n >= 3 and paths_in(original):
            text = text.replace(paths_in(original)[0], "the file")
            rationale = "SIMULATED sim/rewriter: unfaithful on purpose (drops a path) to exercise the gate"
        out.append({"text": text + "\n", "rationale": rationale})
    diagnosis = [f"SIMULATED sim/rewriter: {why}" for _, why in derived] or [
        "SIMULATED sim/rewriter: the attempt shows no specific failure; restating the description explicitly"]
    return out, diagnosis


def rewriter_reply(request: dict[str, Any]) -> StubReply:
    user = _user(request)
    found = re.search(r"Write exactly (\d+) candidates", user)
    candidates, diagnosis = sim_candidates(_block(user, "ORIGINAL") or "", _block(user, "ATTEMPT"),
                                           int(found.group(1)) if found else 3)
    return StubReply(text=json.dumps({"diagnosis": diagnosis, "candidates": candidates}), simulated=True)


def _present(item: ContractItem, original: str, candidate: str) -> bool:
    """String checks with the rules' normalisation; prohibitions, scope and requirements are not checked."""
    flat = " ".join(candidate.split())
    if item.kind == "path":
        return item.norm in paths_in(candidate) or item.norm in flat
    if item.kind == "literal":
        return literal_count(item.norm, flat) >= literal_count(item.norm, " ".join(original.split()))
    if item.kind == "number":
        return numbers_in(candidate)[(item.norm, item.unit)] >= item.count
    if item.kind == "format":
        return item.norm in formats_in(candidate)
    return True


def judge_checklist(original: str, candidate: str) -> dict[str, Any]:
    """The SIMULATED checklist: string presence per item, no semantic check."""
    items = []
    for item in extract_contract(original).items:
        present = _present(item, original, candidate)
        items.append({"id": item.id, "status": "kept" if present else "dropped",
                      "note": "SIMULATED string check" if present else f"SIMULATED: {item.text[:40]!r} not found"})
    dropped = [i for i in items if i["status"] == "dropped"]
    if dropped:
        verdict, reason = "drops_requirement", f"SIMULATED sim/judge: {dropped[0]['note']}"
    elif len(NUMBERED.findall(candidate)) > len(NUMBERED.findall(original)):
        verdict, reason = "lowers_difficulty", "SIMULATED sim/judge: the candidate adds numbered steps"
    elif " ".join(candidate.split()) == " ".join(original.split()):
        verdict, reason = "same", "SIMULATED sim/judge: identical"
    else:
        verdict, reason = "immaterial", "SIMULATED sim/judge: no semantic check was made"
    return {"items": items, "added_requirements": [], "leaks": [], "verdict": verdict, "reason": reason}


def judge_reply(request: dict[str, Any]) -> StubReply:
    user = _user(request)
    body = judge_checklist(_block(user, "ORIGINAL") or "", _block(user, "CANDIDATE") or "")
    return StubReply(text=json.dumps(body), simulated=True)


class OptimizerStub(StubServer):
    """The stub server plus routes for sim/rewriter and sim/judge on plain /v1 requests."""

    def respond(self, path: str, request: dict[str, Any]) -> StubReply | None:
        model = str(request.get("model", "")).removeprefix("openai/")
        if not path.strip("/").startswith("sim/") and model in (SIM_REWRITER, SIM_JUDGE):
            return rewriter_reply(request) if model == SIM_REWRITER else judge_reply(request)
        return super().respond(path, request)
