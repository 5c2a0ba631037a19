"""`matchmeter tasks export --format harbor`: the Core subset against Harbor's task schema (a JSON schema
written from Harbor 0.26's TaskConfig, tests/data/harbor_task_config.schema.json), Harbor's layout, a
round trip through our loader, and one exported task built and run the way Harbor runs it (docker
build; oracle = solution/solve.sh in WORKDIR; tests uploaded to /tests; reward read from
/logs/verifier/reward.txt). Harbor's own `harbor lint` and pydantic models check the export in
test_harbor_real.py.
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import tomllib
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from matchmeter.cli import app
from matchmeter.runner.sandbox.baseimage import instructions
from matchmeter.tasks.harbor import BAKED_SETUP
from matchmeter.tasks.loader import (
    builtin_probes_dir,
    builtin_suite_dir,
    load_task,
    load_tasks,
    setup_libs,
    shared_dir,
    task_files,
    verify_support_files,
)
from matchmeter.tasks.oracle import solve_script
from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter
from tests.tasks.quoting_gen import TASK_IDS as QUOTING_IDS

SCHEMA = json.loads((Path(__file__).parents[1] / "data" / "harbor_task_config.schema.json").read_text())
HARBOR_LAYOUT = ("task.toml", "instruction.md", "environment/Dockerfile", "solution/solve.sh", "tests/test.sh")


def test_core_subset_exports_one_task_each(exported):
    core = [t.id for t in load_tasks([], core=True)]
    assert sorted(p.name for p in exported.iterdir()) == sorted(core)
    assert len(core) >= 8


def test_every_export_matches_harbor_schema_and_layout(exported):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for task_dir in sorted(exported.iterdir()):
        config = tomllib.loads((task_dir / "task.toml").read_text())
        errors = [f"{'.'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(config)]
        assert errors == [], task_dir.name
        assert [f for f in HARBOR_LAYOUT if not (task_dir / f).is_file()] == [], task_dir.name
        assert config["environment"]["network_mode"] == "no-network"
        assert set(config["metadata"]) == {"category", "difficulty", "tags", "matchmeter", "harbor"}
        assert config["metadata"]["harbor"] == {"lint": {"ignore": ["shared-verifier"]}}


def test_schema_rejects_what_harbor_lint_flags():
    validator = jsonschema.Draft202012Validator(SCHEMA)
    assert not list(validator.iter_errors({"metadata": {"anything": {"goes": 1}}, "verifier": {"timeout_sec": 5}}))
    for bad in ({"subgoals": []}, {"environment": {"setup": "setup.sh"}}, {"agent": {"timeout": 5}},
                {"environment": {"network_mode": "offline"}}):
        assert list(validator.iter_errors(bad)), bad


def test_export_is_self_contained_and_round_trips(exported):
    uses = {p.name: setup_libs(load_task(builtin_suite_dir() / p.name)) for p in exported.iterdir()}
    assert uses["git-recover-branches"] == {"seedgit.py": shared_dir() / "setup" / "seedgit.py"}
    assert uses["q-env-line-h1"] == {}  # a shared setup script that imports no module: the plain layout
    for task_dir in sorted(exported.iterdir()):
        source = load_task(builtin_suite_dir() / task_dir.name)
        dockerfile = (task_dir / "environment" / "Dockerfile").read_text()
        assert "ENV MM_SEED=3 MM_APP=/app MM_TESTS=/tests MM_LOGS=/logs/verifier" in dockerfile
        assert f"RUN bash /tmp/{BAKED_SETUP}" in dockerfile
        setup = task_files(source).setup  # the task's own, or the shared one it names
        assert setup is not None
        assert (task_dir / "environment" / BAKED_SETUP).read_bytes() == setup.read_bytes()
        assert (task_dir / "tests" / "setup.sh").read_bytes() == setup.read_bytes()
        libs = setup_libs(source)  # shared setup modules (seedgit.py) beside the baked script and in tests/
        for name, host in libs.items():
            assert (task_dir / "environment" / name).read_bytes() == host.read_bytes(), task_dir.name
            assert (task_dir / "tests" / name).read_bytes() == host.read_bytes(), task_dir.name
        copy = f"COPY {' '.join([BAKED_SETUP, *sorted(libs)])} /tmp/" if libs else f"COPY {BAKED_SETUP} /tmp/{BAKED_SETUP}"
        assert copy in dockerfile.splitlines(), task_dir.name
        assert sorted(p.name for p in (task_dir / "environment").iterdir()) == sorted(["Dockerfile", BAKED_SETUP, *libs])
        assert (task_dir / "tests" / "verifylib.py").read_bytes() == \
            (builtin_suite_dir() / "_shared" / "verifylib.py").read_bytes()
        assert (task_dir / "tests" / "setup.sh").is_file()
        # The source keeps its oracle in task.toml only; the export carries it as Harbor's solution/solve.sh.
        assert not (Path(source.path) / "solution").exists(), task_dir.name
        assert [p.name for p in (task_dir / "solution").iterdir()] == ["solve.sh"], task_dir.name
        assert (task_dir / "solution" / "solve.sh").read_text() == solve_script(source.reference_paths[0].commands)
        back = load_task(task_dir)
        assert back.environment.setup is None  # the image holds the state: no second seeding
        keep = {"id", "source_family", "category", "difficulty", "subgoals", "reference_paths", "budgets",
                "timeouts", "safety"}
        assert back.model_dump(include=keep) == source.model_dump(include=keep), task_dir.name


def test_export_keeps_the_task_dockerfile_and_its_build_context(tmp_path):
    """A task whose Dockerfile bakes state (a Harbor/TB2 task) keeps it, and the files it COPYs, in the
    export; only a FROM of the matchmeter base is renamed to --base-image, and the seed's ENV comes last."""
    src = tmp_path / "src" / "harbor-state"
    shutil.copytree(Path(__file__).parent / "data" / "harbor-state", src)
    (src / "environment" / "greeting.txt").write_text("hi\n")
    with (src / "environment" / "Dockerfile").open("a") as f:
        f.write("COPY greeting.txt /app/greeting.txt\n")
    result = CliRunner().invoke(app, ["tasks", "export", "--path", str(src), "--seed", "7", "--base-image",
                                      "local/base:1", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    env = tmp_path / "out" / "harbor-state" / "environment"
    assert sorted(p.name for p in env.iterdir()) == ["Dockerfile", "greeting.txt"]
    assert instructions((env / "Dockerfile").read_text()) == [
        "FROM local/base:1", "WORKDIR /app",
        "RUN printf 'harbor\\n' > /app/state.txt && mkdir -p /opt/task && printf 'baked\\n' > /opt/task/marker",
        "COPY greeting.txt /app/greeting.txt", "ENV MM_SEED=7 MM_APP=/app MM_TESTS=/tests MM_LOGS=/logs/verifier",
        "WORKDIR /app"]


def test_export_keeps_a_task_own_solution(tmp_path):
    """A Harbor-layout task's own solution/ goes out whole, even beside a reference path it differs from."""
    src = write_task(tmp_path / "src")
    (src / "solution" / "solve.sh").write_text('bash "$(dirname "$0")/helper.sh"\n')
    (src / "solution" / "helper.sh").write_text("cp data/input.txt out.txt\n")
    result = CliRunner().invoke(app, ["tasks", "export", "--path", str(src), "--seed", "0", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    out = tmp_path / "out" / src.name / "solution"
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {p.name: p.read_bytes() for p in (src / "solution").iterdir()}
    assert (out / "solve.sh").read_text() != solve_script(load_task(src).reference_paths[0].commands)


def mm(*args: str) -> subprocess.CompletedProcess:
    return run_matchmeter(*args, timeout=120)


def test_export_refuses_a_non_empty_target_and_unknown_format(exported, tmp_path):
    first = next(exported.iterdir()).name
    proc = mm("tasks", "export", "--task", first, str(exported))
    assert proc.returncode == 2
    assert f"{exported / first} already exists" in proc.stderr
    assert "pass an empty output directory" in proc.stderr
    proc = mm("tasks", "export", "--format", "inspect", str(tmp_path / "o"))
    assert proc.returncode == 2
    assert "unknown export format 'inspect'" in proc.stderr


def _docker(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)


def harbor_style_trial(task_dir: Path, image: str, oracle: bool) -> str:
    """Run the exported task as Harbor does; return what /logs/verifier/reward.txt holds."""
    name = f"mm-harbor-{secrets.token_hex(4)}"
    assert _docker("run", "-d", "--name", name, "--network", "none", image, "sleep", "600").returncode == 0
    try:
        if oracle:
            assert _docker("cp", f"{task_dir / 'solution'}/.", f"{name}:/solution").returncode == 0
            assert _docker("exec", name, "bash", "/solution/solve.sh").returncode == 0
        # "dir/." copies the contents, whether or not the image already has the directory (the base has /tests).
        assert _docker("cp", f"{task_dir / 'tests'}/.", f"{name}:/tests").returncode == 0
        _docker("exec", name, "bash", "-c", "mkdir -p /logs/verifier && bash /tests/test.sh")
        return _docker("exec", name, "cat", "/logs/verifier/reward.txt").stdout.strip()
    finally:
        _docker("rm", "-f", name)


@pytest.mark.docker
# The cases share the export's first layers (FROM, ENV, WORKDIR), and one case's `docker rmi` of its image can
# delete a shared untagged layer while another case's build still uses it as cache ("unknown parent image ID").
# So each build makes layers of its own (--no-cache), and one worker builds them in turn besides.
@pytest.mark.xdist_group("harbor-export-builds")
@pytest.mark.parametrize("task_id", ["ab-test-ztest", "q-write-bytes-h2", "git-recover-branches"])
def test_exported_task_builds_and_scores_like_harbor_oracle(tmp_path, task_id):
    from matchmeter.runner.sandbox.baseimage import build_base_image

    build_base_image()  # a no-op when the image exists
    result = CliRunner().invoke(app, ["tasks", "export", "--task", task_id, "--seed", "5", str(tmp_path)])
    assert result.exit_code == 0, result.output
    task_dir, image = tmp_path / task_id, f"mm-harbor-export-test:{secrets.token_hex(4)}"
    build = _docker("build", "--no-cache", "-q", "-t", image, str(task_dir / "environment"), timeout=600)
    assert build.returncode == 0, build.stderr
    try:
        assert float(harbor_style_trial(task_dir, image, oracle=True)) == 1.0
        assert float(harbor_style_trial(task_dir, image, oracle=False)) < 1.0
    finally:
        _docker("rmi", "-f", image)


def test_no_task_keeps_a_derived_copy_and_the_runner_supplies_them():
    """The suite holds one verifylib.py, quoting.py and verifier per quoting family, each task one setup
    script; what a verifier needs of them is supplied at verify time (verify_support_files), so no task
    directory holds a copy; nor a solve.sh (matchmeter/tasks/oracle.py writes it from task.toml)."""
    shared = {p.name for p in shared_dir().rglob("*.py")}
    tasks = load_tasks([]) + load_tasks([builtin_probes_dir()])
    assert len(tasks) >= 120
    for task in tasks:
        tests = Path(task.path) / "tests"
        assert not (shared | {"setup.sh"}) & {p.name for p in tests.iterdir()}, task.id
        assert not (Path(task.path) / "solution").exists(), f"{task.id}: the oracle is task.toml's reference path"
        support = verify_support_files(task)
        assert support["setup.sh"] == task_files(task).setup, task.id
        assert support["verifylib.py"] == shared_dir() / "verifylib.py", task.id
        generated = task.id in QUOTING_IDS
        assert ("quoting.py" in support) == generated, task.id
        if generated:  # test.sh runs the family's one verifier, which imports verifylib and quoting
            assert task.environment.setup == f"shared:quoting/{task.category}.sh", task.id
            assert not (Path(task.path) / "environment" / "setup.sh").exists(), task.id
            assert support["setup.sh"] == shared_dir() / "setup" / "quoting" / f"{task.category}.sh", task.id
            family = f"verify_{task.category.replace('-', '_')}.py"
            assert support[family] == shared_dir() / "quoting" / family, task.id
            assert set(support) == {"setup.sh", "verifylib.py", "quoting.py", family, *setup_libs(task)}, task.id
    harbor = load_task(Path(__file__).parent / "data" / "harbor-hello")
    assert verify_support_files(harbor) == {}


def test_a_task_own_copy_wins_over_the_shared_one(tmp_path):
    task_dir = tmp_path / "ab-test-ztest"
    shutil.copytree(builtin_suite_dir() / "ab-test-ztest", task_dir)
    (task_dir / "tests" / "verifylib.py").write_text("# the task's own\n")
    assert "verifylib.py" not in verify_support_files(load_task(task_dir))
    assert "setup.sh" in verify_support_files(load_task(task_dir))
