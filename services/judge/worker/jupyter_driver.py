"""The program `/run_jupyter` runs in the sandbox: one Python interpreter that runs the request's cells in
turn in one namespace, as a notebook kernel would. It is sent as a run's code; its stdin is JSON
`{"cells": [...], "cell_timeout_s": float}` and it writes one JSON line per cell to its stdout:
`{"stdout", "stderr", "display": [{"text/plain": ...}], "error": [{"ename", "evalue", "traceback"}]}`.

Each cell's fds 1 and 2 go to files of their own (so output of subprocesses is caught too), and the
value of a cell's last expression is its display, as in a notebook. It imports only the standard
library; it must stay runnable as a plain script.
"""

import ast
import json
import os
import signal
import sys
import tempfile
import traceback


class CellTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise CellTimeout("cell timed out")


def _run_cell(source, namespace):
    display, error = [], []
    try:
        tree = ast.parse(source, "<cell>", "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(last, "<cell>", "eval"), namespace)
            if value is not None:
                display.append({"text/plain": repr(value)})
    except BaseException as err:  # noqa: BLE001 - a cell's error, whatever it is, is the cell's result
        lines = traceback.format_exception(type(err), err, err.__traceback__)
        error.append({"ename": type(err).__name__, "evalue": str(err), "traceback": lines})
    return display, error


def main():
    request = json.loads(sys.stdin.read())
    cell_timeout_s = float(request.get("cell_timeout_s") or 0)
    report = os.fdopen(os.dup(1), "w")
    namespace = {"__name__": "__main__"}
    signal.signal(signal.SIGALRM, _on_alarm)
    for source in request["cells"]:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            sys.stdout.flush()
            sys.stderr.flush()
            saved = os.dup(1), os.dup(2)
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            if cell_timeout_s > 0:
                signal.setitimer(signal.ITIMER_REAL, cell_timeout_s)
            try:
                display, error = _run_cell(source, namespace)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                os.close(saved[0])
                os.close(saved[1])
            out.seek(0)
            err.seek(0)
            cell = {
                "stdout": out.read().decode("utf-8", "replace"),
                "stderr": err.read().decode("utf-8", "replace"),
                "display": display,
                "error": error,
            }
        report.write(json.dumps(cell) + "\n")
        report.flush()


if __name__ == "__main__":  # the sandbox runs a program as __main__
    main()
