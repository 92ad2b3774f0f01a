"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, standing for the remote
model in the agent tests: `serve(script, delay=0)` yields the server (its requests, headers
and the most requests it had in flight at once) and its base URL; `script(body, n)` answers
the n-th request with (HTTP status, JSON or bytes) or (status, body, {header: value}).
It is `app.jobs.endpoints.FakeEndpoint`, which the bench uses too."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from app.jobs.endpoints import FakeEndpoint, Script


@contextmanager
def serve(script: Script, delay: float = 0.0) -> Iterator[tuple[FakeEndpoint, str]]:
    with FakeEndpoint(script, delay) as fake:
        yield fake, fake.url
