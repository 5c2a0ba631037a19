"""Shared fixtures: user/cache dirs go to tmp_path; markers skip only with a stated reason."""

from __future__ import annotations

import atexit
import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

if sys.dont_write_bytecode:
    # PYTHONDONTWRITEBYTECODE makes every pytest process (and each xdist worker) re-compile the package and
    # re-rewrite every test module's asserts on each run: a third of collection time. Cache that bytecode, for
    # this process only, outside the source tree (so no __pycache__ appears in it, which is what the setting is for).
    sys.pycache_prefix = os.environ.get("MATCHMETER_TEST_PYCACHE") or str(Path.home() / ".cache" / "matchmeter" / "test-pycache")
    sys.dont_write_bytecode = False


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("MATCHMETER_HOME", str(tmp_path / "mm-home"))
    monkeypatch.setenv("MATCHMETER_CACHE_DIR", str(tmp_path / "mm-cache"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _trajectories_are_atif(tmp_path):
    """Every trajectory.atif.json a test writes under its tmp_path must validate (tests/helpers/atif.py)."""
    yield
    from tests.helpers.atif import check_atif_files

    problems = check_atif_files(tmp_path)
    assert not problems, "invalid ATIF trajectories:\n" + "\n".join(problems[:20])


_WARM_CLI_TOTALS: dict[str, Any] = {"warm": 0, "cold_because": collections.Counter()}


def _add_warm_cli_stats(stats: dict[str, Any]) -> None:
    _WARM_CLI_TOTALS["warm"] += stats["warm"]
    _WARM_CLI_TOTALS["cold_because"].update(stats["cold_because"])


@pytest.hookimpl(optionalhook=True)  # xdist's hook: without xdist (`-p no:xdist`) pytest would refuse an unknown one
def pytest_testnodedown(node, error):
    """An xdist worker's counts of warm and cold CLI calls, sent with its last message (workeroutput)."""
    stats = getattr(node, "workeroutput", {}).get("warm_cli")
    if stats:
        _add_warm_cli_stats(json.loads(stats))


def pytest_terminal_summary(terminalreporter):
    """How many CLI calls were forked warm, and which variables made the others cold: one variable leaked into
    os.environ by a test (or a library it calls) turns every later call of that process cold, silently."""
    warm_cli = sys.modules.get("tests.helpers.warm_cli")
    if warm_cli is not None:  # this process made calls itself (no xdist); under xdist the controller makes none
        _add_warm_cli_stats(warm_cli.STATS)
    warm, cold = _WARM_CLI_TOTALS["warm"], _WARM_CLI_TOTALS["cold_because"]
    if warm or cold:
        because = ", ".join(f"{key} {n}" for key, n in cold.most_common(8)) or "none"
        terminalreporter.write_line(f"warm CLI calls: {warm}; cold, by differing import-time variable: {because}")


def pytest_sessionfinish(session, exitstatus):
    """The same check over the whole session's temp root (module- and session-scoped fixtures' dirs), plus
    Harbor's own ATIF model when MM_HARBOR_PYTHON is set (CI)."""
    warm_cli = sys.modules.get("tests.helpers.warm_cli")
    if warm_cli is not None and hasattr(session.config, "workeroutput"):  # an xdist worker: to the controller
        session.config.workeroutput["warm_cli"] = json.dumps(warm_cli.STATS)
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None or factory._basetemp is None:
        return
    from tests.helpers.atif import check_atif_files, harbor_problems

    problems = check_atif_files(factory.getbasetemp()) + harbor_problems(factory.getbasetemp())
    if problems:
        print("\ninvalid ATIF trajectories:\n" + "\n".join(problems[:20]))
        session.exitstatus = 1


def _host_trials_python3() -> None:
    """Put the `python3` task scripts should get (tests/tasks/harness.py's host_trials_python3: Debian's when the
    host has it, else the interpreter `python3` resolves to) first on PATH, with no wrapper in between.

    Task scripts run on the host (tests/tasks/harness.py, the local backend) call `python3` a few times per
    trial and the suite runs thousands of trials, so its start-up cost is paid about ten thousand times. A pyenv
    shim is a bash script that forks several processes per call; pyenv's interpreter then reads its own
    site-packages, where a machine may keep .pth files that run at every start (one here imports certifi):
    44 ms per `python3 -c pass` against 13 ms for Debian's, which has neither and is what the images run.
    """
    from tests.tasks.harness import host_trials_python3

    real, found = host_trials_python3(), shutil.which("python3")
    if not real or (found is not None and Path(real).resolve() == Path(found).resolve()):
        return  # already first on PATH (also true in xdist workers, which inherit the PATH set here)
    bindir = tempfile.mkdtemp(prefix="mm-test-python3-")
    Path(bindir, "python3").symlink_to(real)
    atexit.register(shutil.rmtree, bindir, True)
    os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def _setup_cache_dir() -> None:
    """One directory per session (xdist workers inherit it) where tests/tasks/harness.py keeps each seeded
    starting state it made, so the thousands of host trials run each task's setup.sh once per seed."""
    from tests.tasks.harness import SETUP_CACHE_ENV

    if os.environ.get(SETUP_CACHE_ENV):
        return  # a worker: the controller made it
    path = tempfile.mkdtemp(prefix="mm-test-setups-")
    atexit.register(shutil.rmtree, path, True)
    os.environ[SETUP_CACHE_ENV] = path


def _ctrl_c_reaches_children() -> None:
    """A shell that starts a command in the background without job control (`cmd &` in a script, a CI
    launcher) hands it SIGINT ignored, and an ignored signal stays ignored across exec: every `matchmeter`
    the Ctrl-C tests start would then shrug off the SIGINT they send (rc 0 instead of 130). A handler, unlike
    SIG_IGN, is reset to the default on exec, so installing Python's own here (before xdist starts its
    workers) gives each child the SIGINT a terminal's Ctrl-C would give it."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config):
    _ctrl_c_reaches_children()
    _host_trials_python3()
    _setup_cache_dir()


def docker_available() -> tuple[bool, str]:
    if shutil.which("docker") is None:
        return False, "docker CLI not found"
    try:
        proc = subprocess.run(["docker", "version"], capture_output=True, text=True, timeout=20)
    except Exception as exc:  # noqa: BLE001 - any probe failure means no engine
        return False, f"`docker version` failed: {exc}"
    if proc.returncode != 0:
        return False, f"`docker version` failed: {proc.stderr.strip()[:200]}"
    return True, ""


# Trials of the built-in suite's own scripts on the host (tests/tasks/harness.py): ~0.3 CPU-s each, thousands.
SLOW_TRIAL_TESTS = {
    "tests/tasks/test_suite_local.py": {"test_oracle_scores_one", "test_reference_path_scores_one",
                                        "test_nop_scores_below_one_and_seeds_differ",
                                        "test_setup_is_deterministic_per_seed"},
    "tests/tasks/test_checks.py": {"test_check_script_bound", "test_seed_zero_outputs_fail_other_seeds"},
}
# Whole runs, evaluations or CLI subprocess runs measured at 80-320 s each on the loaded 2-core box (-m "not slow").
SLOW_TRIAL_TESTS |= {
    "tests/metrics/test_health.py": {"test_score_and_report_leave_out_an_all_infra_configuration_and_say_when_they_re_price"},
    "tests/runner/test_real_endpoints.py": {
        "test_failures_during_a_run_are_printed_stored_as_infra_and_retried",
        "test_ctrl_c_prints_how_to_resume_even_with_quiet",  # 25 s of the fast set (idle machine, -n 2)
        "test_spend_cap_warns_for_unpriced_models_and_prices_file_prices_them",
        "test_malformed_json_is_a_user_error_at_preflight", "test_rejected_key_is_a_user_error_at_preflight",
        "test_provider_typo_is_a_user_error_at_preflight", "test_model_typo_on_the_server_is_a_user_error_at_preflight",
        "test_retry_failed_needs_resume_and_known_modes", "test_missing_key_variable_fails_at_preflight_naming_the_variable",
        "test_nothing_listening_fails_at_preflight_naming_the_endpoint"},
    "tests/runner/test_run_cli.py": {"test_spend_cap_stops_cleanly_and_resume_finishes"},  # 12 s, two whole runs
    "tests/pipeline/test_evaluate.py": {"test_all_conditions_plan_exactly_original_sources_generic_and_reuse",
                                        "test_original_executions_are_adopted_from_a_source_run"},
    "tests/gate/test_gate_stub.py": {"test_scripted_candidates_are_judged_with_the_right_reasons",
                                     "test_json_after_a_sentence_of_prose_is_a_verdict"},
    "tests/gate/test_corpus.py": {"test_gate_eval_cli_with_the_simulated_judge"},
}
SLOW_MARKS = ("docker", "bwrap", "live_cli")


def _is_slow(item) -> bool:
    """Slow: needs bwrap, Docker or a live CLI, uses a shared (module/session) fixture of ours, or is a suite trial."""
    if any(item.get_closest_marker(m) for m in ("slow", *SLOW_MARKS)):
        return True
    if _xdist_group(item) is not None:
        return True  # it shares a sandbox, built runs, a browser or installed CLIs with other tests
    path = item.nodeid.split("::")[0]
    return getattr(item, "originalname", item.name) in SLOW_TRIAL_TESTS.get(path, ())


def _xdist_group(item) -> str | None:
    """Tests sharing an expensive fixture wider than one test run on one worker (`--dist loadgroup`), so it is
    made once: a session fixture of ours by its name, a module/class one by the module. Others spread freely.

    A module whose wide fixtures are all made per value of one parameter (or cost nothing) says so with
    `XDIST_GROUP_BY = "<param>"`, and is grouped by module and that value: the adversarial modules (an arena
    whose nop baselines are per backend) run their bwrap and docker halves on two workers instead of one after
    the other. Not the sandbox conformance module: split so, its killed-runner test lost its own sleep (found no
    pid of it) in 4 of 6 runs while the docker half ran beside it."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    group = None
    for name in item.fixturenames:
        defs = info.name2fixturedefs.get(name)
        if not defs or not (defs[-1].baseid or "").startswith("tests"):
            continue  # pytest's own (tmp_path_factory, ...) cost nothing to repeat
        scope = defs[-1].scope
        if scope == "session":
            return f"fixture-{name}"
        if scope in ("package", "module", "class"):
            group = item.nodeid.split("::")[0]
    by = getattr(getattr(item, "module", None), "XDIST_GROUP_BY", None)
    params = getattr(getattr(item, "callspec", None), "params", {})
    if group is not None and by in params:
        group += f":{by}={params[by]}"  # no "]": xdist takes an id ending in "]" for a parametrized one, not a group
    return group


# Host trials (tests/tasks/harness.py) share the host's /tmp, and a task's scripts may use a fixed name there
# (a reference path writes and runs /tmp/extract.py; a check writes and deletes /tmp/mm-fixed.patch): two
# trials of one task at once would trample each other's file. So each task's host trials stay on one worker.
HOST_TRIAL_FILES = ("tests/tasks/test_checks.py", "tests/tasks/test_suite_local.py", "tests/tasks/test_traps.py")


def _host_trial_task(item) -> str | None:
    if item.nodeid.split("::")[0] not in HOST_TRIAL_FILES:
        return None
    params = getattr(getattr(item, "callspec", None), "params", {})
    return params.get("task_id") or getattr(params.get("task"), "id", None)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        if _is_slow(item) and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        if not item.get_closest_marker("xdist_group") and (group := _xdist_group(item)):
            item.add_marker(pytest.mark.xdist_group(group))
        elif not item.get_closest_marker("xdist_group") and (task_id := _host_trial_task(item)):
            item.add_marker(pytest.mark.xdist_group(f"host-trials-{task_id}"))
    has_docker, why_docker = docker_available()
    has_bwrap = shutil.which("bwrap") is not None
    for item in items:
        if "docker" in item.keywords and not has_docker:
            item.add_marker(pytest.mark.skip(reason=f"no Docker engine answers: {why_docker}"))
        if "bwrap" in item.keywords and not has_bwrap:
            item.add_marker(pytest.mark.skip(reason="bubblewrap (bwrap) is not installed: apt-get install bubblewrap"))


_LOST_GROUPS: list[str] = []


def pytest_collection_finish(session):
    """On an xdist worker under --dist loadgroup, every grouped test's id must carry its group (`@<group>`):
    that suffix is all the scheduler reads. pytest 9.2 ignores the id xdist 3.8 rewrites (pytest-xdist issue
    1386), and the groups then fall apart silently: each worker made every session fixture again (three CLI
    installs, three layer builds) and one task's host trials ran at once on several workers."""
    if getattr(session.config.option, "loadgroup", False):  # a worker of a loadgroup run (the controller does not collect)
        _LOST_GROUPS.extend(item.nodeid for item in session.items
                            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid)


def pytest_runtest_setup(item):
    if _LOST_GROUPS and item.get_closest_marker("xdist_group"):
        pytest.fail(f"--dist loadgroup lost the group of {len(_LOST_GROUPS)} tests (pytest-xdist issue 1386): this "
                    "pytest does not carry xdist_group marks to the scheduler; install pytest<9.2 (make venv)",
                    pytrace=False)
