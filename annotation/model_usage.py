"""What each model's episodes cost and gave, whatever the benchmark: episodes, successes,
requests to the model endpoint, their latency and the tokens reported (the `per_model`
lists of `reasonscope metrics --json`, under `episodes` and under `bimanual`).

Pure: the figures are summed from `Step`s (annotation.models) or from counts a store
added up; no database, no screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from annotation.averages import pct
from annotation.models import Step

#: The choices behind the `per_model` numbers, reported with them.
PER_MODEL_SETTINGS = {
    "model": "the episode's model, else its agent",
    "requests": "steps that record the latency of a model request",
    "mean_latency_s": "mean over those requests, in seconds",
    "tokens": "sums of the token usage the endpoint reported (null: none reported); "
    "mean_tokens_* per episode of the model",
}


def model_name(model: str, agent: str) -> str:
    """Whose episode it is in per-model figures: its model, else its agent."""
    return model or agent or "unknown"


@dataclass
class ModelUsage:
    """A model's episodes, successes and model requests, summed as episodes are added."""

    episodes: int = 0
    succeeded: int = 0
    requests: int = 0
    latency_s: float = 0.0  # summed over the requests
    tokens_in: int | None = None  # None: no step reported any
    tokens_out: int | None = None

    def add(
        self,
        episodes: int,
        succeeded: int,
        requests: int,
        latency_s: float | None,
        tokens_in: int | None,
        tokens_out: int | None,
    ) -> None:
        self.episodes += episodes
        self.succeeded += succeeded
        self.requests += requests
        self.latency_s += latency_s or 0.0
        if tokens_in is not None:
            self.tokens_in = (self.tokens_in or 0) + tokens_in
        if tokens_out is not None:
            self.tokens_out = (self.tokens_out or 0) + tokens_out

    def add_episode(self, success: bool, steps: Sequence[Step]) -> None:
        """One episode with its steps."""
        timed = [s.latency_s for s in steps if s.latency_s is not None]
        ins = [s.tokens_in for s in steps if s.tokens_in is not None]
        outs = [s.tokens_out for s in steps if s.tokens_out is not None]
        self.add(
            1,
            int(bool(success)),
            len(timed),
            sum(timed),
            sum(ins) if ins else None,
            sum(outs) if outs else None,
        )

    def as_dict(self, model: str) -> dict[str, Any]:
        def per_episode(total: int | None) -> float | None:
            return None if total is None or not self.episodes else total / self.episodes

        return {
            "model": model,
            "episodes": self.episodes,
            "succeeded": self.succeeded,
            "success_pct": pct(self.succeeded, self.episodes),
            "requests": self.requests,
            "mean_latency_s": self.latency_s / self.requests if self.requests else None,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "mean_tokens_in": per_episode(self.tokens_in),
            "mean_tokens_out": per_episode(self.tokens_out),
        }


def per_model_rows(usage: dict[str, ModelUsage]) -> list[dict[str, Any]]:
    """The `per_model` list of `metrics --json` (under `episodes` and `bimanual`), by model
    name: [{"model", "episodes", "succeeded", "success_pct" (0-100 or null), "requests",
    "mean_latency_s" (null without requests), "tokens_in", "tokens_out" (sums, null when
    none was reported), "mean_tokens_in", "mean_tokens_out" (per episode)}]."""
    return [usage[m].as_dict(m) for m in sorted(usage, key=lambda m: (m.lower(), m))]
