"""Running a service's HTTP API in the foreground: the one place that sets up logging, warns when a
service without a token listens beyond loopback (docs/spec.md section 9.1), and starts uvicorn."""

from __future__ import annotations

import logging

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging() -> None:
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)


def serve_http(what: str, app, host: str, port: int, settings, **uvicorn_options) -> None:
    """Serve `app` on host:port until interrupted; `what` names the service in the exposure warning."""
    import uvicorn

    from services.security import warn_if_exposed

    setup_logging()
    warn_if_exposed(what, host, settings)
    uvicorn.run(app, host=host, port=port, **uvicorn_options)
