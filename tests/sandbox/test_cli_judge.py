"""`frontier judge` prints the compiler's words as written (services/terminal.py): it judges in the real
sandbox (root); the other command lines' markup tests are in tests/unit/test_cli_markup.py."""

from __future__ import annotations

from tests.support import BUNDLED
from tests.support.cli import MARKUP, invoke


def test_judge_prints_a_programs_compile_output_as_written(tmp_path):
    """The compiler's words quote the program: its line, markup and all, comes back as written."""
    program = tmp_path / "bad.py"
    program.write_text(f'x = "{MARKUP}" +\n')
    problem = BUNDLED / "anagram_groups"
    result = invoke(["judge", str(problem), str(program)], 0)  # judged (status ok): a CE verdict
    assert "compile output:\n" in result.output
    assert f'x = "{MARKUP}" +' in result.output and "SyntaxError" in result.output
