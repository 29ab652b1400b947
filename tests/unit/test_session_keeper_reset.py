"""A session's keeper killed with the worker's request unread resets the socket: the worker's read of
its answer is a sandbox failure (the session answers `dead`), never an internal error (a 500).
Seen under load in `fresh-ci --loaded` (tests/stack/test_sessions.py's killed-keeper test)."""

from __future__ import annotations

import socket

import pytest

from services.judge.core.sandbox.session import SessionSandbox, SessionSandboxError


def test_a_reset_keeper_socket_is_a_sandbox_failure():
    ours, keepers = socket.socketpair()
    ours.send(b'{"op": "status"}')
    keepers.close()  # the keeper dies with the request unread: our next read gets ECONNRESET
    box = object.__new__(SessionSandbox)  # only its socket matters to _recv
    box._sock, box.proc = ours, None
    try:
        with pytest.raises(SessionSandboxError, match="keeper is gone"):
            box._recv(5.0)
    finally:
        ours.close()
