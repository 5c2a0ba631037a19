"""Harbor's own Docker environment, with `no-network` enforced by `network_mode: none` instead of its
egress sidecar. Loaded by Harbor (`harbor run --env tests.tasks.harbor_offline_env:OfflineDockerEnvironment`),
in Harbor's Python; matchmeter never imports it.

Why: Harbor 0.26 enforces a task's `network_mode = "no-network"` only through an egress-control sidecar
whose images (a gost proxy, and an alpine kernel probe) it pulls from Docker Hub. Where nothing can be
pulled, the stock environment rejects every no-network task before it starts. This double replaces only
that sidecar: the container gets no network at all (Harbor's own docker-compose-no-network.yaml), which
is what no-network means for a task that never changes policy mid-trial. Build, exec, upload, oracle,
verifier and result files are Harbor's, unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.environments.docker import COMPOSE_NO_NETWORK_PATH
from harbor.environments.docker.docker import DockerEnvironment
from harbor.models.task.config import NetworkMode, NetworkPolicy


class OfflineDockerEnvironment(DockerEnvironment):
    @staticmethod
    def _requires_egress_control(**_: Any) -> bool:
        return False  # never build or probe the sidecar: its images cannot be pulled here

    def _offline(self) -> bool:
        policy = getattr(self, "_network_policy", None)
        return policy is not None and policy.network_mode == NetworkMode.NO_NETWORK

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return super().capabilities.model_copy(update={"disable_internet": True})

    @property
    def _docker_compose_paths(self) -> list[Path]:
        paths: list[Path] = list(super()._docker_compose_paths)
        return [*paths, COMPOSE_NO_NETWORK_PATH] if self._offline() else paths

    async def _apply_network_policy(self, network_policy: NetworkPolicy) -> None:
        if network_policy.network_mode == NetworkMode.NO_NETWORK and self._offline():
            return  # already without a network since the container started
        await super()._apply_network_policy(network_policy)
