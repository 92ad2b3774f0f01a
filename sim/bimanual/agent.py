"""A planner behind any OpenAI-compatible chat-completions API, playing a `BimanualEnv`.

Each turn is one request: the system text of `sim.bimanual.prompts` (task, actions,
reply format) and a user message laid out as the ST-BiBench harness lays it out
(BiManiBench `script/vlmplanner.py`, `VLMPlanner.get_message`): the current camera
images as PNG data URLs (head first), the user text (the current poses, the last three
steps and the request), then, on the planning tier with the harness's example, the
task's example picture, its bytes as shipped. The reply's text goes to `env.step` as it
came: broken JSON is repaired or becomes a format-error step, never an exception. HTTP
and retries are `sim.llm.chat_completion`'s; a transport failure that survives them
raises `sim.llm.ModelError` for the caller to record (outcome "error"). Each step carries
its request's latency and tokens (`latency_s`, `tokens_in`, `tokens_out`); `stats` counts
the agent's requests.
"""

from __future__ import annotations

import base64
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from sim.bimanual import prompts as bimanual_prompts
from sim.llm import (
    DEFAULT_RETRY,
    MAX_IMAGE_SIDE,
    EndpointStats,
    OpenAIConfig,
    RetryPolicy,
    chat_completion,
    message_text,
    png_data_url,
)


def example_data_url(png: bytes) -> str:
    """A PNG file's bytes as a data URL, unchanged, as the harness's
    `local_image_to_data_url` makes it for a .png path."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


class BimanualOpenAIAgent:
    """Plays one bimanual episode per `run`, one chat completion per step."""

    name = "openai"

    def __init__(
        self,
        config: OpenAIConfig,
        *,
        max_image_side: int = MAX_IMAGE_SIDE,
        retry: RetryPolicy = DEFAULT_RETRY,
        stats: EndpointStats | None = None,
    ) -> None:
        self.config = config
        self.model = config.label
        self.max_image_side = max_image_side
        self.retry = retry
        self.stats = stats if stats is not None else EndpointStats()
        # entered around every request: a runner may let other threads simulate meanwhile
        self.waiting: AbstractContextManager = nullcontext()

    @property
    def requests(self) -> int:
        """HTTP requests made so far, retries included."""
        return self.stats.requests

    def messages(self, env) -> list[dict[str, Any]]:
        """The request's messages for the env's next step."""
        system, user = bimanual_prompts.prompt_for(env)
        parts: list[dict[str, Any]] = [
            {"type": "image_url", "image_url": {"url": png_data_url(png, self.max_image_side)}}
            for png in env.latest_images().values()
        ]
        parts.append({"type": "text", "text": user})
        example = getattr(env, "example_png", None)
        if example is not None:  # as it is, not scaled: the harness sends the file's bytes
            parts.append({"type": "image_url", "image_url": {"url": example_data_url(example)}})
        return [{"role": "system", "content": system}, {"role": "user", "content": parts}]

    def run(self, env) -> None:
        """Ask for plans until the task succeeds or the env's step budget is spent."""
        while not env.done:
            messages = self.messages(env)
            with self.waiting:
                completion = chat_completion(
                    self.config, messages, retry=self.retry, stats=self.stats
                )
            message = completion.message
            content = message_text(message.get("content"))
            reasoning = message_text(message.get("reasoning_content") or message.get("reasoning"))
            first_step = len(env.steps)
            env.step(content, model_text={"reasoning": reasoning} if reasoning else None)
            if first_step < len(env.steps):
                env.steps[first_step].update(completion.step_figures())
