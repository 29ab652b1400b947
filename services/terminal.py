"""What the command lines print about things they did not write (an exception's words, a path, a
problem's or a program's text, a service's reply): one line as it is, never read as rich markup and
never wrapped at the terminal's width."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text


def say(console: Console, label: str, message: str, style: str = "red", sep: str = " ") -> None:
    """Print `label` in `style`, then `sep` and `message` as plain text (no label: the message alone).

    The message goes in as a `Text`, so `[bold]` or `[/x]` in it is printed as written (a string
    would be parsed as markup: rendered, or a MarkupError), and `soft_wrap` leaves it one line however
    narrow the terminal (a test or a script reads it back whole)."""
    text = Text.assemble((label, style), sep, message) if label else Text(message)
    console.print(text, soft_wrap=True)
