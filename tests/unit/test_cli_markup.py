"""The command lines print words they did not write (an exception's message, a path, a user's option)
as written: `[/x]` in them is no closing tag (rich's MarkupError, a traceback) and `[bold]oops[/bold]`
is no style, both printed literally on one line (services/terminal.py)."""

from __future__ import annotations

import io

from rich.console import Console

from services.terminal import say
from tests.support.cli import MARKUP, invoke, markup_dir


def test_say_prints_the_message_as_written_on_one_line():
    out = io.StringIO()
    console = Console(file=out, width=20, color_system="truecolor", force_terminal=True)
    long = f"{MARKUP} " + "word " * 20
    say(console, "error:", long)
    text = out.getvalue()
    assert text.count("\n") == 1  # never wrapped at the 20 columns
    assert "error:" in text and "\x1b[31m" in text  # the label in red
    plain = Console(file=io.StringIO(), width=20)
    say(plain, "error:", long)
    assert plain.file.getvalue() == f"error: {long}\n"
    say(plain, "", MARKUP)  # no label: the message alone
    assert plain.file.getvalue().endswith(f"\n{MARKUP}\n")


def test_problems_check_prints_a_path_holding_markup_as_written(tmp_path):
    d = markup_dir(tmp_path)
    d.mkdir(parents=True)
    (d / "problem.json").write_text('{"id": "x", "time_limit_ms": -5, "memory_limit_mb": 256}')
    result = invoke(["problems", "check", str(d)], 1)
    assert f"error: {d / 'problem.json'}" in result.output and "time_limit_ms" in result.output


def test_problems_build_names_a_missing_directory_as_written(tmp_path):
    d = markup_dir(tmp_path)
    result = invoke(["problems", "build", str(d)], 1)
    assert f"error: {d} is not a directory\n" in result.output


def test_judge_prints_an_option_and_a_path_holding_markup_as_written(tmp_path):
    (tmp_path / "prog.py").write_text("print(1)\n")
    result = invoke(["judge", str(tmp_path), str(tmp_path / "prog.py"), "--isolation", MARKUP], 2)
    assert "error: --isolation must be one of" in result.output
    assert f"got {MARKUP!r}" in result.output
    missing = markup_dir(tmp_path) / "prog.py"
    result = invoke(["judge", str(tmp_path), str(missing)], 2)
    assert f"error: cannot read {missing}: No such file or directory" in result.output


def test_merge_prints_a_refusal_holding_markup_as_written(tmp_path):
    low = markup_dir(tmp_path)
    result = invoke(
        ["merge", "--low", str(low), "--high", str(low), "--alphas", "0.5", "--out", str(tmp_path / "o")], 2
    )
    assert "merge refused:" in result.output and MARKUP in result.output
