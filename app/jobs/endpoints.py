"""Model endpoints for runs at scale: the endpoints file, a local fake endpoint, the report.

`load_endpoints(path)` reads a small TOML (or JSON) file of OpenAI-compatible endpoints,
one `[[endpoint]]` table each, into `OpenAIConfig`s (docs/model-endpoints.md); anything
wrong is a `ValueError` whose one line names the file and the problem.
`FakeEndpoint` is a chat-completions server on 127.0.0.1 that answers with a script
after a configurable delay, records what it was sent and the most requests it had in
flight at once: the bench (`app/perf/endpoints.py`) and the tests run against it.
`report_lines` is the end-of-run report of `run-agent` per model.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from sim.llm import DEFAULT_BASE_URL, OpenAIConfig

ENDPOINT_KEYS = ("name", "base_url", "model", "api_key_env", "timeout", "max_tokens", "temperature")
BASE_URL_VARS = ("REASONSCOPE_OPENAI_BASE_URL", "OPENAI_BASE_URL")
KEY_VARS = ("REASONSCOPE_OPENAI_API_KEY", "OPENAI_API_KEY")


# -- the endpoints file --------------------------------------------------------------------
def load_endpoints(path: str | os.PathLike[str], env: Mapping[str, str] = os.environ):
    """The endpoints of a TOML or JSON file as `OpenAIConfig`s (name: what episodes record).

    Each `[[endpoint]]` needs `model`; `name` defaults to it and must be unique;
    `base_url` defaults to REASONSCOPE_OPENAI_BASE_URL / OPENAI_BASE_URL, else OpenAI's;
    the key is read from the variable `api_key_env` names (for OpenAI's own endpoint,
    REASONSCOPE_OPENAI_API_KEY / OPENAI_API_KEY by default), never from the file.
    """
    path = Path(path)
    entries = _entries(path, _read(path))
    configs: list[OpenAIConfig] = []
    for n, entry in enumerate(entries, start=1):
        try:
            configs.append(_endpoint(entry, env))
        except ValueError as exc:
            raise ValueError(f"{path}: endpoint {n}: {exc}") from None
    names = [c.label for c in configs]
    twice = sorted({x for x in names if names.count(x) > 1})
    if twice:
        raise ValueError(f"{path}: endpoint names must differ; twice: {', '.join(twice)}")
    return configs


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: endpoints file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the endpoints file: {exc}") from None
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not JSON: {exc}") from None
    try:
        import tomllib  # Python 3.11 on
    except ImportError:  # pragma: no cover (Python 3.10)
        try:
            import tomli as tomllib
        except ImportError:
            raise ValueError(
                f"{path}: reading TOML needs Python 3.11 or `pip install tomli`; "
                "or write the endpoints as JSON (a .json file)"
            ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not TOML: {exc}") from None


def _entries(path: Path, data: Any) -> list[Any]:
    entries = data.get("endpoint") if isinstance(data, dict) else data
    if isinstance(data, dict) and set(data) - {"endpoint"}:
        extra = ", ".join(sorted(set(data) - {"endpoint"}))
        raise ValueError(f"{path}: unknown section {extra}; endpoints go in [[endpoint]] tables")
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: no endpoints; give one [[endpoint]] table per model")
    return entries


def _endpoint(entry: Any, env: Mapping[str, str]) -> OpenAIConfig:
    if not isinstance(entry, dict):
        raise ValueError("must be a table of keys")
    unknown = sorted(set(entry) - set(ENDPOINT_KEYS))
    if "api_key" in unknown:
        raise ValueError(
            "no api_key in the file: put the key in an environment variable "
            "and name it with api_key_env"
        )
    if unknown:
        raise ValueError(f"unknown key {', '.join(unknown)} (keys: {', '.join(ENDPOINT_KEYS)})")
    for key in ("name", "base_url", "model", "api_key_env"):
        if key in entry and not isinstance(entry[key], str):
            raise ValueError(f"{key} must be a string")
    model = str(entry.get("model") or "").strip()
    if not model:
        raise ValueError("no model")
    base_url = str(entry.get("base_url") or "").strip()
    base_url = (
        (
            base_url
            or next((env[v] for v in BASE_URL_VARS if env.get(v, "").strip()), DEFAULT_BASE_URL)
        )
        .strip()
        .rstrip("/")
    )
    if not base_url.startswith(("http://", "https://")):
        raise ValueError(f"base_url {base_url!r} must start with http:// or https://")
    key_var = str(entry.get("api_key_env") or "").strip()
    if key_var:
        api_key = env.get(key_var, "").strip()
        if not api_key:
            raise ValueError(f"api_key_env {key_var}: that environment variable is not set")
    else:
        api_key = ""
        if base_url == DEFAULT_BASE_URL:
            api_key = next((env[v].strip() for v in KEY_VARS if env.get(v, "").strip()), "")
            if not api_key:
                raise ValueError(
                    "no API key for api.openai.com: set OPENAI_API_KEY or name "
                    "a variable with api_key_env"
                )
    extra: dict[str, Any] = {}
    for key, kind, low in (("timeout", float, 0.0), ("max_tokens", int, 0)):
        if entry.get(key) is not None:
            value = entry[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= low:
                raise ValueError(f"{key} must be a positive number, not {value!r}")
            extra[key] = kind(value)
    if "temperature" in entry:
        t = entry["temperature"]
        if isinstance(t, bool) or not isinstance(t, int | float):
            raise ValueError(f"temperature must be a number, not {t!r}")
        extra["temperature"] = float(t)
    name = str(entry.get("name") or "").strip()
    return OpenAIConfig(base_url, model, api_key, name=name, **extra)


# -- a local fake endpoint -----------------------------------------------------------------
Reply = tuple  # (HTTP status, JSON body or bytes) or (status, body, {header: value})
Script = Callable[[dict[str, Any], int], Reply]


def answer_reply(answer: str = "0", usage: tuple[int, int] | None = (120, 12)) -> Reply:
    """A valid MG-VQA reply: one answer_question tool call, with `usage` (prompt,
    completion tokens) unless None."""
    return tool_reply("answer_question", {"answer": answer}, usage)


def tool_reply(
    name: str, arguments: dict[str, Any], usage: tuple[int, int] | None = (120, 12)
) -> Reply:
    """A reply of one tool call, with `usage` (prompt, completion tokens) unless None."""
    call = {
        "id": "c0",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return message_reply({"role": "assistant", "content": None, "tool_calls": [call]}, usage)


def text_reply(content: str, usage: tuple[int, int] | None = (120, 12)) -> Reply:
    """A reply of text only (e.g. a perception model's JSON), with `usage` unless None."""
    return message_reply({"role": "assistant", "content": content}, usage)


def message_reply(message: dict[str, Any], usage: tuple[int, int] | None) -> Reply:
    """A chat completion of one assistant `message`, with `usage` (prompt, completion
    tokens) unless None."""
    body: dict[str, Any] = {
        "id": "fake",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message}],
    }
    if usage is not None:
        body["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
    return 200, body


class FakeEndpoint:
    """A chat-completions server on 127.0.0.1 in a thread of this process. `script(body, n)`
    answers the n-th request (default: `answer_reply()`), `delay` seconds after it came;
    `requests`, `headers` (each request's, read as HTTP reads them: the names in any case)
    and `max_in_flight` say what it saw. Use it as a context manager (`url` is the base
    URL to give a client)."""

    def __init__(self, script: Script | None = None, delay: float = 0.0) -> None:
        self.script = script or (lambda body, n: answer_reply())
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
        self.headers: list[Message] = []
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self), bind_and_activate=False)
        self.server.daemon_threads = True
        self.server.request_queue_size = 128  # K clients connecting at once are not refused
        self.server.server_bind()
        self.server.server_activate()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, body: dict[str, Any], headers: Message) -> Reply:
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            n = len(self.requests)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                time.sleep(self.delay)
            return self.script(body, n)
        finally:
            with self.lock:
                self.in_flight -= 1

    def __enter__(self) -> FakeEndpoint:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _handler(fake: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length))
            if self.path.rstrip("/").endswith("/chat/completions"):
                status, reply, *more = fake.answer(body, self.headers)
            else:
                status, reply, more = 404, {"error": {"message": f"no route {self.path}"}}, []
            data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (more[0] if more else {}).items():
                    self.send_header(key, str(value))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def fake_endpoint(script: Script | None = None, delay: float = 0.0) -> Iterator[FakeEndpoint]:
    """A running `FakeEndpoint`, shut down on leaving."""
    with FakeEndpoint(script, delay) as fake:
        yield fake


# -- the end-of-run report -----------------------------------------------------------------
def report_lines(report: dict[str, Any]) -> list[str]:
    """A run's report (`RunSummary.as_dict()`) as text: one block per model."""
    lines = []
    for model, m in report["models"].items():
        lines.append(
            f"{model or m.get('agent', '')}: {m['episodes']} episodes, "
            f"{m['correct']} succeeded, {m['errors']} errors, "
            f"{m['failed']} failed items"
        )
        e = m.get("endpoint")
        if e and e["requests"]:
            reasons = ", ".join(f"{k} x{v}" for k, v in e["retry_reasons"].items())
            mean = e["mean_latency_s"]
            lines.append(
                f"  requests {e['requests']}, retries {e['retries']}"
                f"{f' ({reasons})' if reasons else ''}, failed after retries "
                f"{e['failed_requests']}, mean latency "
                f"{'-' if mean is None else f'{mean:.2f} s'}, tokens in "
                f"{e['tokens_in']} / out {e['tokens_out']}"
            )
    return lines


# -- which models a run asks ---------------------------------------------------------------
def model_configs(
    *,
    config: str | os.PathLike[str] | None = None,
    models: Sequence[str] = (),
    endpoints: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] = os.environ,
) -> list[OpenAIConfig]:
    """The endpoints a model run asks: those of an `endpoints` file; or one per name of
    `models`, all at the endpoint of `config` / the environment; or that endpoint's own
    model. `timeout` (seconds a request may take) overrides every endpoint's. A problem
    is a `ValueError` in one line (a config problem starts "openai agent: ")."""
    if endpoints is not None and models:
        raise ValueError("--model and --endpoints: give the models one way or the other")
    if endpoints is not None:
        configs = load_endpoints(endpoints, env)
    else:
        try:
            configs = [OpenAIConfig.load(config, env, model=m) for m in models or [None]]
        except ValueError as exc:
            raise ValueError(f"openai agent: {exc}") from None
        twice = sorted({m for m in models if list(models).count(m) > 1})
        if twice:
            raise ValueError(f"--model {twice[0]} is given twice")
    if timeout is not None:
        configs = [dataclasses.replace(c, timeout=float(timeout)) for c in configs]
    return configs
