"""`sim.llm.chat_completion` (through the `openai` client) against a scripted local server:
retries with backoff, Retry-After, what is not retried, timeouts, refused connections, latency
and token usage, broken replies kept as written, and the counts `EndpointStats` keeps. Waits
are recorded by an injected sleep, never slept."""

from __future__ import annotations

import email.utils
import pickle
import socket
import time

import pytest
from model_server import serve

from sim.llm import (
    EndpointStats,
    ModelError,
    OpenAIConfig,
    RetryPolicy,
    chat_completion,
    openai_client,
    retry_after_seconds,
)

MESSAGES = [{"role": "user", "content": "hi"}]


def reply(text: str = "hello", usage: dict | None = None) -> tuple[int, dict]:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    if usage is not None:
        body["usage"] = usage
    return 200, body


def ask(url: str, *, timeout: float = 10, retries: int = 4, base: float = 0.5):
    waits: list[float] = []
    policy = RetryPolicy(retries=retries, base=base, jitter=0, sleep=waits.append)
    stats = EndpointStats()
    config = OpenAIConfig(url, "fake-model", timeout=timeout)
    try:
        return chat_completion(config, MESSAGES, retry=policy, stats=stats), stats, waits
    except ModelError as exc:
        return exc, stats, waits


def test_429_with_retry_after_is_waited_for_then_retried():
    def script(body, n):
        if n == 1:
            return 429, {"error": {"message": "slow down"}}, {"Retry-After": "1"}
        return reply(usage={"prompt_tokens": 31, "completion_tokens": 7})

    with serve(script) as (server, url):
        completion, stats, waits = ask(url, base=0.01)
    assert len(server.requests) == 2 and completion.message["content"] == "hello"
    assert waits == [1.0]  # the header's second, not the policy's 0.01 s
    assert (stats.requests, stats.retries, dict(stats.retry_reasons)) == (2, 1, {"429": 1})
    assert (completion.tokens_in, completion.tokens_out, completion.attempts) == (31, 7, 2)
    assert completion.latency_s > 0 and stats.answered == 1 and stats.failed_requests == 0
    assert (stats.tokens_in, stats.tokens_out) == (31, 7)


def test_5xx_is_retried_with_exponential_backoff():
    def script(body, n):
        return (503, {"error": {"message": "overloaded"}}) if n <= 3 else reply()

    with serve(script) as (server, url):
        completion, stats, waits = ask(url, base=0.5)
    assert len(server.requests) == 4 and completion.message["content"] == "hello"
    assert waits == [0.5, 1.0, 2.0]
    assert stats.retry_text() == "503 x3"
    assert completion.tokens_in is None and completion.tokens_out is None  # no usage sent


def test_backoff_is_capped_and_retry_after_too():
    policy = RetryPolicy(base=1, cap=30, max_wait=60, jitter=0)
    assert [policy.wait(i) for i in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    assert policy.wait(0, retry_after=600) == 60  # a server asking for 10 minutes gets 1
    assert policy.wait(3, retry_after=2) == 8  # the backoff when it is longer
    jittery = RetryPolicy(base=1, jitter=0.1)
    assert all(1 <= jittery.wait(0) <= 1.1 for _ in range(20))


def test_retry_after_as_an_http_date():
    now = time.time()
    later = email.utils.formatdate(now + 5, usegmt=True)
    assert retry_after_seconds(later, now=now) == pytest.approx(5, abs=1)
    assert retry_after_seconds(email.utils.formatdate(now - 50, usegmt=True), now=now) == 0
    assert retry_after_seconds("2.5") == 2.5
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None

    def script(body, n):
        if n == 1:
            return 503, {}, {"Retry-After": email.utils.formatdate(time.time() + 3, usegmt=True)}
        return reply()

    with serve(script) as (server, url):
        _, stats, waits = ask(url, base=0.01)
    assert len(waits) == 1 and 1.5 <= waits[0] <= 3.5 and stats.retries == 1


def test_a_400_is_not_retried_and_counts_as_a_failed_request():
    with serve(lambda body, n: (400, {"error": {"message": "bad image"}})) as (server, url):
        error, stats, waits = ask(url)
    assert isinstance(error, ModelError) and "HTTP 400" in str(error) and "bad image" in str(error)
    assert len(server.requests) == 1 and waits == []
    assert (stats.requests, stats.retries, stats.failed_requests, stats.answered) == (1, 0, 1, 0)


def test_a_timeout_is_retried():
    def script(body, n):
        if n == 1:
            time.sleep(1.5)  # longer than the client's timeout
        return reply()

    with serve(script) as (server, url):
        completion, stats, waits = ask(url, timeout=0.3, base=0.01)
    assert completion.message["content"] == "hello" and len(server.requests) == 2
    assert dict(stats.retry_reasons) == {"timeout": 1} and waits == [0.01]


def test_giving_up_after_every_retry():
    with serve(lambda body, n: (502, b"<html>bad gateway</html>")) as (server, url):
        error, stats, waits = ask(url, retries=2, base=0.01)
    assert isinstance(error, ModelError) and "after 3 attempt" in str(error)
    assert len(server.requests) == 3 and waits == [0.01, 0.02]
    assert stats.as_dict()["failed_requests"] == 1 and stats.retry_text() == "502 x2"


def test_stats_add_up_and_travel_as_plain_data():
    a, b = EndpointStats(), EndpointStats()
    a.attempt(), a.retry("429"), a.attempt(), a.answer(1.5, 100, 10)
    b.attempt(), b.answer(0.5, None, None), b.attempt(), b.failure()
    a.add(b.as_dict())
    d = a.as_dict()
    assert (d["requests"], d["retries"], d["answered"], d["failed_requests"]) == (4, 1, 2, 1)
    assert d["mean_latency_s"] == 1.0 and (d["tokens_in"], d["tokens_out"]) == (100, 10)
    assert pickle.loads(pickle.dumps(a)).as_dict() == d


def test_the_requests_go_through_the_openai_client_with_its_retries_off():
    with serve(lambda body, n: (503, {"error": {"message": "overloaded"}})) as (server, url):
        error, stats, waits = ask(url, retries=0)
    assert isinstance(error, ModelError) and len(server.requests) == 1  # no hidden retries
    headers = server.headers[0]
    assert headers["X-Stainless-Lang"] == "python" and "OpenAI/Python" in headers["User-Agent"]
    assert "Authorization" not in headers  # an endpoint without a key gets none
    assert openai_client(OpenAIConfig(url, "a", timeout=10)).max_retries == 0
    assert openai_client(OpenAIConfig(url, "a", timeout=10)) is openai_client(
        OpenAIConfig(url, "b", timeout=10)
    )  # one client (and connection pool) per endpoint, whatever the model


def test_a_broken_reply_is_kept_as_the_endpoint_wrote_it():
    """Model output is data: broken JSON in the arguments, fields the client's types do not
    know, content as a list. The message comes back byte for byte, not parsed by openai."""
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": '{"tool": "grasp", "args": {"x": 0.1,'}],
        "reasoning_content": "I think...",
        "tool_calls": [
            {
                "id": "c0",
                "type": "function",
                "function": {"name": "answer_question", "arguments": '{"answer": "2"'},
            },
            {"id": "c1", "type": "not-a-function", "weird": [1, None]},
        ],
    }
    body = {"choices": [{"index": 0, "message": message}], "usage": {"prompt_tokens": "many"}}
    with serve(lambda b, n: (200, body)) as (server, url):
        completion, stats, waits = ask(url)
    assert completion.message == message and waits == []
    assert completion.tokens_in is None and stats.answered == 1  # a bad count is no count


def test_a_body_that_is_no_chat_completion_is_retried():
    def script(body, n):
        return (200, b"<html>maintenance</html>") if n == 1 else reply()

    with serve(script) as (server, url):
        completion, stats, waits = ask(url, base=0.01)
    assert completion.message["content"] == "hello" and completion.attempts == 2
    assert stats.retry_text() == "bad response x1"


def test_a_refused_connection_is_retried_then_reported():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again on leaving: nobody listens there
    error, stats, waits = ask(f"http://127.0.0.1:{port}/v1", retries=1, base=0.01)
    assert isinstance(error, ModelError) and "cannot reach" in str(error)
    assert stats.retry_text() == "connection x1" and stats.failed_requests == 1


def test_what_the_openai_client_would_not_retry_is_retried_as_we_document():
    """The part kept by hand: the client gives up on a Retry-After of more than 2 minutes and
    never retries a 425; ours waits at most 60 s and retries both."""

    def script(body, n):
        if n == 1:
            return 429, {"error": {"message": "come back in 10 minutes"}}, {"Retry-After": "600"}
        if n == 2:
            return 425, {"error": {"message": "too early"}}
        return reply()

    with serve(script) as (server, url):
        completion, stats, waits = ask(url, base=0.5)
    assert completion.message["content"] == "hello" and len(server.requests) == 3
    assert waits == [60.0, 1.0] and stats.retry_text() == "425 x1, 429 x1"
