"""Rule checks: every rule names its reason; a faithful clarification passes all of them."""

from __future__ import annotations

import pytest

from matchmeter.gate.rules import ReferenceKnowledge, check_rules
from tests.gate.service_task import INSTRUCTION, service_task

FAITHFUL = INSTRUCTION.rstrip() + (
    "\n\nTo be explicit: app/server.py, run/server.pid and app/config.ini are relative to the working directory, "
    "and the service must keep running after you finish.\n"
)


@pytest.fixture
def knowledge(tmp_path):
    return ReferenceKnowledge.of_task(service_task(tmp_path))


def reasons(candidate: str, knowledge: ReferenceKnowledge, earlier=()) -> list[str]:
    return [r for result in check_rules(INSTRUCTION, candidate, knowledge, earlier) for r in result.reasons]


def test_faithful_clarification_passes_every_rule(knowledge):
    assert reasons(FAITHFUL, knowledge) == []


@pytest.mark.parametrize(("candidate", "expected"), [
    (FAITHFUL.replace("run/server.pid", "a pid file"), "drops_literal:path:run/server.pid"),
    (FAITHFUL.replace("8080", "9090"), "changes_number:8080"),
    (FAITHFUL.replace('"count"', '"total"'), "drops_literal:quoted:count"),
    (FAITHFUL.replace("must be JSON", "must be structured"), "drops_literal:format:json"),
    (FAITHFUL.replace("Do not modify app/config.ini.", "You may read app/config.ini."),
     "drops_prohibition:Do not modify app/config.ini."),
    (FAITHFUL + "Write a log to logs/service.log as well.\n", "adds_path:logs/service.log"),
    (FAITHFUL + "Start it with nohup python3 app/server.py --bind 127.0.0.1:8080 > run/log 2>&1 &\n",
     "leaks_reference:nohup python3 app/server.py --bind 127.0.0.1:8080 > run/log"),
    (FAITHFUL + "Use the --bind option.\n", "leaks_reference:--bind"),
    (FAITHFUL + "The health check looks for inventory_ok.\n", "leaks_reference:inventory_ok"),
    (FAITHFUL + "Launch it with python3.\n", "leaks_reference:python3"),
    (FAITHFUL + "1. Create the run directory.\n2. Start the server.\n3. Save the pid.\n", "adds_step_list"),
    (FAITHFUL + "Record the pid with `echo $! > pidfile`.\n", "adds_backtick_command:echo $! > pidfile"),
    (" ".join(INSTRUCTION.split()).upper(), "duplicate_candidate:original"),
])
def test_each_violation_is_rejected_with_its_named_reason(knowledge, candidate, expected):
    found = reasons(candidate, knowledge)
    assert any(r.startswith(expected) for r in found), found


def test_duplicate_of_an_earlier_candidate_names_it(knowledge):
    assert reasons(FAITHFUL, knowledge, earlier=[("abc123", "  " + FAITHFUL.upper() + " ")]) == [
        "duplicate_candidate:abc123"]


def test_prose_word_pairs_are_not_new_paths(knowledge):
    assert reasons(FAITHFUL + "Any read/write error and/or crash counts as failure.\n", knowledge) == []


def test_prose_use_of_a_common_command_name_is_not_a_leak(knowledge):
    # `echo` is a reference tool, but as an English word outside code it gives nothing away
    assert reasons(FAITHFUL + "Expect no echo of the request body.\n", knowledge) == []


def test_steps_the_original_already_had_are_not_added_steps(knowledge):
    original = "Fix two files:\n- a.txt gets a header\n- b.txt gets a footer\n"
    clarified = original + "Both files live in the working directory; keep their other lines as they are.\n"
    assert [r for res in check_rules(original, clarified, knowledge) for r in res.reasons] == []
