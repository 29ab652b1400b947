"""The merger service's client (docs/spec.md section 7), blocking, over httpx: queue a merge, read its
state, follow it to its end. What the evaluator's sweep and the replication driver use; it imports
nothing of the merger's API or worker.

    with MergeClient() as client:                     # FRONTIER_MERGER_URL, FRONTIER_API_TOKEN
        state = client.merge({"low": ..., "high": ..., "alphas": [0, 0.5, 1], "output_dir": ...})
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from services.settings import Settings, get_settings

ENDED = ("finished", "failed", "stopped", "canceled")  # a job in one of these states is over (RQ's names)


class MergeClientError(RuntimeError):
    """The merger refused a request, could not be reached, or its job did not finish: why, and the
    HTTP status where there was one."""

    def __init__(self, message: str, status_code: int | None = None):
        super().__init__(message)
        self.status_code = status_code


class MergerUnreachable(MergeClientError):
    """No answer from the merger service at all (connection refused, timed out)."""


class MergeClient:
    """Blocking client of one merger service; a context manager (closes its connections)."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        timeout_s: float = 60.0,
        token: str | None = None,
        http: httpx.Client | None = None,
        settings: Settings | None = None,
    ):
        """`settings`: whose FRONTIER_MERGER_URL and token (the process's by default); `http`: an httpx
        client of the service to use instead (an in-process app's, in tests)."""
        settings = settings or get_settings()
        self.base_url = (base_url or settings.merger_url).rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else settings.auth_headers()
        self._http = http or httpx.Client(base_url=self.base_url, timeout=timeout_s, headers=headers)

    def __enter__(self) -> MergeClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kw) -> dict:
        try:
            response = self._http.request(method, path, **kw)
        except httpx.HTTPError as err:
            raise MergerUnreachable(f"merger service at {self.base_url} unreachable: {err}") from err
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail")
            except ValueError:
                detail = response.text[:500]
            raise MergeClientError(
                f"the merger answered {response.status_code}: {detail}", response.status_code
            )
        return response.json()

    def submit(self, body: dict) -> str:
        """POST /merge: the accepted job's id; a refusal raises MergeClientError with the reason."""
        return self._call("POST", "/merge", json=body)["job_id"]

    def status(self, job_id: str) -> dict:
        """GET /merge/{job_id}: the job's state (status, progress, error)."""
        return self._call("GET", f"/merge/{job_id}")

    def follow(
        self, job_id: str, on_progress: Callable[[dict], None] | None = None, poll_s: float = 0.5
    ) -> dict:
        """Poll the job until it ends; `on_progress` gets each state read. Its last state; a job that
        did not finish raises MergeClientError."""
        while True:
            state = self.status(job_id)
            if on_progress is not None:
                on_progress(state)
            if state["status"] == "finished":
                return state
            if state["status"] in ENDED:
                raise MergeClientError(f"merge job {job_id} {state['status']}: {state.get('error')}")
            time.sleep(poll_s)

    def merge(
        self, body: dict, on_progress: Callable[[dict], None] | None = None, poll_s: float = 0.5
    ) -> dict:
        """Submit and follow: the finished job's state, with its `job_id`."""
        job_id = self.submit(body)
        return {**self.follow(job_id, on_progress, poll_s), "job_id": job_id}
