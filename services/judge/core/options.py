"""How a batch is judged: one `JudgeOptions` model (as `EvalConfig` is for the evaluator), the same
from the request (`POST /judge`, `POST /submissions`, docs/spec.md 6.3) through the queue's job payload
to `Engine.judge(problem, submission, options)`, and what both clients send.

Part of the judge's core: pydantic and the feedback renderer only, no FastAPI, RQ or Redis."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from services.judge.core.feedback import Template, parse_template
from services.judge.core.models import Isolation, Mode

if TYPE_CHECKING:
    from services.settings import Settings

log = logging.getLogger(__name__)

K = Annotated[int, Field(ge=1, le=18)]


class JudgeOptions(BaseModel):
    """A batch's options: its mode, its R_k, feedback and its template, and the tests' isolation.
    Unknown fields are refused; each field's default is the judge's (None: the judge's setting)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Mode = "first_failure"
    ks: list[K] | None = Field(
        default=None, description="Which R_k to report; default: every k the problem's tests need."
    )
    feedback: bool = Field(
        default=False,
        description="Failing results carry `feedback` and `feedback_text` (docs/spec.md section 5.1); "
        "only public tests show their content.",
    )
    feedback_template: str | dict[str, str | int] | None = Field(
        default=None,
        description="How feedback_text is written: a style name ('rlef', 'stats') or an object of "
        "template parts; default FRONTIER_FEEDBACK_TEMPLATE.",
    )
    isolation: Isolation | None = Field(
        default=None,
        description="'test': every test in a process of its own; 'submission': a Python submission's "
        "tests forked in turn from one sandboxed snapshot of it, taken before its first test "
        "(docs/spec.md 4.8); default FRONTIER_ISOLATION.",
    )

    @field_validator("feedback_template")
    @classmethod
    def _template_ok(cls, v: str | dict | None) -> str | dict | None:
        if v is not None:
            parse_template(v)  # a ValueError names what is wrong (a 422 at the API)
        return v

    @classmethod
    def of(cls, model: BaseModel) -> JudgeOptions:
        """The options part of a model that embeds them (a request, a job payload)."""
        return cls.model_validate({name: getattr(model, name) for name in cls.model_fields})

    @classmethod
    def given(cls, options: JudgeOptions | str | None, fields: dict[str, Any]) -> JudgeOptions:
        """`options` (default: the defaults; a mode name alone, as calls took it before: that mode)
        with `fields` (the options a call names) over it, validated: a ValueError names a bad one."""
        if isinstance(options, str):
            options, fields = None, {"mode": options, **fields}
        base = options if options is not None else cls()
        if not fields:
            return base
        return cls.model_validate({**base.model_dump(), **fields})

    def fields(self) -> dict[str, Any]:
        """As request fields: `mode` always, the rest only where they differ from the default."""
        return {"mode": self.mode, **self.model_dump(exclude_defaults=True, exclude={"mode"})}

    def template(self, settings: Settings) -> Template:
        """The feedback template: the request's over FRONTIER_FEEDBACK_TEMPLATE's (a style name or a
        JSON object); a setting that does not parse is logged (once) and the RLEF style used."""
        return parse_template(self.feedback_template, _setting_template(settings))


_SETTING_TEMPLATES: dict[str, Template] = {}  # FRONTIER_FEEDBACK_TEMPLATE's text -> its template


def _setting_template(settings: Settings) -> Template:
    """FRONTIER_FEEDBACK_TEMPLATE parsed, once per distinct value."""
    text = settings.feedback_template
    template = _SETTING_TEMPLATES.get(text)
    if template is None:
        try:
            template = parse_template(settings.feedback_template_value())
        except ValueError as err:
            log.error("FRONTIER_FEEDBACK_TEMPLATE ignored: %s", err)
            template = Template()
        if len(_SETTING_TEMPLATES) >= 16:
            _SETTING_TEMPLATES.clear()
        _SETTING_TEMPLATES[text] = template
    return template
