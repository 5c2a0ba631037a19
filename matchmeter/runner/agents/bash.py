"""The built-in `bash` agent: one model turn → one shell command → its observation, until `submit`.

Reply format the model must follow (stated in the system prompt): free text (a THOUGHT) and exactly
one fenced block opened with ```bash (```sh is accepted too) holding one shell command. A block whose
only content is `submit` (or MATCHMETER_SUBMIT) ends the run. A reply with zero or several blocks
is a format error: it is answered with a correction, counts as a model turn but not a step, and
three in a row raise AgentError. Commands go through `session.execute` (transport, truncation,
budgets); BudgetExceeded, AgentTimeout and SpendCapReached propagate to the runner.

Model calls: only through the model gateway the trial opens for the execution (`session.gateway`: the
execution's token on the gateway's loopback URL), like every CLI's; tokens, cost, budgets, the endpoint,
its key, cache and retries are the gateway's (the configuration's `ModelEndpoint`). The agent itself reads
only the endpoint's sampling (temperature, top_p, max_tokens) and per-call timeout.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from matchmeter.errors import AgentError, InfraError, UserError
from matchmeter.llm.gateway_client import GatewayClient
from matchmeter.runner.agents.session import OUTPUT_LIMIT_BYTES
from matchmeter.runner.transport import contract_note

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession
    from matchmeter.schema import Configuration, Step, TaskSpec

SUBMIT_WORDS = frozenset({"submit", "MATCHMETER_SUBMIT"})
MAX_FORMAT_ERRORS = 3
BLOCK_RE = re.compile(r"```(?:bash|sh)[ \t]*\n(.*?)```", re.S)

SYSTEM_PROMPT = """\
You are an autonomous agent that completes one task by running shell commands on a Linux machine.

Rules:
1. Every reply has a short THOUGHT, then exactly ONE shell command in ONE fenced block:
   ```bash
   <one command>
   ```
   A reply with no ```bash block or with several is rejected and still uses up a turn.
2. Each command runs as `bash -c <command>` in the working directory ($MM_APP). Every command starts
   a fresh shell: `cd` and `export` do not carry over, so chain with && when needed.
3. There is no terminal input: do not start editors, pagers or anything that waits for a keypress.
4. When the task is complete, reply with a block that contains only the word submit:
   ```bash
   submit
   ```

Budgets for this task: at most {steps} commands, {tokens} model tokens and ${usd:g} of model spend.
Wall-clock limit: {deadline_s:g} seconds for the whole task. One command is killed after {command_s:g} seconds.
Outputs longer than {limit} bytes are cut in the middle, and the cut is marked.
{contract}"""

USER_PROMPT = "Complete this task.\n\n<description>\n{description}\n</description>\n"

FORMAT_ERROR = (
    "Format error: your reply must contain exactly one ```bash block, but it contained {n}. "
    "Reply again with one command in one ```bash block, or a block containing only `submit` to finish."
)


def parse_commands(text: str) -> list[str]:
    """The contents of every ```bash / ```sh block, stripped."""
    return [block.strip() for block in BLOCK_RE.findall(text)]


def is_submit(command: str) -> bool:
    return command.strip() in SUBMIT_WORDS


def observation(step: Step, steps_left: int) -> str:
    """What the model sees after a command: exit code and (possibly truncated, marked) output."""
    note = "The command timed out and was killed.\n" if step.timed_out else ""
    return (f"{note}<returncode>{step.exit_code}</returncode>\n<output>\n{step.output}</output>\n"
            f"Commands left: {steps_left}")


class BashAgent:
    name = "bash"

    def __init__(self, *, configuration: Configuration, task: TaskSpec) -> None:
        self.configuration, self.task = configuration, task
        self.endpoint = configuration.endpoint

    # ------------------------------------------------------------------ protocol

    def setup(self, session: AgentSession) -> None:
        if not self.configuration.model:
            raise UserError("the bash agent needs a model", f"configuration {self.configuration.id}",
                            "pass --model (a litellm model string or sim/<persona>)")

    def run(self, description: str, session: AgentSession) -> None:
        client = self.make_client(session)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt(session)},
            {"role": "user", "content": USER_PROMPT.format(description=description)},
        ]
        format_errors = 0
        try:
            while True:
                session.check_budgets()
                # The call in flight is cut at the task's deadline by the gateway session (set by the trial).
                reply = client.complete(messages, timeout_s=self._call_timeout(session), **self.endpoint.sampling())
                session.record_model_call(reply.to_model_call(len(session.trajectory.model_calls)))
                messages.append({"role": "assistant", "content": reply.text})
                commands = parse_commands(reply.text)
                if len(commands) != 1:
                    format_errors += 1
                    if format_errors >= MAX_FORMAT_ERRORS:
                        raise AgentError(f"model {self.configuration.model} broke the reply format "
                                         f"{MAX_FORMAT_ERRORS} times in a row (last reply had {len(commands)} ```bash blocks)")
                    messages.append({"role": "user", "content": FORMAT_ERROR.format(n=len(commands))})
                    continue
                format_errors = 0
                if is_submit(commands[0]):
                    session.trajectory.final_message = reply.text
                    return
                step = session.execute(commands[0])
                step.tokens, step.cost = reply.tokens, reply.cost
                steps_left = session.budgets.steps - len(session.trajectory.steps)
                messages.append({"role": "user", "content": observation(step, steps_left)})
        finally:
            client.close()

    # ------------------------------------------------------------------ helpers

    def system_prompt(self, session: AgentSession) -> str:
        """The rules, budgets and limit. Built from configured values only (not the clock), so identical
        trials send identical prompts and a rerun is served from the cache; the workspace is named $MM_APP,
        not by its path, because the local backend's path is a fresh temp dir per trial."""
        note = contract_note(self.configuration.contract)
        return SYSTEM_PROMPT.format(
            steps=session.budgets.steps, tokens=session.budgets.tokens,
            usd=session.budgets.usd,
            # this agent phase's limit (a step's own deadline in a multi-step task), set from configured values
            deadline_s=session.limit_s if session.limit_s is not None else min(session.budgets.wall_s,
                                                                                self.task.timeouts.agent_s),
            limit=OUTPUT_LIMIT_BYTES,
            command_s=self.task.timeouts.command_s, contract=f"\n{note}\n" if note else "",
        )

    def _call_timeout(self, session: AgentSession) -> float:
        return max(min(self.endpoint.timeout_s, session.remaining_s()), 1.0)

    def make_client(self, session: AgentSession) -> GatewayClient:
        """The gateway's client for this execution: the bash agent has no other road to its model.

        Raises:
            InfraError: the trial opened no gateway session (a runner that does not route the model through it).
        """
        if session.gateway is None:
            raise InfraError("the bash agent reaches its model only through matchmeter's model gateway, and this "
                             "trial opened none (run it through execute_plan, or give TrialRequest a gateway)")
        return GatewayClient(session.gateway.harness_url, session.gateway.token, str(self.configuration.model),
                             timeout_s=self.endpoint.timeout_s)
