"""What a task's environment/Dockerfile is read for outside Docker: the name of the matchmeter base image
and the grammar of a FROM line. The tasks layer (Harbor export) and the runner (image builds) both need
them, so they live here, below both."""

from __future__ import annotations

import re

BASE_IMAGE = "matchmeter-base:latest"
# FROM [--platform=…] image [AS stage]
FROM_LINE = re.compile(r"^(\s*FROM\s+(?:--\S+\s+)*)(\S+)(\s+AS\s+(\S+))?(.*)$", re.IGNORECASE)
