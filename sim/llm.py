"""A client for OpenAI-compatible chat-completions APIs, shared by every agent.

Standard library HTTP (urllib) and Pillow for PNG encoding; no SDK. `OpenAIConfig`
says where the model lives; `chat_completion` sends one request and retries
transient failures; a failure that survives the retries raises `ModelError`, for
the caller to record. The rest builds and reads message parts: images as PNG
data URLs, message content as text.
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


# -- the request ------------------------------------------------------------------------------
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


# -- message parts ------------------------------------------------------------------------------
def image_data_url(rgb: np.ndarray, max_side: int = MAX_IMAGE_SIDE) -> str:
    """A PNG data URL of an RGB image, scaled down to at most `max_side` pixels a side."""
    image = Image.fromarray(np.ascontiguousarray(rgb[..., :3]).astype(np.uint8), "RGB")
    if max(image.size) > max_side:
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return _png_url(buffer.getvalue())


def _png_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def message_text(content: Any) -> str:
    """Message content as text (it may be a string, None, or a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return ""


def png_data_url(png: bytes, max_side: int = MAX_IMAGE_SIDE) -> str:
    """A data URL of PNG bytes, scaled down to at most `max_side` pixels a side."""
    with Image.open(io.BytesIO(png)) as image:
        if max(image.size) > max_side:  # scaled as an RGB image is
            return image_data_url(np.asarray(image.convert("RGB")), max_side)
    return _png_url(png)


# -- reading responses ----------------------------------------------------------------------
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
