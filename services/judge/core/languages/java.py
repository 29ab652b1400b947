"""Java: `javac` then one jar, run by `java -jar` with the heap sized from the problem's memory limit.

The source is written to the file its public top-level class names (`Main` when there is none), and
that class is the jar's entry point. A JVM starts a dozen threads (compiler, GC, signal): the serial
collector and one visible processor keep them few, well inside the pids limit, and all of them are in
the slot's cgroup. The heap may grow to the whole memory limit, so a program that keeps allocating
is stopped by the cgroup (MLE, read from its OOM count) rather than by the JVM's own error.
"""

from __future__ import annotations

from services.judge.core.languages.base import Language, TestProgram

# the JVM's own warnings go to stderr, never into the program's answer
JVM = (
    "-Xlog:disable",
    "-Xlog:all=warning:stderr",
    "-XX:+UseSerialGC",
    "-XX:ActiveProcessorCount=1",
    "-XX:-UsePerfData",
    "-Xshare:auto",
)
# javac is a JVM too: its heap within the compile's memory limit
JAVAC = (
    "/usr/bin/javac",
    "-J-Xmx512m",
    "-J-XX:+UseSerialGC",
    "-J-XX:TieredStopAtLevel=1",
    "-encoding",
    "UTF-8",
)
# compile, then pack every class into one file (the cache keeps one artifact); $0 is the class name,
# checked to be an identifier, passed as an argument and never spliced into the script
_SCRIPT = (
    'mkdir classes && "$@" -d classes "$0.java" && '
    "/usr/bin/jar -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 "
    '--create --file main.jar --main-class "$0" -C classes .'
)


def public_class(code: str) -> str:
    """The name of the first `public class X` (or final/abstract) at the start of a line; Main if none."""
    for line in code.splitlines():
        words = line.replace("{", " ").split()
        if words[:1] != ["public"]:
            continue
        words = [w for w in words[1:] if w not in ("final", "abstract", "strictfp")]
        if len(words) >= 2 and words[0] == "class":
            name = words[1]
            if name.isascii() and name.isidentifier() and len(name) <= 200:
                return name
    return "Main"


class Java(Language):
    def tools(self):
        return (*super().tools(), "/usr/bin/jar")

    def source_name(self, code):
        return public_class(code) + ".java"

    def build(self, compiler, source):
        return ["/bin/sh", "-c", _SCRIPT, source.removesuffix(".java"), *compiler]

    def command(self, pinned, memory_limit_mb):
        heap = [f"-Xmx{memory_limit_mb}m"] if memory_limit_mb else []
        return ("/usr/bin/java", *heap, "-Xss64m", *JVM, "-jar", pinned)


LANGUAGE = Java(
    name="java",
    extensions=(".java",),
    fences=("java",),
    judge0_ids=(62, 91),
    judge0_name="Java (OpenJDK)",
    sandboxfusion=("java",),
    compiler=JAVAC,
    artifact="main.jar",
    test_program=TestProgram(
        "import java.util.Scanner;\n\npublic class Sum {\n    public static void main(String[] args) {\n"
        "        Scanner in = new Scanner(System.in);\n"
        "        System.out.println(in.nextLong() + in.nextLong());\n    }\n}\n",
        "2 40\n",
        "42\n",
    ),
)
