"""Documents to read: an HTML page with script, navigation and footer to drop, and one-page PDFs
(a text layer, a drawing only, a title, a password)."""

from __future__ import annotations

from datetime import UTC, datetime

PAGE = """<!DOCTYPE html><html><head><title>Lantern Works</title>
<script>var leaked = "SCRIPT-TEXT";</script><style>.x { color: red }</style></head>
<body><nav><a href="/">Home</a> | <a href="/about">NAV-TEXT</a></nav>
<main><h1>The Varrowmere Lantern Works</h1>
<p>The Varrowmere Lantern Works was founded in 1889 by Ilse Marrin and Tobias Quell.</p>
<p>After the Great Flood of 1898 it moved its production to Brinemouth.</p></main>
<footer>FOOTER-TEXT, all rights reserved</footer></body></html>"""


def make_pdf(text: str | None = "Ilse Marrin was born in Kesterholm.", **options: str) -> bytes:
    """A one-page PDF with ``text`` as its text layer (None: a drawing only, no text)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))
    if options.get("title"):
        pdf.set_title(options["title"])
    pdf.add_page()
    if text is None:
        pdf.rect(20, 20, 80, 60, style="F")  # what a scanned page gives: no text
    else:
        pdf.set_font("Helvetica", size=12)
        pdf.multi_cell(0, 6, text)
    if options.get("password"):
        pdf.set_encryption(owner_password="owner", user_password=options["password"])
    return bytes(pdf.output())
