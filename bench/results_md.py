"""Writing one script's block of bench/RESULTS.md: the text between its two markers is replaced
(the rest of the file stays), or the block is added at the end under `heading` the first time."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_block(name: str, heading: str, text: str) -> None:
    """Put `text` between `<!-- name:start -->` and `<!-- name:end -->` in RESULTS.md."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    body = RESULTS.read_text()
    block = f"{start}\n{text}\n{end}"
    if start in body:
        body = body[: body.index(start)] + block + body[body.index(end) + len(end):]
    else:
        body += f"\n## {heading}\n\n{block}\n"
    RESULTS.write_text(body)
