"""The structure of an HTML page as indented text, for snapshot tests that are not pixel-exact.

Each element becomes ``tag.class#id``; headings, table headers and summaries
keep their text (the page's outline a reader scans); runs of identical
siblings collapse to one line with ``×N``; an SVG lane is summarised by the
count of its marks, so a timeline change shows as a count, not as coordinates.
"""

from __future__ import annotations

from html.parser import HTMLParser

TEXT_OF = frozenset({"h1", "h2", "h3", "h4", "th", "summary", "title"})
VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "line", "circle", "rect"})
SUMMARISED = frozenset({"circle", "rect", "line", "text"})


class _Outline(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str]] = []
        self.depth = 0
        self.stack: list[tuple[str, int]] = []
        self.text: list[str] = []
        self.svg_counts: list[dict[str, int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.svg_counts and tag in SUMMARISED:
            counts = self.svg_counts[-1]
            counts[tag] = counts.get(tag, 0) + 1
            if tag not in VOID:
                self.stack.append((tag, -1))
            return
        a = dict(attrs)
        name = tag + "".join(f".{c}" for c in (a.get("class") or "").split())
        if a.get("id"):
            name += f"#{a['id']}"
        self.lines.append((self.depth, name))
        if tag == "g":
            self.svg_counts.append({})
        if tag not in VOID:
            self.stack.append((tag, len(self.lines) - 1))
            self.depth += 1
            self.text = []

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            open_tag, index = self.stack.pop()
            if index == -1:
                if open_tag == tag:
                    return
                continue
            self.depth -= 1
            depth, name = self.lines[index]
            if open_tag == "g" and self.svg_counts:
                counts = self.svg_counts.pop()
                name += " [" + " ".join(f"{k}×{v}" for k, v in sorted(counts.items())) + "]"
            if open_tag in TEXT_OF:
                text = " ".join("".join(self.text).split())
                name += f" “{text[:70]}”" if text else ""
            self.lines[index] = (depth, name)
            if open_tag == tag:
                return

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def outline(html: str) -> str:
    parser = _Outline()
    parser.feed(html)
    parser.close()
    root: list[tuple[str, list]] = []  # type: ignore[type-arg]
    path: list[list] = [root]  # type: ignore[type-arg]
    for depth, name in parser.lines:
        del path[depth + 1 :]
        children: list = []  # type: ignore[type-arg]
        path[depth].append((name, children))
        path.append(children)
    return "".join(_render(root, 0))


def _render(nodes: list, depth: int) -> list[str]:  # type: ignore[type-arg]
    """Each node and its subtree; runs of identical subtrees once, marked ×N."""
    blocks = [["  " * depth + name + "\n", *_render(kids, depth + 1)] for name, kids in nodes]
    out: list[str] = []
    index = 0
    while index < len(blocks):
        run = 1
        while index + run < len(blocks) and blocks[index + run] == blocks[index]:
            run += 1
        block = list(blocks[index])
        if run > 1:
            block[0] = block[0].rstrip("\n") + f" ×{run}\n"
        out += block
        index += run
    return out
