"""`perceive_scene` by a vision-language model that sees only the agent's image.

MG-VQA's perception tool asks one fixed VLM for a scene graph of the image: what is
visible, where (a 2D point each) and how the objects relate. `VLMPerceiver` does that
through any OpenAI-compatible endpoint (`sim.llm`): its request holds the image and a
fixed prompt, nothing else (no question, no object names, no simulator state), so what
it returns can only come from what the camera shows. One perceiver serves every agent
of a run. A reply that cannot be read, or whose points fall outside the image, is a
`PerceptionError`: the agent's tool call fails with the reason, and the episode records
it. A failing endpoint raises `sim.llm.ModelError`, as the agent's own requests do.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

from annotation.model_output import parse_model_output
from sim.llm import (
    DEFAULT_RETRY,
    EndpointStats,
    OpenAIConfig,
    RetryPolicy,
    chat_completion,
    message_text,
    png_url,
)
from sim.tabletop.perception import Perception, SeenObject

SCENE_GRAPH_PROMPT = (
    "You are a perception module for a robot that looks straight down on a table. "
    "List every object you can see in the image, with a short name (colour and kind, "
    "e.g. 'red mug') and one pixel point [u, v] that lies on the object (u from the left "
    "edge, v from the top edge, in pixels of this image). Then give the spatial relations "
    "between them: 'left of', 'right of', 'behind' (further up in the image), 'in front "
    "of' (further down) and 'on' (resting on top of). Reply with one JSON object only:\n"
    '{"description": "<one sentence>", "objects": [{"name": "...", "point": [u, v]}], '
    '"relations": [{"subject": <object index>, "predicate": "...", "object": <object '
    "index>}]}\nObject indices count from 0 in the order of the objects list."
)
PREDICATES = ("left of", "right of", "behind", "in front of", "on")


class PerceptionError(ValueError):
    """The perception model's reply could not be used (why, in one line)."""

    def __init__(self, why: str, raw: str = "") -> None:
        super().__init__(why)
        self.raw = raw


class VLMPerceiver:
    """Scene graphs from a VLM at an OpenAI-compatible endpoint, from the image alone."""

    name = "vlm"
    image_only = True  # `ToolEnv` hands it the agent's image, never the world

    def __init__(
        self,
        config: OpenAIConfig,
        *,
        retry: RetryPolicy = DEFAULT_RETRY,
        stats: EndpointStats | None = None,
    ) -> None:
        self.config = config
        self.model = config.label
        self.retry = retry
        self.stats = stats if stats is not None else EndpointStats()
        # entered around every request: a runner may let other threads simulate meanwhile
        self.waiting: AbstractContextManager = nullcontext()

    def request(self, png: bytes) -> list[dict[str, Any]]:
        """The messages sent for an image: the fixed prompt and the image, nothing else."""
        return [
            {"role": "system", "content": SCENE_GRAPH_PROMPT},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Describe this image as the JSON object."},
                    {"type": "image_url", "image_url": {"url": png_url(png)}},
                ],
            },
        ]

    def perceive_image(self, png: bytes, size: tuple[int, int]) -> Perception:
        """The scene graph of a PNG image of `size` (width, height); `PerceptionError` when
        the reply cannot be used."""
        with self.waiting:
            completion = chat_completion(
                self.config, self.request(png), retry=self.retry, stats=self.stats
            )
        text = message_text(completion.message.get("content"))
        return read_scene_graph(text, size)


def read_scene_graph(text: str, size: tuple[int, int]) -> Perception:
    """A perception model's reply as a `Perception`; `PerceptionError` naming what is wrong."""
    parsed, why = parse_model_output(text)
    if not isinstance(parsed, dict):
        raise PerceptionError(f"the reply is not a JSON object ({why or 'no object'})", text)
    objects = parsed.get("objects")
    if not isinstance(objects, list):
        raise PerceptionError("the reply has no 'objects' list", text)
    width, height = size
    seen = []
    for i, item in enumerate(objects):
        if not isinstance(item, dict):
            raise PerceptionError(f"object {i} is not an object with a name and a point", text)
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise PerceptionError(f"object {i} has no name", text)
        point = item.get("point")
        try:
            u, v = (int(round(float(c))) for c in point)
        except (TypeError, ValueError):
            raise PerceptionError(
                f"object {i} ({name}): point {point!r} is not [u, v]", text
            ) from None
        if not (0 <= u < width and 0 <= v < height):
            raise PerceptionError(
                f"object {i} ({name}): point ({u}, {v}) is outside the {width}x{height} image",
                text,
            )
        seen.append(SeenObject(i, name.strip(), (u, v), (u, v, u + 1, v + 1), 0))
    relations = []
    for k, rel in enumerate(parsed.get("relations") or []):
        try:
            s, p, o = int(rel["subject"]), str(rel["predicate"]).strip(), int(rel["object"])
        except (TypeError, KeyError, ValueError):
            raise PerceptionError(f"relation {k} is not subject, predicate, object", text) from None
        if not (0 <= s < len(seen) and 0 <= o < len(seen)):
            raise PerceptionError(f"relation {k} names an object that is not listed", text)
        relations.append((s, p, o))
    description = parsed.get("description")
    if not isinstance(description, str) or not description.strip():
        names = ", ".join(o.name for o in seen) or "nothing"
        description = f"{len(seen)} objects can be seen: {names}."
    return Perception(description.strip(), seen, relations)


PERCEIVERS = ("vlm", "oracle")
ORACLE = "oracle"  # the simulator's perceiver and segmenter: the scripted agents' default


def oracle_spec() -> dict[str, Any]:
    """The perception spec of a run that names none: the oracle perceiver and segmenter."""
    return {"perceiver": ORACLE, "config": None, "segmenter": ORACLE}


def spec_segmenter(spec: dict[str, Any] | None) -> str:
    """The segmenter a perception spec names (the oracle's when it names none)."""
    return (spec or {}).get("segmenter", ORACLE)


def make_perceiver(spec: dict[str, Any] | None, retry: RetryPolicy = DEFAULT_RETRY):
    """The perceiver a run's `perception` spec names ({"perceiver": "vlm" | "oracle",
    "config": OpenAIConfig for vlm, "segmenter"}); the oracle when there is none."""
    from sim.tabletop.perception import OraclePerceiver

    if not spec or spec.get("perceiver", ORACLE) == ORACLE:
        return OraclePerceiver()
    if spec["perceiver"] != "vlm":
        raise ValueError(f"perceiver must be one of {PERCEIVERS}, not {spec['perceiver']!r}")
    return VLMPerceiver(spec["config"], retry=retry)
