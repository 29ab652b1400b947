"""The evaluator service's client (docs/spec.md section 4), blocking, over httpx: queue an eval or a
sweep, read a job's state, follow it to its end. What the `frontier eval --service` command and the
replication driver use; nothing here imports the evaluator's pipeline.

    with EvalClient() as client:                      # FRONTIER_EVALUATOR_URL, FRONTIER_API_TOKEN
        state = client.run("/eval", {"checkpoints": [...], "benchmark": "bundled"})
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
from tqdm import tqdm

from services.settings import get_settings

# a job in one of these states is over (RQ's names)
ENDED = ("finished", "failed", "stopped", "canceled")
SUBMIT_PATHS = ("/eval", "/sweep")


class EvalClientError(RuntimeError):
    """The evaluator refused a request: its status code and its reason."""

    def __init__(self, message: str, status_code: int | None = None):
        super().__init__(message)
        self.status_code = status_code


class EvalClient:
    """Blocking client of one evaluator service; a context manager (closes its connections)."""

    def __init__(self, base_url: str | None = None, *, timeout_s: float = 60.0, token: str | None = None):
        settings = get_settings()
        self.base_url = (base_url or settings.evaluator_url).rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else settings.auth_headers()
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout_s, headers=headers)

    def __enter__(self) -> EvalClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def submit(self, path: str, body: dict) -> dict:
        """POST `path` (/eval or /sweep): the accepted job (job_id, kind, run_dir, status_url); a refusal
        raises EvalClientError with the service's reason."""
        response = self._http.post(path, json=body)
        if response.status_code >= 400:
            raise EvalClientError(
                f"the evaluator answered {response.status_code}: {_detail(response)}", response.status_code
            )
        return response.json()

    def status(self, job_id: str, *, samples: bool = False) -> dict:
        """GET /eval/{job_id}: the job's state (and, once finished, its report)."""
        response = self._http.get(f"/eval/{job_id}", params={"samples": "true"} if samples else None)
        if response.status_code >= 400:
            raise EvalClientError(
                f"the evaluator answered {response.status_code}: {_detail(response)}", response.status_code
            )
        return response.json()

    def follow(
        self, job_id: str, *, poll_s: float = 1.0, on_state: Callable[[dict], None] | None = None
    ) -> dict:
        """Poll the job until it ends, with a progress bar (samples judged of the total); its final state."""
        with tqdm(total=None, desc="queued", unit="sample") as bar:
            while True:
                state = self.status(job_id)
                if on_state is not None:
                    on_state(state)
                p = state.get("progress") or {}
                stage = state.get("stage") or state["status"]
                if p.get("checkpoint") and stage in ("generating", "judging"):
                    stage = f"{stage} {p['checkpoint']}"
                bar.set_description(stage, refresh=False)
                if p.get("total") is not None and bar.total != p["total"]:
                    bar.reset(total=p["total"])
                bar.update(p.get("judged", 0) - bar.n)
                if state["status"] in ENDED:
                    return state
                time.sleep(poll_s)

    def run(
        self,
        path: str,
        body: dict,
        *,
        poll_s: float = 1.0,
        on_accepted: Callable[[dict], None] | None = None,
    ) -> dict:
        """Submit and follow to the end: the final state (its `status` says whether it finished)."""
        job = self.submit(path, body)
        if on_accepted is not None:
            on_accepted(job)
        return self.follow(job["job_id"], poll_s=poll_s)


def _detail(response: httpx.Response):
    try:
        body = response.json()
    except ValueError:
        return response.text[:500]
    return body.get("detail") if isinstance(body, dict) else body
