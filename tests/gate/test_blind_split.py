"""The blind splits (gate_blind.jsonl blind-v1, gate_blind2.jsonl blind-v2, gate_blind3.jsonl blind-v3,
gate_blind4.jsonl blind-v4, gate_blind5.jsonl blind-v5, gate_blind6.jsonl blind-v6, gate_blind7.jsonl blind-v7,
gate_blind8.jsonl blind-v8, gate_blind9.jsonl blind-v9, gate_blind10.jsonl blind-v10, gate_blind11.jsonl blind-v11,
gate_blind12.jsonl blind-v12, gate_blind13.jsonl blind-v13, gate_blind14.jsonl blind-v14) are pinned and well-formed.
This checks structure only: it never runs the gate, so nothing here can be tuned against the splits' cases (corpus
README, "The blind split", "The blind split v2", "The blind split v3", "The blind split v4", "The blind split v5", "The
blind split v6", "The blind split v7", "The blind split v8", "The blind split v9", "The blind split v10", "The blind
split v11", "The blind split v12", "The blind split v13" and "The blind split v14")."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
CORPUS = ROOT / "matchmeter" / "gate" / "corpus"
SUITE = ROOT / "matchmeter" / "tasks" / "suite"
FIELDS = ["id", "task", "label", "kind", "obligation", "visibility", "candidate", "split", "original_sha256",
          "origin"]
FAITHFUL_KINDS = {"bullets", "context", "literal-moved", "negation-syntax", "reorder", "restructure",
                  "second-person", "synonyms", "terse", "verbose"}
RULE_KINDS = {"dropped-prohibition", "dropped-requirement", "weakened-requirement", "hedge", "changed-number",
              "changed-path", "changed-literal", "changed-format", "leaked-command", "leaked-answer"}
JUDGE_KINDS = {"changed-boundary", "changed-definition", "changed-sort-key", "changed-time-zone",
               "added-constraint", "prose-hint"}
FAMILIES = {"terminal", "skills", "data-analysis", "quoting"}


@dataclass(frozen=True)
class Split:
    """One blind split as it was committed: its files' pins and the counts it was written with."""

    origin: str
    stem: str
    id_prefix: str
    pins: tuple[str, str]  # sha256 of the .jsonl and of the .originals.json, pinned at the commit that added them
    cases: int
    tasks: int
    families: dict[str, int] = field(hash=False)
    labels: dict[str, int] = field(hash=False)
    visibility: dict[str, int] = field(hash=False)

    @property
    def split(self) -> Path:
        return CORPUS / f"{self.stem}.jsonl"

    @property
    def originals(self) -> Path:
        return CORPUS / f"{self.stem}.originals.json"


V1 = Split("blind-v1", "gate_blind", "b",
           ("7136de87359ff13f690130f64e8e3e2d431894d4058cef456df27bc2cd298c9e",
            "ef9e69f550c1b7f964506660fccdf25cfccba9e5cf473f8387defc3cd0c4edde"), 114, 56,
           {"terminal": 39, "skills": 28, "data-analysis": 26, "quoting": 21},
           {"faithful": 50, "unfaithful": 64}, {"rules": 36, "judge": 28})
V2 = Split("blind-v2", "gate_blind2", "c",
           ("c3f3bd5b2bc2b8bd95deb6f5512e4c3e1400a5da0108417526ab0d86430338d0",
            "43bf8182432b19b58f103efebab922fd0abfb6cdb5a3b5c9b06b362a7c6fc5c0"), 128, 64,
           {"terminal": 20, "skills": 20, "data-analysis": 27, "quoting": 61},
           {"faithful": 56, "unfaithful": 72}, {"rules": 42, "judge": 30})
# v3 reuses suite tasks (a seeded sample of 60, some also in v1 or v2): it is measured on new rewrites, not new tasks.
V3 = Split("blind-v3", "gate_blind3", "d",
           ("4967e266dd57c8f6cd914414a228ef80f1ed6c540267ac71274e0c1f5c922238",
            "b1ba7c69dcb48fbd1560aeb145415190774c5bbea6c3a24887daeff8344c898e"), 145, 60,
           {"terminal": 40, "skills": 23, "data-analysis": 18, "quoting": 64},
           {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v4, like v3, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V4 = Split("blind-v4", "gate_blind4", "e",
           ("dd2e02692e122b9d59603ee9ed7b1227afa022c1befc9e7473a406f892072d2d",
            "d980d22226d2677c37469c6ca9c1568fc0482badc4d2567065a1529ab420de42"), 145, 60,
           {"terminal": 34, "skills": 21, "data-analysis": 24, "quoting": 66},
           {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v5, like v3 and v4, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V5 = Split("blind-v5", "gate_blind5", "f",
           ("20ec96193f22279ccb0bde845a68db675f04d903b042baaee58501cec059bfba",
            "efa5a2ffee71b3e5a772f6359818476c8dfc8f6407b75270d4e6f981171b1195"), 145, 60,
           {"terminal": 30, "skills": 45, "data-analysis": 24, "quoting": 46},
           {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v6, like v3-v5, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V6 = Split("blind-v6", "gate_blind6", "g",
           ("67cbcac0fd1c39b7d1f2227b8e887d30dd5425a1b2ba89e2bb0216fcf47371ac",
            "f31dfa70e4000250cff77478227aa1a8bb5b20d48ff2e3f935ff608b75766e77"), 145, 60,
           {"terminal": 29, "skills": 25, "data-analysis": 38, "quoting": 53},
           {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v7, like v3-v6, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V7 = Split("blind-v7", "gate_blind7", "h",
           ("f73529fa3435727d9198e7c53bfb39923aed62b18ba58dd97029412cee32c696",
            "7019e43786f8771763d8ae99556ed015a8eefa19597ed41f0f3715ef9ce3db64"), 145, 60,
           {"terminal": 38, "skills": 20, "data-analysis": 31, "quoting": 56},
           {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v8, like v3-v7, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V8 = Split("blind-v8", "gate_blind8", "i",
           ("71c2b9c9747e85edd6a13cca60da82b793e934accea4fd0a9db91c941019d86e",
            "946f1598817422320c5f5642a6a140705ef935e93d7e61136784f1acbd0b8710"), 145, 60,
           {"terminal": 37, "skills": 30, "data-analysis": 30, "quoting": 48},
           {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v9, like v3-v8, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V9 = Split("blind-v9", "gate_blind9", "j",
           ("5ee58aeb67449005d95c1a29cfef7153514c7e2034be9f1baf1280ff599896d2",
            "2c0a1103614e67fa6fc735099f3ecbaef88d6e6c91fe2fd56ea1e50db93ca4b4"), 145, 60,
           {"terminal": 25, "skills": 23, "data-analysis": 37, "quoting": 60},
           {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v10, like v3-v9, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V10 = Split("blind-v10", "gate_blind10", "k",
            ("1d8ca03b4070ba859e0a7b56f4829cc50b4132891f983f03b88d74cf0867392c",
             "70de60a53a637ec855b14d3c106745cdeeaef0a96f73dea6a2fcec1c3b6c24d1"), 145, 60,
            {"terminal": 31, "skills": 27, "data-analysis": 21, "quoting": 66},
            {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v11, like v3-v10, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V11 = Split("blind-v11", "gate_blind11", "l",
            ("50f84f8a6238818c5fcf647215c56607f451b0cd567aad423e9ccf02969d3db8",
             "4e8c329dd3a86e4a5764f0b707d099fbf2542fbb3628c62ed4af0533ef85908e"), 145, 60,
            {"terminal": 31, "skills": 30, "data-analysis": 20, "quoting": 64},
            {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v12, like v3-v11, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V12 = Split("blind-v12", "gate_blind12", "m",
            ("69f2899b0a332b24c528203b8b459edddd144c6ab78f592707bea2e6ac67fbfc",
             "43cdfce23d98e66f8945e69f953642669af5d53372ef8453ff2cad56877b406b"), 145, 60,
            {"terminal": 24, "skills": 32, "data-analysis": 32, "quoting": 57},
            {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v13, like v3-v12, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V13 = Split("blind-v13", "gate_blind13", "n",
            ("501c3c9996e3ade6104f36c6eeb42df721af52a1a4c783efdb202b59f2b42b65",
             "b7c4b6b02088bba6bba7af553a6dd637323297be0419ab9bcef1274d57c61370"), 145, 60,
            {"terminal": 31, "skills": 26, "data-analysis": 28, "quoting": 60},
            {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
# v14, like v3-v12, reuses suite tasks (a seeded sample of 60 with another seed): new rewrites, not new tasks.
V14 = Split("blind-v14", "gate_blind14", "o",
            ("48d21ed46d45b56fe5dbe5d643e12a7b96e0deb5340b4c8cf1b6df786b719f0d",
             "77372778f548a48332f8478ada710011174d6596cd8ba2506f5d7bde90504cea"), 145, 60,
            {"terminal": 38, "skills": 20, "data-analysis": 28, "quoting": 59},
            {"faithful": 60, "unfaithful": 85}, {"rules": 55, "judge": 30})
SPLITS = pytest.mark.parametrize("s", [V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14],
                                 ids=lambda s: s.origin)


def _lines(s: Split) -> list[dict]:
    return [json.loads(line) for line in s.split.read_text(encoding="utf-8").splitlines()]


def _cases(s: Split) -> list[dict]:
    return _lines(s)[1:]


def _originals(s: Split) -> dict[str, str]:
    return json.loads(s.originals.read_text(encoding="utf-8"))


def _family(task: str) -> str:
    return tomllib.loads((SUITE / task / "task.toml").read_text())["metadata"]["matchmeter"]["source_family"]


@SPLITS
def test_split_files_are_pinned(s: Split):
    for path, pin in zip((s.split, s.originals), s.pins, strict=True):
        assert hashlib.sha256(path.read_bytes()).hexdigest() == pin, (
            f"{path.name} changed: a blind split is never edited; put new cases in a new file with its own pin")


@SPLITS
def test_meta_record_names_the_split_and_counts_its_cases(s: Split):
    meta = _lines(s)[0]["meta"]
    assert meta["name"] == s.origin
    assert meta["cases"] == len(_cases(s)) == s.cases
    assert meta["tasks"] == len(_originals(s)) == s.tasks


@SPLITS
def test_every_case_has_the_fields_in_order_and_a_unique_sequential_id(s: Split):
    cases = _cases(s)
    assert [list(c) for c in cases] == [FIELDS] * len(cases)
    assert [c["id"] for c in cases] == [f"{s.id_prefix}{i:03d}" for i in range(len(cases))]
    assert {(c["split"], c["origin"]) for c in cases} == {("blind", s.origin)}
    assert all(isinstance(c["candidate"], str) and c["candidate"].strip() for c in cases)


@SPLITS
def test_labels_kinds_and_visibility_are_in_the_vocabulary(s: Split):
    for case in _cases(s):
        label, _, kind = case["kind"].partition(":")
        assert label == case["label"], case["id"]
        if label == "faithful":
            assert kind in FAITHFUL_KINDS, case["id"]
            assert case["obligation"] == case["visibility"] == "", case["id"]
        else:
            assert label == "unfaithful", case["id"]
            assert kind in RULE_KINDS | JUDGE_KINDS, case["id"]
            # A rule-visible slip is a dropped/weakened/changed/leaked item; a judge-only slip needs meaning.
            assert case["visibility"] == ("rules" if kind in RULE_KINDS else "judge"), case["id"]
            assert case["obligation"].strip(), case["id"]


@SPLITS
def test_a_faithful_candidate_is_never_the_original_itself(s: Split):
    originals = _originals(s)
    assert all(c["candidate"] != originals[c["task"]] for c in _cases(s))


@SPLITS
def test_the_split_covers_every_family_with_both_labels_and_both_visibilities(s: Split):
    cases = _cases(s)
    by = Counter((_family(c["task"]), c["label"]) for c in cases)
    assert {f for f, _ in by} == FAMILIES
    assert all(by[(f, label)] >= 5 for f in FAMILIES for label in ("faithful", "unfaithful")), by
    assert Counter(_family(c["task"]) for c in cases) == s.families
    assert Counter(c["label"] for c in cases) == s.labels
    assert Counter(c["visibility"] for c in cases if c["label"] == "unfaithful") == s.visibility
    assert len({c["task"] for c in cases}) >= 30


@SPLITS
def test_every_task_exists_and_its_original_is_the_current_instruction(s: Split):
    originals = _originals(s)
    assert set(originals) == {c["task"] for c in _cases(s)}
    stale = []
    for task, text in originals.items():
        instruction = SUITE / task / "instruction.md"
        assert instruction.is_file(), f"{task}: no such task in {SUITE}"
        if instruction.read_text(encoding="utf-8") != text:
            stale.append(task)
    # A reworded task makes its blind cases measure an instruction the suite no longer has.
    assert stale == [], f"instruction.md changed since {s.origin} was written: {stale}"


@SPLITS
def test_each_case_carries_the_sha256_of_the_original_it_was_written_against(s: Split):
    originals = _originals(s)
    for case in _cases(s):
        assert case["original_sha256"] == hashlib.sha256(originals[case["task"]].encode()).hexdigest(), case["id"]


@SPLITS
def test_quoting_payloads_in_faithful_cases_are_byte_identical_to_the_original(s: Split):
    # The quoting family's payload is the task: a faithful rewrite that alters one byte of it is mislabelled.
    originals = _originals(s)
    for case in _cases(s):
        blocks = re.findall(r"```text\n(.*?)\n```", originals[case["task"]], re.S)
        if case["label"] == "faithful" and blocks:
            assert all(block in case["candidate"] for block in blocks), case["id"]


def test_blind_v2_is_written_on_every_suite_task_blind_v1_did_not_use():
    # v2 measures the gate on instructions v1 never showed it: no task of v1, and every other suite task.
    v1, v2 = set(_originals(V1)), set(_originals(V2))
    suite = {p.parent.name for p in SUITE.glob("*/instruction.md")}
    assert v2.isdisjoint(v1)
    assert v2 == suite - v1
