"""A client for OpenAI-compatible chat-completions APIs, shared by every agent.

The requests go through the official `openai` package (its transport, authentication,
`base_url` and timeout; one client per endpoint, `openai_client`), and Pillow encodes
the images. `OpenAIConfig` says where the model lives; `chat_completion` sends one
request, retries transient failures as a `RetryPolicy` says (exponential backoff,
`Retry-After` honoured) and returns a `Completion`: the message as the endpoint wrote it,
the request's latency and the tokens the endpoint reported. The retries are ours, not the
client's (it runs with `max_retries=0`), so that every attempt and its reason is counted
and a reply that is no chat completion is retried too (docs/model-endpoints.md). A
failure that survives the retries raises `ModelError`, for the caller to record.
`EndpointStats` counts what a run asked of an endpoint, from any thread. The rest builds
and reads message parts: images as PNG data URLs, message content as text.
"""

from __future__ import annotations

import base64
import datetime
import email.utils
import io
import json
import math
import os
import random
import threading
import time
from collections import Counter
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
    name: str = ""  # what episodes record as the model (default: `model`)

    @property
    def label(self) -> str:
        """The model's name as runs record and report it."""
        return self.name or self.model

    @classmethod
    def load(
        cls,
        config_path: str | Path | None = None,
        env: Mapping[str, str] = os.environ,
        *,
        model: str | None = None,
    ) -> OpenAIConfig:
        """Settings from environment variables first, then a JSON file, then defaults.

        Variables: REASONSCOPE_OPENAI_BASE_URL (or OPENAI_BASE_URL), REASONSCOPE_OPENAI_MODEL,
        REASONSCOPE_OPENAI_API_KEY (or OPENAI_API_KEY). The file (``config_path``, else
        REASONSCOPE_OPENAI_CONFIG) may hold base_url, model, api_key, timeout, max_tokens
        and temperature. A key is required only for the default OpenAI endpoint. `model`,
        when given, names the model instead of the variable and the file.
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
        model = (model or "").strip() or pick(("REASONSCOPE_OPENAI_MODEL",), "model")
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


# -- retries and what a run made of them ------------------------------------------------------
@dataclass(frozen=True)
class RetryPolicy:
    """How transient failures are retried: up to `retries` more tries, waiting `base`
    seconds before the first, doubling (`factor`) up to `cap`, plus up to `jitter` of that
    at random. A `Retry-After` header (seconds or an HTTP date) on a 429 or 5xx reply is
    waited for at least, up to `max_wait` seconds. `sleep` is how a wait is spent (tests
    pass a recorder)."""

    retries: int = 4
    base: float = 1.0
    factor: float = 2.0
    cap: float = 30.0
    max_wait: float = 60.0
    jitter: float = 0.1
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)

    def wait(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number `retry` (0 for the first)."""
        delay = min(self.cap, self.base * self.factor**retry)
        delay *= 1 + self.jitter * random.random()
        if retry_after is not None:
            delay = max(delay, retry_after)
        return max(0.0, min(delay, self.max_wait))


DEFAULT_RETRY = RetryPolicy()


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A `Retry-After` header's wait in seconds (a number, or an HTTP date), or None."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds) if math.isfinite(seconds) else None


class EndpointStats:
    """What one endpoint (model) was asked and how it went, safe to share between threads:
    HTTP requests sent, retries (and why: "429", "503", "timeout", "connection", "bad
    response"), completions that failed after every retry, answered completions with their
    latency, and the tokens the endpoint reported. `as_dict` / `add` carry it as plain data
    (from a batch worker back to the run)."""

    FIELDS = (
        "requests",
        "retries",
        "failed_requests",
        "answered",
        "latency_s",
        "tokens_in",
        "tokens_out",
    )

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests = self.retries = self.failed_requests = self.answered = 0
        self.latency_s = 0.0  # summed over answered completions
        self.tokens_in = self.tokens_out = 0
        self.retry_reasons: Counter[str] = Counter()

    def attempt(self) -> None:
        with self._lock:
            self.requests += 1

    def retry(self, reason: str) -> None:
        with self._lock:
            self.retries += 1
            self.retry_reasons[reason] += 1

    def answer(self, latency_s: float, tokens_in: int | None, tokens_out: int | None) -> None:
        with self._lock:
            self.answered += 1
            self.latency_s += latency_s
            self.tokens_in += tokens_in or 0
            self.tokens_out += tokens_out or 0

    def failure(self) -> None:
        with self._lock:
            self.failed_requests += 1

    @property
    def mean_latency_s(self) -> float | None:
        return self.latency_s / self.answered if self.answered else None

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            out: dict[str, Any] = {k: getattr(self, k) for k in self.FIELDS}
            out["retry_reasons"] = dict(sorted(self.retry_reasons.items()))
        mean = self.mean_latency_s
        out["mean_latency_s"] = None if mean is None else round(mean, 4)
        out["latency_s"] = round(out["latency_s"], 4)
        return out

    def add(self, other: EndpointStats | Mapping[str, Any]) -> None:
        """Add another's counts (an `EndpointStats` or its `as_dict()`)."""
        data = other.as_dict() if isinstance(other, EndpointStats) else other
        with self._lock:
            for key in self.FIELDS:
                setattr(self, key, getattr(self, key) + (data.get(key) or 0))
            self.retry_reasons.update(data.get("retry_reasons") or {})

    def retry_text(self) -> str:
        """Retries by reason, e.g. "429 x3, timeout x1" ("none" without any)."""
        reasons = self.as_dict()["retry_reasons"]
        return ", ".join(f"{k} x{v}" for k, v in reasons.items()) or "none"

    def __getstate__(self) -> dict[str, Any]:
        return self.as_dict()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()
        self.add(state)


@dataclass(frozen=True)
class Completion:
    """One answered chat completion: the assistant message, the wall time of the request
    that answered (seconds), the tokens the endpoint reported (None: not reported), and
    how many HTTP requests it took."""

    message: dict[str, Any]
    latency_s: float
    tokens_in: int | None = None
    tokens_out: int | None = None
    attempts: int = 1

    def step_figures(self) -> dict[str, Any]:
        """The fields a recorded step carries for the request behind it."""
        return {
            "latency_s": self.latency_s,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
        }


def retryable(status: int) -> bool:
    """HTTP statuses worth another try: RETRYABLE_STATUS and the other 5xx but 501/505."""
    return status in RETRYABLE_STATUS or (500 <= status < 600 and status not in (501, 505))


# -- the request ------------------------------------------------------------------------------
NO_KEY = "no-key"  # what the client holds for an endpoint without a key; never sent
_CLIENTS: dict[tuple[str, str, float], Any] = {}
_CLIENTS_LOCK = threading.Lock()


def openai_client(config: OpenAIConfig) -> Any:
    """The `openai.OpenAI` client of an endpoint (base URL, key, timeout), made once in this
    process and shared by its threads, so requests reuse its connection pool. Its own
    retries are off: `chat_completion` makes them (docs/model-endpoints.md says why)."""
    key = (config.base_url.rstrip("/"), config.api_key, float(config.timeout))
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            import openai  # about 0.5 s: only runs that ask a model pay for it

            client = openai.OpenAI(
                base_url=key[0], api_key=config.api_key or NO_KEY, max_retries=0, timeout=key[2]
            )
            _CLIENTS[key] = client
    return client


def request_arguments(
    config: OpenAIConfig, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """The arguments of `chat.completions.create` for one request of `config`'s model."""
    arguments: dict[str, Any] = {"model": config.model, "messages": messages}
    if tools:
        arguments["tools"] = tools
        arguments["tool_choice"] = "auto"
    if config.temperature is not None:
        arguments["temperature"] = config.temperature
    if config.max_tokens is not None:
        arguments["max_tokens"] = config.max_tokens
    if not config.api_key:
        from openai import omit

        # No key, no Authorization header (not even one the environment would give).
        arguments["extra_headers"] = {"Authorization": omit}
    return arguments


@dataclass(frozen=True)
class _Failed:
    """One attempt that got no chat completion: what went wrong, the retry reason (None:
    asking again would not help) and the wait the endpoint asked for."""

    problem: str
    reason: str | None
    retry_after: float | None = None


def _attempt(config: OpenAIConfig, arguments: dict[str, Any]) -> tuple[bytes, float] | _Failed:
    """One HTTP request through the openai client: the raw response body and the request's
    wall time, or what failed. The body is read raw (`with_raw_response`), never parsed by
    the client, so a broken reply is ours to read and record."""
    import openai

    url = config.base_url.rstrip("/") + "/chat/completions"
    create = openai_client(config).chat.completions.with_raw_response.create
    start = time.perf_counter()
    try:
        raw = create(**arguments)
        payload = raw.content
    except openai.APIStatusError as exc:
        status, response = exc.status_code, exc.response
        problem = f"HTTP {status} from {url}: {_snippet(response.content)}"
        if not retryable(status):
            return _Failed(problem, None)
        return _Failed(
            problem, str(status), retry_after_seconds(response.headers.get("Retry-After"))
        )
    except openai.APITimeoutError:
        return _Failed(f"no response from {url} within {config.timeout:g} s", "timeout")
    except openai.APIConnectionError as exc:
        return _Failed(f"cannot reach {url}: {exc.__cause__ or exc}", "connection")
    return payload, time.perf_counter() - start


def chat_completion(
    config: OpenAIConfig,
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    retry: RetryPolicy = DEFAULT_RETRY,
    stats: EndpointStats | None = None,
    on_attempt: Callable[[], None] | None = None,
) -> Completion:
    """One chat completion, retrying transient failures as `retry` says.

    HTTP statuses `retryable`, timeouts (`config.timeout` per request), connection failures
    and unusable bodies are retried, after the policy's backoff or the reply's Retry-After,
    whichever is longer; any other HTTP error is not. Raises `ModelError` when no try
    succeeds. `stats` counts requests, retries, failures, latency and tokens; `on_attempt`
    is called before every request.
    """
    arguments = request_arguments(config, messages, tools)
    failed = _Failed("", None)
    attempt = 0
    for attempt in range(max(0, retry.retries) + 1):
        if attempt:
            if stats is not None:
                stats.retry(failed.reason or "")
            retry.sleep(retry.wait(attempt - 1, failed.retry_after))
        if stats is not None:
            stats.attempt()
        if on_attempt is not None:
            on_attempt()
        outcome = _attempt(config, arguments)
        if isinstance(outcome, _Failed):
            failed = outcome
            if failed.reason is None:
                break
            continue
        payload, latency = outcome
        message, usage, problem = _assistant_from(payload)
        if message is None:
            failed = _Failed(problem, "bad response")
            continue
        tokens_in, tokens_out = _token(usage, "prompt_tokens"), _token(usage, "completion_tokens")
        if stats is not None:
            stats.answer(latency, tokens_in, tokens_out)
        return Completion(message, latency, tokens_in, tokens_out, attempt + 1)
    if stats is not None:
        stats.failure()
    raise ModelError(f"model request failed after {attempt + 1} attempt(s): {failed.problem}")


# -- message parts ------------------------------------------------------------------------------
def png_bytes(rgb: np.ndarray, max_side: int = MAX_IMAGE_SIDE) -> bytes:
    """An RGB image as the PNG bytes a model is sent, scaled down to at most `max_side`
    pixels a side (the same pixels always give the same bytes)."""
    image = Image.fromarray(np.ascontiguousarray(rgb[..., :3]).astype(np.uint8), "RGB")
    if max(image.size) > max_side:
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def image_data_url(rgb: np.ndarray, max_side: int = MAX_IMAGE_SIDE) -> str:
    """A PNG data URL of an RGB image, scaled down to at most `max_side` pixels a side."""
    return _png_url(png_bytes(rgb, max_side))


def png_url(png: bytes) -> str:
    """A data URL of PNG bytes as they are (`png_bytes`' output, a stored first view)."""
    return _png_url(png)


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
def _assistant_from(payload: bytes) -> tuple[dict[str, Any] | None, Any, str]:
    """The first choice's message of a response body and its `usage`, or (None, None, what
    was wrong)."""
    try:
        data = json.loads(payload)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, None, f"response is not JSON: {_snippet(payload)}"
    if not isinstance(data, dict):
        return None, None, f"unexpected response: {_snippet(payload)}"
    choices = data.get("choices")
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        error = data.get("error")
        detail = error.get("message") if isinstance(error, dict) else error
        return None, None, f"response has no choices: {_snippet(detail or payload)}"
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return None, None, "response choice has no message"
    return message, data.get("usage"), ""


def _token(usage: Any, key: str) -> int | None:
    """A token count of a response's `usage` (None when absent or not a count)."""
    value = usage.get(key) if isinstance(usage, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if value >= 0 else None


def _snippet(value: Any, limit: int = 200) -> str:
    """A short single-line excerpt for error messages."""
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
