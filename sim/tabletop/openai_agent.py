"""An agent that plays a `ToolEnv` episode through any OpenAI-compatible chat-completions API.

Standard library HTTP (urllib) and Pillow for PNG encoding; no SDK. Each user turn
carries the current top-down image (and, for the multiview variant, the oblique one)
as a base64 PNG data URL. Tool calls are run through `ToolEnv.call`; replies that are
not usable tool calls become format-error steps and the episode goes on. Transport
failures that survive the retries raise `ModelError`, for the caller to record.
"""

from __future__ import annotations

import base64
import http.client
import io
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from annotation.model_output import parse_model_output
from sim.tabletop import prompts
from sim.tabletop.toolenv import TOOL_SPECS, ToolEnv
from sim.tabletop.world import OBLIQUE

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_IMAGE_SIDE = 1024
RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ModelError(RuntimeError):
    """The model endpoint could not be reached or gave no usable response, after retries."""


@dataclass
class OpenAIConfig:
    """Where the model lives and how to ask it."""

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout: float = 120
    max_tokens: int | None = None
    temperature: float | None = 0

    @classmethod
    def load(
        cls, config_path: str | Path | None = None, env: Mapping[str, str] = os.environ
    ) -> OpenAIConfig:
        """Settings from environment variables first, then a JSON file, then defaults.

        Variables: REASONSCOPE_OPENAI_BASE_URL (or OPENAI_BASE_URL), REASONSCOPE_OPENAI_MODEL,
        REASONSCOPE_OPENAI_API_KEY (or OPENAI_API_KEY). The file (``config_path``, else
        REASONSCOPE_OPENAI_CONFIG) may hold base_url, model, api_key, timeout, max_tokens
        and temperature. A key is required only for the default OpenAI endpoint.
        """
        path = config_path or env.get("REASONSCOPE_OPENAI_CONFIG") or None
        file: dict[str, Any] = _read_config_file(Path(path)) if path else {}
        where = f"or '{{key}}' in {path}" if path else "or pass a config file with '{key}'"

        def pick(names: Sequence[str], key: str) -> str:
            for name in names:
                if env.get(name, "").strip():
                    return env[name].strip()
            value = file.get(key)
            return str(value).strip() if value is not None else ""

        base_url = pick(("REASONSCOPE_OPENAI_BASE_URL", "OPENAI_BASE_URL"), "base_url")
        base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        model = pick(("REASONSCOPE_OPENAI_MODEL",), "model")
        api_key = pick(("REASONSCOPE_OPENAI_API_KEY", "OPENAI_API_KEY"), "api_key")
        if not model:
            raise ValueError(f"no model: set REASONSCOPE_OPENAI_MODEL {where.format(key='model')}")
        if not api_key and base_url == DEFAULT_BASE_URL:
            raise ValueError(
                "no API key for api.openai.com: set REASONSCOPE_OPENAI_API_KEY "
                f"(or OPENAI_API_KEY) {where.format(key='api_key')}"
            )
        extra: dict[str, Any] = {}
        try:
            if file.get("timeout") is not None:
                extra["timeout"] = float(file["timeout"])
            if file.get("max_tokens") is not None:
                extra["max_tokens"] = int(file["max_tokens"])
            if "temperature" in file:
                t = file["temperature"]
                extra["temperature"] = None if t is None else float(t)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"bad value in {path}: {exc}") from None
        return cls(base_url=base_url, model=model, api_key=api_key, **extra)


def _read_config_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"model config file not found: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read model config file {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"model config file {path} must hold a JSON object")
    return data


# -- HTTP (shared by every agent that talks to an OpenAI-compatible endpoint) ---------------
def chat_completion(
    config: OpenAIConfig,
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    retry_delays: Sequence[float] = (1.0, 3.0),
    on_attempt: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """The assistant message of one chat completion, retrying transient failures.

    One try plus one retry per entry of `retry_delays` (the waits before them). HTTP
    statuses in RETRYABLE_STATUS, timeouts, connection failures and unusable bodies are
    retried; any other HTTP error is not. Raises `ModelError` when no try succeeds.
    `on_attempt` is called before every request (for counting).
    """
    cfg = config
    body: dict[str, Any] = {"model": cfg.model, "messages": messages}
    if tools:
        body["tools"] = tools
        body["tool_choice"] = "auto"
    if cfg.temperature is not None:
        body["temperature"] = cfg.temperature
    if cfg.max_tokens is not None:
        body["max_tokens"] = cfg.max_tokens
    data = json.dumps(body).encode("utf-8")
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if cfg.api_key:
        headers["Authorization"] = f"Bearer {cfg.api_key}"
    url = cfg.base_url.rstrip("/") + "/chat/completions"
    attempts = len(retry_delays) + 1
    problem = ""
    for attempt in range(attempts):
        if attempt:
            time.sleep(retry_delays[attempt - 1])
        if on_attempt is not None:
            on_attempt()
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=cfg.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            problem = f"HTTP {exc.code} from {url}: {_snippet(exc.read())}"
            if exc.code not in RETRYABLE_STATUS:
                break
            continue
        except TimeoutError:
            problem = f"no response from {url} within {cfg.timeout:g} s"
            continue
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            problem = f"cannot reach {url}: {reason}"
            continue
        message, problem = _assistant_from(payload)
        if message is not None:
            return message
    raise ModelError(f"model request failed after {attempt + 1} attempt(s): {problem}")


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


def image_data_url(rgb: np.ndarray, max_side: int = MAX_IMAGE_SIDE) -> str:
    """A PNG data URL of an RGB image, scaled down to at most `max_side` pixels a side."""
    image = Image.fromarray(np.ascontiguousarray(rgb[..., :3]).astype(np.uint8), "RGB")
    if max(image.size) > max_side:
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def message_text(content: Any) -> str:
    """Message content as text (it may be a string, None, or a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return ""


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
    retry_delays: tuple[float, ...] = (1.0, 3.0)  # waits before the 2 retries

    def __init__(
        self, config: OpenAIConfig, prompt_variant: str = "plain", max_turns: int = 30
    ) -> None:
        self.config = config
        self.model = config.model
        self.prompt_variant = prompts.check_variant(prompt_variant)
        self.max_turns = max_turns
        self.requests = 0  # chat-completion requests made (for logs and tests)

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
            message = self._complete(messages, tools)
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
                continue
            found = tool_call_from_text(content)
            if found is not None:
                name, args = found
                result = env.call(name, args, model_text=model_text, raw_output=raw)
                if not env.done:
                    text = f"Result of {name}: {json.dumps(result, ensure_ascii=False)}"
                    messages.append(
                        self._user(env, text + "\n\n" + prompts.turn_text(q, variant, mode))
                    )
                continue
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
            rgb = env.observation(_oblique_for(env) if view == prompts.OBLIQUE_VIEW else None)
            parts.append({"type": "image_url", "image_url": {"url": image_data_url(rgb)}})
        return {"role": "user", "content": parts}

    # -- HTTP ----------------------------------------------------------------------------------
    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict:
        """The assistant message of one chat completion, retrying transient failures."""
        return chat_completion(
            self.config, messages, tools=tools, retry_delays=self.retry_delays,
            on_attempt=self._count_request,
        )  # fmt: skip

    def _count_request(self) -> None:
        self.requests += 1


def _oblique_for(env: ToolEnv):
    """The oblique camera at the agent camera's width (1024 x 768 for the full-size camera)."""
    width = env.camera.width
    return OBLIQUE.with_size(width, max(1, round(width * OBLIQUE.height / OBLIQUE.width)))


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


def _assistant_from(payload: bytes) -> tuple[dict[str, Any] | None, str]:
    """The first choice's message of a response body, or (None, what was wrong)."""
    try:
        data = json.loads(payload)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, f"response is not JSON: {_snippet(payload)}"
    if not isinstance(data, dict):
        return None, f"unexpected response: {_snippet(payload)}"
    choices = data.get("choices")
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        error = data.get("error")
        detail = error.get("message") if isinstance(error, dict) else error
        return None, f"response has no choices: {_snippet(detail or payload)}"
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return None, "response choice has no message"
    return message, ""


def _snippet(value: Any, limit: int = 200) -> str:
    """A short single-line excerpt for error messages."""
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
