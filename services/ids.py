"""The ids the services hand out, and the check an id from a request passes before it names a Redis
key or a path (docs/spec.md section 9.6): only the shapes the services make, so no id can reach another
key's name (`<batch id>:res`), a pattern or a path (`../`). An id of another shape names nothing: the
route answers 404 as for an unknown id (an upload to a bad problem id: 422), never 500.

The patterns are checked by pydantic-core's linear-time engine, never by backtracking.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated

from pydantic import StringConstraints, TypeAdapter, ValidationError

# a batch id or a run id (Judge0's token): uuid4().hex
HEX_ID = r"^[0-9a-f]{32}$"
# an RQ job id (the evaluator's and the merger's jobs): a uuid4, with or without its hyphens
JOB_ID = r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"
# a session id: 's', the creation time in ms and 48 random bits, in hex
SESSION_ID = r"^s[0-9a-f]{1,40}$"


@cache
def _adapter(pattern: str) -> TypeAdapter:
    return TypeAdapter(Annotated[str, StringConstraints(pattern=pattern)])


def matches(pattern: str, value: str) -> bool:
    """Whether `value` has the shape `pattern` (one of this module's) describes."""
    try:
        _adapter(pattern).validate_python(value)
    except ValidationError:
        return False
    return True
