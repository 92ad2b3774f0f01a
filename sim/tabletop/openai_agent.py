"""An agent that plays a `ToolEnv` episode through any OpenAI-compatible chat-completions API.

The requests go through `sim.llm` (config, HTTP, retries). Each user turn carries
the current top-down image (and, for the multiview variant, the oblique one) as a
base64 PNG data URL. Tool calls are run through `ToolEnv.call`; replies that are
not usable tool calls become format-error steps and the episode goes on.
Transport failures that survive the retries raise `sim.llm.ModelError`, for the
caller to record. The first step each reply produces carries the request's latency and
tokens (`latency_s`, `tokens_in`, `tokens_out`); `stats` counts the agent's requests.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from annotation.model_output import parse_model_output
from sim.llm import (
    DEFAULT_RETRY,
    Completion,
    EndpointStats,
    OpenAIConfig,
    RetryPolicy,
    chat_completion,
    message_text,
    png_url,
)
from sim.tabletop import prompts
from sim.tabletop.toolenv import TOOL_SPECS, ToolEnv


# -- message pieces ------------------------------------------------------------------------------
def tool_definitions(tools: Sequence[str]) -> list[dict[str, Any]]:
    """The OpenAI function-calling `tools` list for the named tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": TOOL_SPECS[name].description,
                "parameters": TOOL_SPECS[name].parameters,
            },
        }
        for name in tools
    ]


def _arguments(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    """Tool-call arguments read tolerantly: a dict, or (None, why not)."""
    if isinstance(value, dict):
        return value, None
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}, None
    parsed, why = parse_model_output(str(value))
    if parsed is None:
        return None, why
    if not isinstance(parsed, dict):
        return None, "arguments must be a JSON object"
    return parsed, None


def tool_call_from_text(text: str) -> tuple[str, dict[str, Any]] | None:
    """A tool call written as JSON in the reply text, e.g. {"tool": ..., "arguments": {...}}."""
    parsed, _ = parse_model_output(text)
    if isinstance(parsed, list) and len(parsed) == 1:
        parsed = parsed[0]
    if not isinstance(parsed, dict):
        return None
    if isinstance(parsed.get("function"), dict):  # {"function": {"name", "arguments"}}
        parsed = parsed["function"]
    name = parsed.get("tool") or parsed.get("name") or parsed.get("tool_name")
    if not isinstance(name, str) or name not in TOOL_SPECS:
        return None
    raw_args = next(
        (parsed[k] for k in ("arguments", "parameters", "args", "input") if k in parsed), {}
    )
    args, _ = _arguments(raw_args)
    return (name, args) if args is not None else None


# -- the agent -------------------------------------------------------------------------------
class OpenAIAgent:
    """Plays one episode per `run` against an OpenAI-compatible endpoint."""

    name = "openai"

    def __init__(
        self,
        config: OpenAIConfig,
        prompt_variant: str = "plain",
        max_turns: int = 30,
        *,
        retry: RetryPolicy = DEFAULT_RETRY,
        stats: EndpointStats | None = None,
    ) -> None:
        self.config = config
        self.model = config.label
        self.prompt_variant = prompts.check_variant(prompt_variant)
        self.max_turns = max_turns
        self.retry = retry
        self.stats = stats if stats is not None else EndpointStats()
        # entered around every request: a runner may let other threads simulate meanwhile
        self.waiting: AbstractContextManager = nullcontext()

    @property
    def requests(self) -> int:
        """HTTP requests made so far, retries included."""
        return self.stats.requests

    # -- episode loop ------------------------------------------------------------------------
    def run(self, env: ToolEnv) -> None:
        """Converse until the env is done or `max_turns` model replies have been read."""
        q, variant, mode = env.question, self.prompt_variant, env.mode
        tools = tool_definitions(env.tools)
        size = (env.camera.width, env.camera.height)
        messages: list[dict[str, Any]] = [
            {
                "role": "system",
                "content": prompts.system_prompt(mode, image_size=size, variant=variant),
            },
            self._user(env, prompts.first_user_text(q, variant, mode)),
        ]
        for turn in range(self.max_turns):
            if env.done:
                return
            completion = self._complete(messages, tools)
            first_step = len(env.steps)
            self._play_reply(env, completion.message, messages, turn)
            stamp_first_step(env.steps, first_step, completion)

    def _play_reply(
        self, env: ToolEnv, message: dict[str, Any], messages: list[dict[str, Any]], turn: int
    ) -> None:
        """Act on one reply: its tool calls, a call written as text, or a format error."""
        q, variant, mode = env.question, self.prompt_variant, env.mode
        raw = json.dumps(message, ensure_ascii=False)
        content = message_text(message.get("content"))
        reasoning = message_text(message.get("reasoning_content") or message.get("reasoning"))
        model_text = {"content": content, "reasoning": reasoning}
        calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        messages.append(_assistant_message(message, content, calls, turn))
        if calls:
            for i, call in enumerate(calls):
                result = self._run_call(env, call, model_text, raw)
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": _call_id(call, turn, i),
                        "content": json.dumps(result, ensure_ascii=False),
                    }
                )
            if not env.done:
                messages.append(self._user(env, prompts.turn_text(q, variant, mode)))
            return
        found = tool_call_from_text(content)
        if found is not None:
            name, args = found
            result = env.call(name, args, model_text=model_text, raw_output=raw)
            if not env.done:
                text = f"Result of {name}: {json.dumps(result, ensure_ascii=False)}"
                messages.append(
                    self._user(env, text + "\n\n" + prompts.turn_text(q, variant, mode))
                )
            return
        _, why = parse_model_output(content)
        why = "no tool call" + (f" ({why})" if why else "")
        env.record_format_error(raw, why, model_text)
        if not env.done:
            messages.append(
                self._user(env, prompts.turn_text(q, variant, mode, after="correction"))
            )

    def _run_call(
        self, env: ToolEnv, call: dict[str, Any], model_text: dict[str, str], raw: str
    ) -> dict[str, Any]:
        """One tool call of a reply: run it, or record why it could not be read."""
        if env.done:
            return {"error": "the episode is over", "feedback": "Ignored: the episode is over."}
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        name = str(function.get("name") or "")
        args, why = _arguments(function.get("arguments"))
        if args is None:
            why = f"arguments of {name or 'a tool call'}: {why}"
            env.record_format_error(raw, why, model_text)
            return {"error": why, "feedback": f"Format error: {why}"}
        return env.call(name, args, model_text=model_text, raw_output=raw)

    def _user(self, env: ToolEnv, text: str) -> dict[str, Any]:
        """A user message: the text, then the image(s) of the variant."""
        parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for view in prompts.views(self.prompt_variant):
            url = png_url(env.observation_png(view))
            parts.append({"type": "image_url", "image_url": {"url": url}})
        return {"role": "user", "content": parts}

    # -- HTTP ----------------------------------------------------------------------------------
    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        """One chat completion, retrying transient failures as `self.retry` says."""
        with self.waiting:
            return chat_completion(
                self.config, messages, tools=tools, retry=self.retry, stats=self.stats
            )


def stamp_first_step(steps: list[dict[str, Any]], first: int, completion: Completion) -> None:
    """Put the request's latency and tokens on the first step its reply produced (steps
    from `first` on), so an episode's sums count each request once."""
    if first < len(steps):
        steps[first].update(completion.step_figures())


def _call_id(call: dict[str, Any], turn: int, index: int) -> str:
    return str(call.get("id") or f"call_{turn}_{index}")


def _assistant_message(
    message: dict[str, Any], content: str, calls: list[dict[str, Any]], turn: int
) -> dict[str, Any]:
    """The reply as it goes back into the history: standard fields only (no reasoning)."""
    out: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        out["tool_calls"] = []
        for i, call in enumerate(calls):
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            arguments = function.get("arguments")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments if arguments is not None else {})
            out["tool_calls"].append(
                {
                    "id": _call_id(call, turn, i),
                    "type": "function",
                    "function": {"name": str(function.get("name") or ""), "arguments": arguments},
                }
            )
    elif not content:
        out["content"] = ""
    return out
