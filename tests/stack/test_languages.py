"""Issue 25: every language beside Python and C++ judged end to end on a bundled problem.

Per language the held-out-style conformance set (correct, wrong, TLE, MLE, RE and CE programs on
problems/bundled/prefix_range_sums) gives the expected verdicts, and the sandbox's guarantees hold for
the JVM's and the other runtimes' own threads and files (docs/spec.md 4.7). Each program compiles once.
"""

from __future__ import annotations

import ast
import io
import json
import os
import socket
import subprocess
import sys
import tarfile
from pathlib import Path

import httpx
import pytest

from services.judge.core.extract import extract_code
from services.judge.core.languages import LANGUAGES
from services.judge.core.languages.java import public_class
from services.judge.core.models import Submission
from services.judge.core.runners import RUNNERS
from services.judge.core.verdicts import Outcome, Verdict
from services.problems.store import load_problem_dir
from tests.support import BUNDLED, FIXTURES, ROOT
from tests.support.stack import judge_stack

FIXTURES = FIXTURES / "languages"
EXT = {"c": "c", "java": "java", "go": "go", "rust": "rs", "javascript": "js"}
LANGS = list(EXT)

# wrong: one number, whatever was asked; tle: a loop that never ends; mle: memory kept until the
# cgroup stops it; re: a non-zero exit after a runtime error; ce: a syntax error
PROGRAMS = {
    "c": {
        "wrong": '#include <stdio.h>\nint main(void){puts("0");return 0;}',
        "tle": "int main(void){volatile unsigned long x=0;for(;;)x++;}",
        "mle": "#include <stdlib.h>\n#include <string.h>\n"
        "int main(void){for(;;){char*p=malloc(1<<20);memset(p,1,1<<20);}}",
        "re": "#include <stdlib.h>\nint main(void){int*p=0;return *p;}",
        "ce": "int main(void){ return }",
    },
    "java": {
        "wrong": "public class Main { public static void main(String[] a) { System.out.println(0); } }",
        "tle": "public class Main { public static void main(String[] a) { long x = 0; "
        "while (true) { x++; if (x == -1) System.out.println(x); } } }",
        "mle": "import java.util.*;\npublic class Main { public static void main(String[] a) { "
        "List<int[]> k = new ArrayList<>(); while (true) { int[] b = new int[1 << 18]; "
        "Arrays.fill(b, 1); k.add(b); } } }",
        "re": "public class Main { public static void main(String[] a) { int[] x = new int[1]; "
        "System.out.println(x[a.length + 5]); } }",
        "ce": "public class Main { public static void main(String[] a) { int x = ; } }",
    },
    "go": {
        "wrong": 'package main\nimport "fmt"\nfunc main() { fmt.Println(0) }',
        "tle": "package main\nvar x int\nfunc main() { for { x++ } }",
        "mle": "package main\nvar keep [][]byte\nfunc main() { for { b := make([]byte, 1<<20); "
        "for i := range b { b[i] = 1 }; keep = append(keep, b) } }",
        "re": 'package main\nimport "os"\nfunc main() { var a []int; os.Stdout.WriteString("x"); a[len(os.Args)+3] = 1 }',
        "ce": "package main\nfunc main() { x := }",
    },
    "rust": {
        "wrong": 'fn main() { println!("0"); }',
        "tle": "fn main() { let mut x: u64 = 0; loop { x = x.wrapping_add(1); "
        'if x == u64::MAX { println!("{}", x); } } }',
        "mle": "fn main() { let mut k: Vec<Vec<u8>> = Vec::new(); loop { k.push(vec![1u8; 1 << 20]); } }",
        "re": 'fn main() { let v: Vec<i32> = Vec::new(); let i = std::env::args().count() + 3; println!("{}", v[i]); }',
        "ce": "fn main() { let x: i32 = ; }",
    },
    "javascript": {
        "wrong": "console.log(0);",
        "tle": "let x = 0; for (;;) { x++; }",
        # one buffer far past the limit, every page written: the cgroup's limit comes long before the
        # CPU limit (many small arrays made V8 collect near the limit until the CPU limit came first)
        "mle": "const b = Buffer.alloc(1 << 30, 1); console.log(b[b.length - 1]);",
        "re": "null.f();",
        "ce": "function (",
    },
}
EXPECTED = {"wrong": Verdict.WA, "tle": Verdict.TLE, "mle": Verdict.MLE, "re": Verdict.RE, "ce": Verdict.CE}


@pytest.fixture(scope="module")
def problem(engine):
    return load_problem_dir(BUNDLED / "prefix_range_sums", engine.store)


def _run(engine, language, code, time_limit_ms, memory_limit_mb):
    return engine.run(
        language,
        code,
        time_limit_ms=time_limit_ms,
        wall_limit_ms=time_limit_ms * 3,
        memory_limit_mb=memory_limit_mb,
        output_limit_bytes=1 << 16,
    )


def _judge(engine, problem, language, code, mode="first_failure"):
    sub = Submission(id="s", problem_id=problem.id, language=language, code=code)
    return engine.judge(problem, sub, mode=mode)


@pytest.mark.parametrize("language", LANGS)
def test_correct_program_passes_every_test(engine, problem, language):
    code = (FIXTURES / f"ok.{EXT[language]}").read_text()
    r = _judge(engine, problem, language, code)
    assert r.outcome == Outcome.CORRECT, (r.compile_output, [t.verdict for t in r.tests])
    assert all(t.verdict == Verdict.AC for t in r.tests) and len(r.tests) == len(problem.tests)
    assert r.rewards["R_inf"] == 1
    # judged again: the cached artifact, no second compile (the same verdicts)
    again = _judge(engine, problem, language, code)
    assert again.outcome == Outcome.CORRECT


@pytest.mark.parametrize("kind", list(EXPECTED))
@pytest.mark.parametrize("language", LANGS)
def test_failing_programs_get_their_verdict(engine, problem, language, kind):
    r = _judge(engine, problem, language, PROGRAMS[language][kind])
    first = r.tests[0]
    assert first.verdict == EXPECTED[kind], (first, r.compile_output)
    assert all(t.verdict == Verdict.SKIPPED for t in r.tests[1:])
    assert r.rewards["R_1"] == 0
    if kind == "ce":
        assert r.compile_output  # the compiler's own message
    if kind == "mle":
        # read from the cgroup: its peak reached the problem's limit
        assert first.memory_kb is None or first.memory_kb >= problem.spec.memory_limit_mb * 1024 * 0.8


# -- the sandbox's guarantees for each runtime (docs/spec.md 4.7) -----------------------------------
# each prints one line per probe: "net open" or "net closed" (a TCP connection to the host's Redis on
# 127.0.0.1:6379, open on the host: the sandbox's network namespace has a loopback of its own and no
# other interface), "data open" or "data closed" (the test data directory)
PROBES = {
    "c": r"""#include <stdio.h>
#include <dirent.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
static int tcp(const char *ip, int port) {
    int s = socket(AF_INET, SOCK_STREAM, 0); if (s < 0) return 0;
    struct sockaddr_in a; memset(&a, 0, sizeof a); a.sin_family = AF_INET; a.sin_port = htons(port);
    inet_pton(AF_INET, ip, &a.sin_addr); int ok = connect(s, (struct sockaddr *)&a, sizeof a) == 0;
    close(s); return ok;
}
int main(void) {
    printf("net %s\n", tcp("127.0.0.1", 6379) ? "open" : "closed");
    DIR *d = opendir("/data"); printf("data %s\n", d && readdir(d) ? "open" : "closed");
    return 0;
}""",
    "java": """import java.io.File;
import java.net.*;
public class Probe {
    static boolean tcp(String host, int port) {
        try (Socket s = new Socket()) { s.connect(new InetSocketAddress(host, port), 2000); return true; }
        catch (Exception e) { return false; }
    }
    public static void main(String[] a) {
        System.out.println("net " + (tcp("127.0.0.1", 6379) ? "open" : "closed"));
        String[] names = new File("/data").list();
        System.out.println("data " + (names != null && names.length > 0 ? "open" : "closed"));
    }
}""",
    "go": """package main

import (
	"fmt"
	"net"
	"os"
	"time"
)

func tcp(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

func main() {
	net_, data := "closed", "closed"
	if tcp("127.0.0.1:6379") {
		net_ = "open"
	}
	if names, err := os.ReadDir("/data"); err == nil && len(names) > 0 {
		data = "open"
	}
	fmt.Println("net " + net_)
	fmt.Println("data " + data)
}""",
    "rust": """use std::net::{SocketAddr, TcpStream};
use std::time::Duration;
fn tcp(a: &str) -> bool {
    TcpStream::connect_timeout(&a.parse::<SocketAddr>().unwrap(), Duration::from_secs(2)).is_ok()
}
fn main() {
    println!("net {}", if tcp("127.0.0.1:6379") { "open" } else { "closed" });
    let open = std::fs::read_dir("/data").map(|mut d| d.next().is_some()).unwrap_or(false);
    println!("data {}", if open { "open" } else { "closed" });
}""",
    "javascript": """const net = require("net"), fs = require("fs");
function tcp(host, port) {
  return new Promise((done) => {
    const s = net.connect({ host, port, timeout: 2000 }, () => { s.destroy(); done(true); });
    s.on("error", () => done(false)); s.on("timeout", () => { s.destroy(); done(false); });
  });
}
(async () => {
  const open = await tcp("127.0.0.1", 6379);
  console.log("net " + (open ? "open" : "closed"));
  let data = false; try { data = fs.readdirSync("/data").length > 0; } catch (e) {}
  console.log("data " + (data ? "open" : "closed"));
})();""",
}


@pytest.mark.parametrize("language", LANGS)
def test_no_network_and_no_test_data(engine, language):
    with socket.create_connection(("127.0.0.1", 6379), timeout=2):
        pass  # the host's Redis answers here, so "closed" below is the sandbox's doing
    run = _run(engine, language, PROBES[language], 5000, 512)
    assert run.compile_error is None, run.compile_error
    assert run.stdout.decode().split("\n")[:2] == ["net closed", "data closed"], (run.stdout, run.stderr)


# threads beyond the pids limit fail in the program (its own error), never past the limit; the JVM's
# and the Go runtime's own threads count too, which is why a modest program must still fit
THREADS = {
    "java": """public class Main {
    public static void main(String[] a) throws Exception {
        int n = 0;
        try {
            for (; n < 1000; n++) {
                Thread t = new Thread(() -> { try { Thread.sleep(60000); } catch (InterruptedException e) {} });
                t.setDaemon(true); t.start();
            }
        } catch (Throwable e) { }
        System.out.println(n); System.out.flush(); Runtime.getRuntime().halt(0);
    }
}""",
    "go": """package main

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
)

func main() {
	started := make(chan bool)
	for i := 0; i < 1000; i++ {
		go func() {
			runtime.LockOSThread() // one OS thread each, parked in a blocking system call
			started <- true
			var ts syscall.Timespec
			ts.Sec = 60
			syscall.Nanosleep(&ts, nil)
		}()
		select {
		case <-started:
		case <-time.After(2 * time.Second):
			fmt.Println("stuck", i)
			return
		}
	}
	fmt.Println("all")
}""",
}


@pytest.mark.parametrize("language", list(THREADS))
def test_runtime_threads_count_against_the_pids_limit(engine, language):
    pids = engine.settings.pids_max
    run = _run(engine, language, THREADS[language], 10000, 1024)
    assert run.compile_error is None, run.compile_error
    out = run.stdout.decode().split()
    assert "all" not in out, (run.stdout, run.stderr[-500:])
    if language == "java":
        # the program's threads and the JVM's own together stay within pids.max
        assert 0 < int(out[0]) < pids, run.stdout
    else:
        # the Go runtime cannot create the thread past the limit and stops the program
        assert run.result.exit_code not in (0, None) and b"failed to create new OS thread" in run.stderr


def test_small_programs_fit_the_pids_limit(engine):
    """A JVM and a Go program with a few threads of their own run as usual under the default limit."""
    java = """public class Main { public static void main(String[] a) throws Exception {
        Thread[] ts = new Thread[8]; final long[] s = new long[8];
        for (int i = 0; i < 8; i++) { final int k = i; ts[i] = new Thread(() -> s[k] = k); ts[i].start(); }
        long t = 0; for (int i = 0; i < 8; i++) { ts[i].join(); t += s[i]; } System.out.println(t); } }"""
    run = _run(engine, "java", java, 10000, 256)
    assert run.stdout == b"28\n", (run.stdout, run.stderr)


# -- the registry, extraction, the CLI ---------------------------------------------------------------
LANGUAGES_DIR = ROOT / "services" / "judge" / "core" / "languages"


def test_every_language_has_a_runner_and_a_fence_tag():
    assert set(LANGS) | {"python", "cpp"} == set(LANGUAGES) == set(RUNNERS)
    for language, tag in [("c", "c"), ("java", "java"), ("go", "go"), ("rust", "rust"), ("javascript", "js")]:
        completion = f"thinking\n```python\nprint(1)\n```\n```{tag}\nBODY {language}\n```\n"
        assert extract_code(completion, language) == f"BODY {language}\n"
    for name, language in LANGUAGES.items():
        assert language.fences and language.extensions and language.judge0_ids and language.sandboxfusion
        for tag in language.fences:
            assert extract_code(f"```{tag}\nBODY\n```\n```other\nX\n```\n", name) == "BODY\n", tag
    # another language's block is never taken for this one
    assert extract_code("```java\nclass Main {}\n```\n", "javascript") is None


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_language_runs_its_test_program(engine, language):
    """Each language's own test program (its declaration's `test_program`) prints what it declares."""
    program = LANGUAGES[language].test_program
    run = engine.run(
        language,
        program.source,
        stdin=program.stdin.encode(),
        time_limit_ms=10_000,
        wall_limit_ms=30_000,
        memory_limit_mb=512,
        output_limit_bytes=1 << 16,
    )
    assert run.compile_error is None, run.compile_error
    assert run.stdout.decode() == program.stdout, (run.stdout, run.stderr)


# a language of one file: the registry, and every table read from it, take it with nothing else changed
TOY = """
from services.judge.core.languages.base import Language, TestProgram

LANGUAGE = Language(
    name="toy",
    extensions=(".toy",),
    fences=("toy", "toylang"),
    judge0_ids=(9001,),
    judge0_name="Toy (1.0)",
    sandboxfusion=("toy", "toy3"),
    compiler=("/usr/bin/toyc",),
    allow_flag=lambda flag: flag == "-O2",
    test_program=TestProgram("print 42", "", "42\\n"),
)
"""
TOY_CHECK = """
from services.judge.cli import EXTENSIONS
from services.judge.compat import judge0, sandboxfusion
from services.judge.core import flags
from services.judge.core.extract import extract_code
from services.judge.core.models import Submission
from services.judge.core.runners import RUNNERS, CompiledRunner

assert isinstance(RUNNERS["toy"], CompiledRunner)
assert extract_code("```toylang\\nX\\n```\\n", "toy") == "X\\n"
assert EXTENSIONS[".toy"] == "toy"
assert judge0.LANGUAGE_IDS[9001] == "toy"
assert {"id": 9001, "name": "Toy (1.0)", "is_archived": False} in judge0.LANGUAGES
assert sandboxfusion.LANGUAGES["toy3"] == "toy"
assert "toy" in flags.COMPILED_LANGUAGES
flags.check_flags("toy", ["-O2"])
assert Submission(id="a", problem_id="p", language="toy").language == "toy"
print("toy ok")
"""


def test_a_language_is_one_file(tmp_path):
    """Adding a language touches one product file: a copy of the product with one more module in
    services/judge/core/languages/ judges, extracts, maps and validates it everywhere."""
    import shutil

    shutil.copytree(ROOT / "services", tmp_path / "services", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "services" / "judge" / "core" / "languages" / "toy.py").write_text(TOY)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "FRONTIER_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run(
        [sys.executable, "-c", TOY_CHECK], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "toy ok" in done.stdout, done.stderr[-3000:]


def _string_constants(node) -> list[str]:
    return [e.value for e in node if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def language_tables(path: Path, root: Path = ROOT) -> list[str]:
    """Literal tables (a dict, set, list, tuple or Literal[...]) naming three or more of the judge's
    languages: a table of languages kept outside their declarations."""
    names = set(LANGUAGES)
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Dict):
            items = _string_constants(node.keys) + _string_constants(node.values)
        elif isinstance(node, ast.Set | ast.List | ast.Tuple):
            items = _string_constants(node.elts)
        else:
            continue
        if len(set(items) & names) >= 3:
            found.append(f"{path.relative_to(root)}:{node.lineno}")
    return sorted(found, key=lambda hit: int(hit.rpartition(":")[2]))


# product files that may keep a table of language names: none
LANGUAGE_TABLES_ALLOWED: tuple[str, ...] = ()


def test_no_table_of_languages_outside_their_declarations():
    """Every table of languages (fence tags, extensions, Judge0 ids, SandboxFusion names, a Literal of
    names) is read from services/judge/core/languages, so a new language needs no other edit."""
    wrong = [
        hit
        for top in ("services", "trainer", "merger")
        for path in sorted((ROOT / top).rglob("*.py"))
        if LANGUAGES_DIR not in path.parents
        for hit in language_tables(path)
        if hit.partition(":")[0] not in LANGUAGE_TABLES_ALLOWED
    ]
    assert not wrong, "language tables outside services/judge/core/languages:\n" + "\n".join(wrong)


def test_the_table_finder_finds_a_table(tmp_path):
    sample = tmp_path / "tables.py"
    sample.write_text(
        'X = Literal["python", "cpp", "go"]\nY = ("c",)\nZ = {".py": "python", ".c": "c", ".go": "go"}\n'
    )
    assert language_tables(sample, tmp_path) == ["tables.py:1", "tables.py:3"]


# what a language module may import: its declaration's base and pure standard modules (re2 for an
# allow-list); the registry imports every module of the folder, and the API reads the registry
PURE_IMPORTS = {"__future__", "platform", "string", "re2", "services.judge.core.languages.base"}


@pytest.mark.parametrize("path", sorted(LANGUAGES_DIR.glob("*.py")), ids=lambda p: p.name)
def test_language_modules_run_nothing(path):
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    allowed = PURE_IMPORTS | {"collections.abc", "dataclasses", "importlib", "pkgutil"}
    assert imported <= allowed, imported - allowed


def test_java_source_is_named_after_its_public_class():
    assert public_class("import java.util.*;\npublic final class Solver {\n}") == "Solver"
    assert public_class("class Helper {}\nclass Main {}") == "Main"
    # never a path or a shell word: a name that is no identifier falls back to Main
    assert public_class("public class ../x {}") == "Main"
    assert public_class("public class $(id) {}") == "Main"


@pytest.mark.parametrize("language", ["java", "go"])
def test_cli_judges_by_extension(tmp_path, language):
    src = tmp_path / f"sol.{EXT[language]}"
    src.write_text((FIXTURES / f"ok.{EXT[language]}").read_text())
    env = {**os.environ, "FRONTIER_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(Path.cwd())}
    cli = [
        sys.executable,
        "-m",
        "services.cli",
        "judge",
        str(BUNDLED / "prefix_range_sums"),
        str(src),
        "--json",
    ]
    out = subprocess.run(cli, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)["outcome"] == "correct"


# -- the service: POST /judge, SandboxFusion's /run_code and Judge0, the official clients unchanged ----
GO_SUM = 'package main\nimport "fmt"\nfunc main() { var a, b int64; fmt.Scan(&a, &b); fmt.Println(a + b) }\n'
JS_SUM = (
    'const [a, b] = require("fs").readFileSync(0, "utf8").split(/\\s+/).map(Number);\nconsole.log(a + b);\n'
)
RUST_SUM = (
    "fn main() { let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap(); "
    'let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect(); println!("{}", v[0] + v[1]); }'
)
JAVA_SUM = """import java.util.Scanner;
public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong());
    }
}
"""


@pytest.fixture(scope="module")
def open_stack(tmp_path_factory):
    """A judge without an API token (SandboxFusion's client sends none), one worker of two slots, and
    the bundled prefix_range_sums uploaded."""
    with judge_stack(
        tmp_path_factory,
        "languages",
        slots=2,
        judge_queue=f"languages-{os.getpid()}",
        redis_prefix=f"languages{os.getpid()}",
    ) as s:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            tar.add(BUNDLED / "prefix_range_sums", arcname="prefix_range_sums")
        with httpx.Client(base_url=s.url, timeout=300) as http:
            r = http.put(
                "/problems/prefix_range_sums",
                content=buf.getvalue(),
                headers={"content-type": "application/gzip"},
            )
            assert r.status_code == 201, r.text
        yield s


def test_api_judges_every_language(open_stack):
    subs = [
        {
            "id": lang,
            "problem_id": "prefix_range_sums",
            "language": lang,
            "code": (FIXTURES / f"ok.{ext}").read_text(),
        }
        for lang, ext in EXT.items()
    ]
    subs += [
        {
            "id": f"{lang}-{kind}",
            "problem_id": "prefix_range_sums",
            "language": lang,
            "code": PROGRAMS[lang][kind],
        }
        for lang in LANGS
        for kind in ("wrong", "ce")
    ]
    with httpx.Client(base_url=open_stack.url, timeout=600) as http:
        r = http.post("/judge", json={"submissions": subs})
    assert r.status_code == 200, r.text
    got = {x["id"]: x for x in r.json()["results"]}
    for lang in LANGS:
        assert got[lang]["outcome"] == "correct", got[lang]
        assert got[f"{lang}-wrong"]["tests"][0]["verdict"] == "WA"
        assert got[f"{lang}-ce"]["tests"][0]["verdict"] == "CE"


def test_sandbox_fusion_client_runs_java_and_go(open_stack):
    import sandbox_fusion as sf

    sf.set_sandbox_endpoint(open_stack.url)
    for language, code in (("java", JAVA_SUM), ("go", GO_SUM)):
        out = sf.run_code(sf.RunCodeRequest(code=code, language=language, stdin="20 22\n"), max_attempts=1)
        assert out.status == sf.RunStatus.Success, out
        assert (out.run_result.return_code, out.run_result.stdout) == (0, "42\n")
        assert out.compile_result.status == sf.CommandRunStatus.Finished
    for language in ("nodejs", "rust"):
        code = {"nodejs": JS_SUM, "rust": RUST_SUM}[language]
        out = sf.run_code(sf.RunCodeRequest(code=code, language=language, stdin="1 2\n"), max_attempts=1)
        assert out.status == sf.RunStatus.Success and out.run_result.stdout == "3\n", out
    bad = sf.run_code(sf.RunCodeRequest(code="package main\nfunc main() {", language="go"), max_attempts=1)
    assert bad.status == sf.RunStatus.Failed and bad.compile_result.return_code != 0, bad


def test_judge0_client_runs_java_and_go(open_stack):
    import judge0

    client = judge0.Client(open_stack.url + "/judge0")
    for language, code in ((judge0.JAVA, JAVA_SUM), (judge0.GO, GO_SUM)):
        out = judge0.run(client=client, source_code=code, language=language, stdin="7 8")
        assert out.status == judge0.Status.ACCEPTED and out.stdout == "15\n", (out.status, out.compile_output)
    ce = judge0.run(client=client, source_code="public class Main {", language=judge0.JAVA)
    assert ce.status == judge0.Status.COMPILATION_ERROR and "error" in ce.compile_output
    cases = [("1 2", "3"), ("2 2", "5")]
    batch = judge0.run(client=client, source_code=GO_SUM, language=judge0.GO, test_cases=cases)
    assert [s.status for s in batch] == [judge0.Status.ACCEPTED, judge0.Status.WRONG_ANSWER]


def test_c_takes_allowed_compiler_options_only(engine):
    code = '#include <stdio.h>\nint main(void){printf("%d\\n", X * 2);return 0;}\n'
    run = engine.run(
        "c",
        code,
        time_limit_ms=2000,
        wall_limit_ms=6000,
        memory_limit_mb=128,
        output_limit_bytes=1 << 16,
        compiler_flags=["-O0", "-DX=21", "-std=c11"],
    )
    assert run.compile_error is None and run.stdout == b"42\n", run.compile_error
    RUNNERS["c"].check_flags(
        ["-O3", "-std=c99", "-DN=5", "-UNDEBUG", "-Wall", "-Wno-unused", "-fno-inline", "-g2"]
    )
    for flag in (
        *("-o/tmp/x", "-B/tmp", "-fplugin=x.so", "@args", "-O", "-O9", "-D1X", "-DX=$(id)", "-D", "-W"),
        *("-Wl,-rpath,/tmp", "-Wa,x", "-include/etc/passwd", "-specs=x", "-std=c++17", "-lfoo", "-L/tmp", ""),
    ):
        with pytest.raises(ValueError, match="not allowed"):
            RUNNERS["c"].check_flags([flag])
    with pytest.raises(ValueError, match="takes no compiler options"):
        RUNNERS["java"].check_flags(["-g"])


def test_a_missing_toolchain_is_a_judge_error_not_a_compile_error(engine, problem, monkeypatch):
    import dataclasses

    definition = dataclasses.replace(LANGUAGES["c"], compiler=("/usr/bin/no-such-gcc", "-O2"))
    broken = dataclasses.replace(RUNNERS["c"], definition=definition)
    monkeypatch.setitem(RUNNERS, "c", broken)
    r = _judge(engine, problem, "c", PROGRAMS["c"]["wrong"])
    assert r.status == "judge_error" and "c is not installed on this judge" in r.message, r
    assert r.outcome is None and not r.rewards  # no verdict of the program, no reward
