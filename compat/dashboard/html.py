"""HTML helpers of the dashboard: escaping, names of pages, the page frame, tables."""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from pathlib import Path


def e(value) -> str:
    """Escaped text for HTML (text and attribute values alike)."""
    return html.escape("" if value is None else str(value), quote=True)


def t(value) -> str:
    """Escaped text for element content only (quotes may stay: smaller pages of code)."""
    return html.escape("" if value is None else str(value), quote=False)


def slug(*parts) -> str:
    return hashlib.sha1("\x1f".join("" if p is None else str(p) for p in parts).encode()).hexdigest()[:16]


def readable(text: str, limit: int = 32) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "-", text).strip("-")[:limit] or "x"


@dataclass
class Written:
    pages: int = 0
    bytes: int = 0


NAV = (
    ("index.html", "Matrix"),
    ("causes.html", "Causes"),
    ("coverage.html", "Coverage"),
    ("special-cases.html", "Special cases"),
    ("interchange.html", "Interchange"),
    ("wrappers.html", "Wrappers"),
    ("versions.html", "Versions"),
    ("promotion.html", "Promotion"),
    ("surveys.html", "Surveys"),
    ("accuracy.html", "Accuracy"),
    ("devices.html", "Devices"),
    ("modes.html", "Execution modes"),
    ("history.html", "History"),
)

COPY_SCRIPT = (  # copy.js, beside the pages: copyRepro(button[, id of the pre]), as a page may hold several
    "function copyRepro(b,i){var t=document.getElementById(i||'repro').textContent,"
    "d=function(){b.textContent='Copied'};if(navigator.clipboard)navigator.clipboard.writeText(t).then(d);"
    "else{var a=document.createElement('textarea');a.value=t;document.body.appendChild(a);a.select();"
    "document.execCommand('copy');a.remove();d()}}\n"
)


class Site:
    def __init__(self, out: Path):
        self.out = out
        self.written = Written()

    def page(self, path: str, title: str, body: str, here: str = "", copies: bool = False) -> None:
        """Write a page; ``copies``: it has reproducers to copy (copy.js)."""
        depth = path.count("/")
        up = "../" * depth
        script = f'<script src="{up}copy.js"></script>' if copies else ""
        nav = "".join(
            f'<a href="{up}{href}"{" class=here" if href == here else ""}>{label}</a>' for href, label in NAV
        )
        text = (
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{e(title)} · compat</title><link rel="stylesheet" href="{up}style.css">{script}</head>\n'
            f"<body><nav>{nav}</nav><main>\n{body}\n</main></body></html>\n"
        )
        data = text.encode("utf-8")
        target = self.out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.written.pages += 1
        self.written.bytes += len(data)


def table(headers: list[str], rows: list[list[str]], cls: str = "") -> str:
    """Headers and cells are HTML already."""
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "\n".join(
        "<tr>"
        + "".join(c if c.startswith("<td") or c.startswith("<th") else f"<td>{c}</td>" for c in row)
        + "</tr>"
        for row in rows
    )
    return f"<table{f' class={cls}' if cls else ''}><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>"


def facts_table(facts: list[tuple[str, str]]) -> str:
    """A two-column table of name and value (HTML)."""
    return (
        "<table><tbody>\n"
        + "\n".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in facts)
        + "\n</tbody></table>"
    )


def when(started: str) -> str:
    return started.replace("T", " ").replace("+00:00", " UTC")[:23]


LEGEND = (
    "<p class=legend><span class=new>red: new</span><span class=known>amber: known only</span>"
    "<span class=clean>green: checked, no divergence</span><span class=notrun>grey: not run</span></p>"
)


def capped_note(shown: int, total: int, what: str) -> str:
    if total <= shown:
        return ""
    return (
        f"<p class=cap>Showing the first {shown} of {total} {what} (new ones first): the dashboard caps its lists "
        f"to stay small. <code>python -m compat report --all</code> lists every one.</p>"
    )
