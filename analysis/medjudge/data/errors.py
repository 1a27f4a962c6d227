"""Input errors that name the file, line/row and column, and say what would fix it."""

from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """Bad input. ``str(err)`` is one line a user can act on: where, what, and the fix.

    The CLI prints it and exits with status 2; it never surfaces as a traceback.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        column: str | int | None = None,
        hint: str | None = None,
    ) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.column = column
        self.message = message
        self.hint = hint
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column!s}")
        text = ": ".join([", ".join(where), self.message]) if where else self.message
        if self.hint:
            text += f" ({self.hint})"
        return text
