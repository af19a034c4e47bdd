"""report.html: the report's markdown as one page built for reading, which opens offline.

`render_html` converts report.md with python-markdown and adds:

- a contents list of every h2 and h3 (a sidebar on a wide screen, on top of the page on a
  narrow one or on paper); every heading has an id, its text in lower case with hyphens
  for spaces (``## Glossary`` is ``#glossary``), so ``[pp](#glossary)`` links to it, and
  ``## Words {#glossary}`` names one explicitly (the ``attr_list`` extension);
- every table in a box of its own that scrolls sideways when the table is wider than the
  column, so the page never does; an interval such as ``-0.02 [-0.26, +0.23]`` is not
  broken across lines;
- the charts, ``figures/*.png`` or any other image the markdown names by a path relative
  to the report's folder, embedded as data URLs and sized to the column;
- every text as text: raw HTML in the markdown (a question such as
  ``<script>alert(1)</script> & "x"``, a name, a label, a cell) is escaped, never passed
  through, and a link or image whose address runs a script (``javascript:``) loses it;
- the verdicts as a box. The markdown the report must emit for it is a list (not nested in
  another) whose every item opens with a verdict in bold, each one of `VERDICTS`::

      - **Yes**: playing aces high changes who wins ...
      - **Can't tell**: ...

  In the page such a list becomes ``<div class="verdicts"><ul>...`` and each verdict
  word a badge in its colour (`VERDICT_COLORS`, the forest plot's too). A verdict in bold
  that opens any other paragraph or list item gets the same badge, but no box; a verdict
  word in bold elsewhere in a sentence stays plain bold.

The style sheet uses the reader's own system fonts and has print rules. `screenshot`
photographs a page as a reader sees it, with Debian's headless chromium.
"""

from __future__ import annotations

import base64
import html
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as etree

import markdown
from markdown.treeprocessors import Treeprocessor

from rummysim.errors import RummysimError

VERDICT_COLORS: dict[str, str] = {
    "Yes": "#1a7f37",  # green
    "Yes, of unclear size": "#2f6f3e",  # dark green: a change, its size not pinned down
    "Yes, but small": "#0e7c7b",  # teal
    "No": "#52667f",  # grey-blue
    "Can't tell": "#9a6700",  # amber
}
"""Each verdict's colour: at least 4.5:1 against white, as text on white and as a badge under white text."""

VERDICTS = tuple(VERDICT_COLORS)
_SLUGS = {
    "Yes": "yes",
    "Yes, of unclear size": "unclear",
    "Yes, but small": "small",
    "No": "no",
    "Can't tell": "cant-tell",
}

STYLE = (
    """
:root { --ink: #1f2328; --muted: #59636e; --rule: #d1d9e0; --shade: #f6f8fa; --link: #0b5cad; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--ink); background: #fff; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto,
  "Helvetica Neue", Arial, "Noto Sans", sans-serif; }
.page { display: grid; grid-template-columns: 15rem minmax(0, 1fr); gap: 2.5rem; max-width: 82rem; margin: 0 auto;
  padding: 0 1.5rem; }
nav.contents { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow-y: auto;
  padding: 1.5rem 0 2rem; font-size: 0.85rem; line-height: 1.35; }
nav.contents h2 { font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted);
  margin: 0.4rem 0 0.6rem; border: 0; padding: 0; }
nav.contents ol { list-style: none; margin: 0; padding: 0; }
nav.contents ol ol { padding-left: 0.9rem; margin: 0.15rem 0 0.5rem; font-size: 0.8rem; }
nav.contents li { margin: 0.2rem 0; }
nav.contents a { color: var(--ink); text-decoration: none; display: -webkit-box; -webkit-box-orient: vertical;
  -webkit-line-clamp: 2; line-clamp: 2; overflow: hidden; overflow-wrap: anywhere; }
nav.contents ol ol a { color: var(--muted); }
nav.contents a:hover { color: var(--link); text-decoration: underline; }
main { min-width: 0; padding: 1.5rem 0 4rem; }
main > p, main > ul, main > ol, main > blockquote, main > h1, main > h2, main > h3, main > h4 { max-width: 48rem; }
h1 { font-size: 2rem; line-height: 1.2; margin: 0.5rem 0 1.25rem; }
h2 { font-size: 1.5rem; line-height: 1.25; margin: 2.5rem 0 0.75rem; padding-bottom: 0.3rem;
  border-bottom: 1px solid var(--rule); }
h3 { font-size: 1.15rem; line-height: 1.3; margin: 1.75rem 0 0.5rem; }
h2, h3, h4 { scroll-margin-top: 1rem; }
.headerlink { margin-left: 0.4rem; color: var(--muted); text-decoration: none; opacity: 0; font-weight: normal; }
h1:hover .headerlink, h2:hover .headerlink, h3:hover .headerlink, .headerlink:focus { opacity: 1; }
p, li { overflow-wrap: break-word; }
li + li { margin-top: 0.35rem; }
a { color: var(--link); }
code { font: 0.88em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  background: var(--shade); padding: 0.1em 0.3em; border-radius: 4px; }
.table-wrap { width: fit-content; max-width: 100%; overflow-x: auto; margin: 0.75rem 0 1.5rem;
  border: 1px solid var(--rule); border-radius: 6px; }
.table-wrap {  /* a shadow at an edge while there is more of the table beyond it (the white covers scroll along) */
  background: linear-gradient(to left, #fff 40%, #fff0) right / 2.5rem 100% no-repeat local,
    radial-gradient(farthest-side at 100% 50%, #0000002e, #0000) right / 0.9rem 100% no-repeat scroll; }
.table-wrap:focus { outline: 2px solid var(--link); outline-offset: 2px; }
table { border-collapse: collapse; font-size: 0.85rem; line-height: 1.35; font-variant-numeric: tabular-nums; }
th, td { padding: 0.35rem 0.65rem; border-bottom: 1px solid var(--rule); text-align: right; vertical-align: top; }
th { background: var(--shade); font-weight: 600; vertical-align: bottom; }
tbody tr:last-child td { border-bottom: 0; }
tbody tr:hover td { background: #f0f6fc; }
th:first-child, td:first-child { text-align: left; position: sticky; left: 0; background: #fff;
  box-shadow: inset -1px 0 0 var(--rule); }
th:first-child { background: var(--shade); }
td { white-space: nowrap; }
td.words { white-space: normal; min-width: 16rem; text-align: left; }
table.answer td { white-space: normal; padding-top: 0.22rem; padding-bottom: 0.22rem; }  /* wraps to the column */
table.answer td.words { min-width: 0; }
table.answer td:nth-child(5) { white-space: nowrap; }
.nobr { white-space: nowrap; }
figure { margin: 0.5rem 0 1.5rem; }
img { display: block; max-width: 100%; height: auto; }
.verdicts { max-width: 48rem; margin: 1rem 0 1.75rem; padding: 0.9rem 1.25rem; background: #f6f8fa;
  border: 1px solid var(--rule); border-left: 6px solid #0b5cad; border-radius: 8px; font-size: 1.05rem; }
.verdicts > ul, .verdicts > ol { list-style: none; margin: 0; padding: 0; }
.verdicts li + li, .verdicts p + p { margin-top: 0.7rem; }
.verdicts p { margin: 0; }
.verdict { display: inline-block; padding: 0.05em 0.5em; border-radius: 0.3em; color: #fff;
  line-height: 1.4; white-space: nowrap; }
"""
    + "".join(f".verdict-{slug} {{ background: {VERDICT_COLORS[word]}; }}\n" for word, slug in _SLUGS.items())
    + """
@media (max-width: 60rem) {
  .page { display: flex; flex-direction: column; padding: 0 1rem; }  /* the answer first, the contents after it */
  nav.contents { order: 2; position: static; max-height: none; padding: 1rem 0 0; border-top: 1px solid var(--rule); }
}
@media (max-width: 40rem) {  /* the answer's table as one short line a row: measure: before → after, change, verdict */
  .table-wrap:has(table.answer) { width: auto; border: 0; overflow: visible; }
  table.answer thead { display: none; }
  table.answer, table.answer tbody, table.answer tr { display: block; }
  table.answer tr { padding: 0.1rem 0; border-bottom: 1px solid var(--rule); line-height: 1.3; }
  table.answer td { display: inline; padding: 0 0.25rem 0 0; border: 0; white-space: normal; text-align: left;
    position: static; box-shadow: none; background: none; }
  table.answer td:first-child:empty { display: none; }
  table.answer td:first-child { display: block; font-weight: 600; padding-top: 0.15rem; }
  table.answer td:nth-child(2)::after { content: ":"; }
  table.answer td:nth-child(3)::after { content: " \\2192"; }
  table.answer td:nth-child(5)::after { content: ","; }
  table.answer td:nth-child(7)::before { content: "(strong players: "; }
  table.answer td:nth-child(7)::after { content: ")"; }
}
@media print {
  @page { margin: 1.6cm 1.4cm; }
  body { font-size: 10.5pt; }
  .page { display: block; max-width: none; padding: 0; }
  nav.contents { position: static; max-height: none; overflow: visible; padding: 0 0 1rem; font-size: 9pt;
    break-after: page; }
  nav.contents a { display: inline; -webkit-line-clamp: none; }
  main > * { max-width: none; }
  a { color: inherit; text-decoration: none; }
  .headerlink { display: none; }
  h2, h3 { break-after: avoid; }
  .table-wrap { overflow: visible; border: 0; background: none; }
  table { font-size: 7.5pt; width: 100%; }
  th, td { padding: 0.15rem 0.3rem; white-space: normal; overflow-wrap: anywhere; }  /* paper does not scroll */
  th:first-child, td:first-child { position: static; box-shadow: none; }
  .nobr { white-space: normal; }
  td.words { min-width: 0; }
  img, tr, .verdicts { break-inside: avoid; }
  .verdicts, .verdict, th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
"""
)
"""The page's style sheet: system fonts only, so nothing is fetched."""

_MIME = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def verdict_of(element: etree.Element) -> str | None:
    """Return the verdict a paragraph or list item opens with, in bold (``**Can't tell**: ...``), if any."""
    first = element[0] if len(element) else None
    if element.tag == "li" and first is not None and first.tag == "p" and not (element.text or "").strip():
        return verdict_of(first)  # a loose list: the item's text sits in a paragraph
    if first is None or first.tag != "strong" or (element.text or "").strip() or len(first):
        return None
    word = (first.text or "").strip().replace("’", "'")
    return word if word in VERDICT_COLORS else None


class _Reading(Treeprocessor):
    """Box the verdicts, badge each verdict word, wrap the tables, embed the images (see the module doc)."""

    def __init__(self, md: markdown.Markdown, folder: Path) -> None:
        super().__init__(md)
        self.folder = folder

    def run(self, root: etree.Element) -> None:
        for element in root.iter():
            for name in ("href", "src"):
                if re.match(r"^\s*(javascript|vbscript|data:text/html)", element.get(name, ""), flags=re.IGNORECASE):
                    del element.attrib[name]  # an address that runs a script: the text stays, the link goes
        self._box(root)
        tables = [(parent, i) for parent in root.iter() for i, child in enumerate(parent) if child.tag == "table"]
        for parent, i in tables:  # found first: a wrapped table must not be met again
            table, wrap = parent[i], etree.Element("div", {"class": "table-wrap", "tabindex": "0"})
            head = next(table.iter("th"), None)
            if head is not None and (head.text or "").strip() == "lineup":  # the answer's table (report.short)
                table.set("class", "answer")
            wrap.tail, table.tail = table.tail, "\n"
            parent[i] = wrap
            wrap.append(table)
        for element in root.iter():
            if element.tag in ("p", "li") and (word := verdict_of(element)) and element[0].tag == "strong":
                element[0].set("class", f"verdict verdict-{_SLUGS[word]}")  # a loose list's is its paragraph's
            elif element.tag == "td" and not len(element) and element.text:
                if len(element.text) > 24 and element.text.count(" ") >= 3:
                    element.set("class", "words")  # a cell of words wraps, in a column wide enough to read
                self._keep_intervals(element)
            elif element.tag == "img":
                self._embed(element)
            elif element.tag == "p" and len(element) == 1 and element[0].tag == "img" and not _words(element):
                element.tag = "figure"  # a chart alone in its paragraph: the column's full width, not the prose's

    @staticmethod
    def _box(root: etree.Element) -> None:
        """Wrap each top-level list whose every item opens with a verdict in a box."""
        for child in list(root):
            if child.tag in ("ul", "ol") and len(child) and all(verdict_of(item) for item in child):
                box = etree.Element("div", {"class": "verdicts"})
                box.text, box.tail, child.tail = "\n", child.tail, "\n"
                root.insert(list(root).index(child), box)
                root.remove(child)
                box.append(child)

    @staticmethod
    def _keep_intervals(cell: etree.Element) -> None:
        """Keep an interval on one line: ``-0.02 [-0.26, +0.23]`` in a cell breaks nowhere on screen."""
        parts = re.split(r"(\S+ \[[^\]]*\]|\[[^\]]*\])", cell.text or "")
        if len(parts) == 1:
            return
        cell.text = parts[0]
        for interval, after in zip(parts[1::2], parts[2::2], strict=True):
            span = etree.SubElement(cell, "span", {"class": "nobr"})
            span.text, span.tail = interval, after

    def _embed(self, image: etree.Element) -> None:
        src = image.get("src", "")
        path = self.folder / src
        if re.match(r"^(data:|[a-z][a-z0-9+.-]*:|/|#)", src, flags=re.IGNORECASE) or path.suffix.lower() not in _MIME:
            return
        data = base64.b64encode(path.read_bytes()).decode()
        image.set("src", f"data:{_MIME[path.suffix.lower()]};base64,{data}")


def _words(element: etree.Element) -> str:
    return ((element.text or "") + "".join(child.tail or "" for child in element)).strip()


def _contents(tokens: Sequence[dict[str, Any]]) -> str:
    """Return the contents list: each h2, with its h3s beneath it (`markdown`'s toc tokens, names already escaped)."""

    def items(level: Sequence[dict[str, Any]]) -> str:
        out = []
        for token in level:
            inner = f"<ol>{items(token['children'])}</ol>" if token["children"] else ""
            name, to = token["name"], html.escape(token["id"])
            title = name.replace('"', "&quot;")  # a name is escaped text already; in an attribute, its quotes too
            out.append(f'<li><a href="#{to}" title="{title}">{name}</a>{inner}</li>')
        return "".join(out)

    return f'<nav class="contents" aria-label="Contents">\n<h2>Contents</h2>\n<ol>{items(tokens)}</ol>\n</nav>'


def render_html(text: str, *, title: str, folder: Path) -> str:
    """Return the report's markdown as one HTML page, contents and styled verdicts included, images embedded."""
    md = markdown.Markdown(
        extensions=["tables", "toc", "attr_list", "sane_lists"],
        extension_configs={"toc": {"toc_depth": "2-3", "permalink": "#", "permalink_title": "Link to this section"}},
    )
    md.preprocessors.deregister("html_block")  # raw HTML in the text is text: escaped, never passed through
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_Reading(md, Path(folder)), "reading", 4)  # after the inline markup and toc's ids
    body = md.convert(text)
    contents = _contents(md.toc_tokens)  # type: ignore[attr-defined]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
        f'<body><div class="page">\n{contents}\n<main>\n{body}\n</main>\n</div></body></html>\n'
    )


def chromium(*args: str) -> str:
    """Run Debian's chromium headless with `args` (and a throw-away profile); return what it printed on stdout."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise RummysimError("chromium is not installed: install Debian's chromium (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="rummysim-chromium-") as profile:
        command = [found, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                   "--force-device-scale-factor=1", f"--user-data-dir={profile}", *args]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RummysimError(f"chromium failed (exit {done.returncode}) on {args[-1] if args else 'nothing'}: {last}")
    return done.stdout


def screenshot(html: Path, png: Path, *, width: int = 1280, height: int = 2400) -> Path:
    """Save the top `width` x `height` pixels of the page `html` to `png`, as a reader's screen shows it; return it."""
    png = Path(png).resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    chromium(f"--window-size={width},{height}", f"--screenshot={png}", Path(html).resolve().as_uri())
    if not png.exists():
        raise RummysimError(f"{html}: chromium ran but wrote no screenshot to {png}")
    return png
