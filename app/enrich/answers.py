"""What a model's answer must look like, one pydantic model per kind of call.

The same class gives the `json_schema` response format sent to the endpoint
(strict: every field required, no others) and validates what comes back, so
servers that ignore the format are held to it too.

    summary = client.chat_answer(messages=[...], answer=SummaryAnswer)
    summary.title
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from app.rules.categories import Category


class Answer(BaseModel):
    """One JSON object a model is asked for; `name` names it in the response format.

    A subclass's docstring becomes its schema's description: the model reads it."""

    # Strict like the JSON schema it is sent as: no coercion ("0.9" is not a number),
    # no fields beyond the declared ones, and every declared field required (no defaults).
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    name: ClassVar[str]

    @classmethod
    def response_format(cls) -> dict[str, Any]:
        """The `response_format` of a chat completion that asks for this answer."""
        return {
            "type": "json_schema",
            "json_schema": {"name": cls.name, "schema": cls.model_json_schema(), "strict": True},
        }


class SummaryAnswer(Answer):
    """The summary of one sitting (episode) of screen activity."""

    name: ClassVar[str] = "episode_summary"
    title: str = Field(min_length=1, max_length=120)
    summary: str = Field(min_length=1, max_length=2000)
    category: Category
    tags: list[str] = Field(max_length=8)
    cues: list[str] = Field(max_length=12)


class NarrativeAnswer(Answer):
    """The narrative of a day, week or month."""

    name: ClassVar[str] = "digest_narrative"
    narrative: str = Field(min_length=1, max_length=4000)


class DescriptionAnswer(Answer):
    """What one screenshot shows the person doing."""

    name: ClassVar[str] = "frame_description"
    description: str = Field(min_length=1, max_length=2000)
    category: Category
    confidence: float = Field(ge=0, le=1)
    cues: list[str] = Field(max_length=12)
