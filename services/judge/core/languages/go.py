"""Go: `go build` of one file (package main) with the standard library only; a static binary.

The toolchain and the program are Go runtimes: each starts threads up to GOMAXPROCS (plus a few
for the system), all of them in the slot's cgroup and under its pids limit. GOMAXPROCS is fixed
here, not left to the host's core count, so a large host cannot push a program past pids.max.
"""

from __future__ import annotations

from services.judge.core.languages.base import Language, TestProgram

GOMAXPROCS = 2
_ENV = (
    "/usr/bin/env",
    f"GOMAXPROCS={GOMAXPROCS}",
    "GO111MODULE=off",  # one file, no module, nothing fetched
    "GOFLAGS=",
    "GOPROXY=off",
    "CGO_ENABLED=0",
    "GOCACHE=/tmp/run/.gocache",  # the working directory: wiped after the compile
    "GOPATH=/tmp/run/.gopath",
)


class Go(Language):
    def command(self, pinned, memory_limit_mb):
        return ("/usr/bin/env", f"GOMAXPROCS={GOMAXPROCS}", pinned)


LANGUAGE = Go(
    name="go",
    extensions=(".go",),
    fences=("go", "golang"),
    judge0_ids=(60, 95, 106, 107),
    judge0_name="Go",
    sandboxfusion=("go",),
    compiler=(*_ENV, "/usr/bin/go", "build", "-p", "1"),  # no -trimpath: it would rebuild std
    source="main.go",
    test_program=TestProgram(
        'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int64\n\tfmt.Scan(&a, &b)\n'
        "\tfmt.Println(a + b)\n}\n",
        "2 40\n",
        "42\n",
    ),
)
