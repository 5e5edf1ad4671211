"""How a finding points into the bundle: a member plus a JSON pointer or a line range.

Its own module because both the analysis report and its fleet overview cite.
"""

from __future__ import annotations

from pydantic import Field

from ._base import RecordModel


class LineRange(RecordModel):
    start: int = Field(ge=1)
    end: int = Field(ge=1)


class Citation(RecordModel):
    """A pointer into the bundle that backs a finding."""

    member: str = Field(description="Bundle member path.")
    pointer: str | None = Field(default=None, description="RFC 6901 JSON pointer, for JSON.")
    lines: LineRange | None = Field(default=None, description="Line range, for text.")
    excerpt: str | None = Field(default=None, description="Short, redacted excerpt.")

    def label(self) -> str:
        """``member#/pointer`` or ``member:L12-14``, for humans."""
        if self.pointer is not None:
            return f"{self.member}#{self.pointer}"
        if self.lines is not None:
            if self.lines.start == self.lines.end:
                return f"{self.member}:{self.lines.start}"
            return f"{self.member}:{self.lines.start}-{self.lines.end}"
        return self.member
