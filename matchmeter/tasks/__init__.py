"""Tasks: the directory format, the loader, the Terminal-Bench 1 importer and the built-in suite.

Import cost is small on purpose (pydantic + stdlib): the runner and the CLI import this eagerly.
"""

from matchmeter.tasks.loader import (
    TaskPaths,
    builtin_probes_dir,
    builtin_suite_dir,
    load_task,
    load_tasks,
    task_files,
)

__all__ = ["TaskPaths", "builtin_probes_dir", "builtin_suite_dir", "load_task", "load_tasks", "task_files"]
