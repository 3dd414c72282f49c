"""The pages a person reads, kept honest: every relative link of them resolves (the file, and a
`#anchor` as a heading of it by GitHub's rules), every flag they name for `kobana-dunning` is in
the `--help` of the command they name, the configuration table lists every flag of `serve`, and
the shell blocks of the REST walkthrough run against a fresh server and exit 0."""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients"))

from harness import REPO, Server, server_binary  # noqa: E402

PAGES = sorted(
    [REPO / name for name in ("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "SECURITY.md")]
    + [REPO / "bench" / "README.md"]
    + list((REPO / "docs").glob("*.md"))
)
WALKTHROUGH = REPO / "docs" / "rest-walkthrough.md"
CONFIGURATION = REPO / "docs" / "configuration.md"

# Flags the pages name for other programs, in prose, each with the program it belongs to. A
# flag of ours is never listed here: a bare `--flag` in prose that is neither ours nor here
# fails, so a flag of ours renamed or misspelt cannot hide.
FOREIGN_FLAGS = {
    "--header": "npx mcp-remote, claude mcp add, the Inspector CLI",
    "--allow-http": "mcp-remote",
    "--tool-name": "the Inspector CLI",
    "--transport": "claude mcp add, the Inspector CLI",
    "--scope": "claude mcp add",
    "--cli": "the Inspector CLI",
    "--method": "the Inspector CLI",
    "--release": "cargo",
    "--locked": "cargo",
    "--path": "cargo install",
    "--stats": "mcpgen",
    "--views": "mcpgen",
    "--no-budget": "mcpgen",
    "--deny-warnings": "mcpgen",
    "--dir": "tests/pix_psp/server.py",
    "--port": "tests/pix_psp/server.py",
    "--control-port": "tests/pix_psp/server.py",
    "--builds": "bench scripts",
    "--binary": "bench scripts",
    "--build": "bench scripts",
    "--split": "bench scripts",
    "--case": "bench scripts",
    "--against": "bench scripts",
    "--all": "bench scripts",
    "--keep": "bench scripts",
    "--keep-data": "bench scripts",
    "--cache-sim": "bench scripts",
    "--charges": "bench/exports.py",
    "--postgres": "bench/exports.py",
    "--write": "bench scripts",
    "--engine": "bench/floor.py",
    "--profile": "bench/burst.py",
    "--progress": "bench/burst.py",
    "--no-sqlite": "bench/burst.py",
    "--no-postgres": "bench/burst.py",
    "--replicas": "bench/burst.py",
    "--target": "tests/clients/run_conformance.py",
    "--url": "tests/clients/run_conformance.py",
    "--token": "tests/clients/run_conformance.py",
    "--scenario": "tests/clients/run_conformance.py",
    "--check": "cargo fmt",
    "--workspace": "cargo",
    "--all-targets": "cargo clippy",
}

FENCE = re.compile(r"^(```|~~~)")


# --- reading the pages -------------------------------------------------------------------------


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    out, fenced = [], False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, line))
    return out


def code_blocks(text: str, languages: tuple[str, ...] = ("sh", "bash", "")) -> list[tuple[int, str]]:
    """The fenced blocks in one of `languages`, with the line each starts on."""
    blocks, current, start, language = [], None, 0, ""
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if FENCE.match(stripped):
            if current is None:
                current, start, language = [], number + 1, stripped[3:].strip()
            else:
                if language in languages:
                    blocks.append((start, "\n".join(current)))
                current = None
            continue
        if current is not None:
            current.append(line)
    return blocks


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text lowercased, every character but letters,
    digits, `_`, `-` and spaces dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = text.replace("`", "").strip().lower()
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch in "-_ " or category[0] in "LN" or category == "Mn":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


@functools.cache
def anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(path.read_text()):
        m = re.match(r"^#{1,6} (.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return frozenset(out)


def without_code_spans(line: str) -> str:
    return re.sub(r"`[^`]*`", "", line)


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def links(path: Path) -> list[tuple[int, str]]:
    """Every relative link target of a page (outside code), with its line."""
    out = []
    for number, line in prose_lines(path.read_text()):
        for m in LINK.finditer(without_code_spans(line)):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
                continue
            out.append((number, target))
    return out


# --- the binary's flags ------------------------------------------------------------------------


def help_text(*command: str) -> str:
    out = subprocess.run(
        [str(server_binary()), *command, "--help"], capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, f"kobana-dunning {' '.join(command)} --help: {out.stderr}"
    return out.stdout


def subcommands(text: str) -> list[str]:
    """The names under clap's `Commands:` heading of a help text."""
    names, inside = [], False
    for line in text.split("\n"):
        if line.strip() == "Commands:":
            inside = True
            continue
        if inside:
            m = re.match(r"^  ([a-z][a-z0-9-]*)\s", line)
            if m:
                if m.group(1) != "help":
                    names.append(m.group(1))
            elif line and not line.startswith(" "):
                inside = False
    return names


@functools.cache
def commands() -> dict[tuple[str, ...], frozenset[str]]:
    """Every command of the binary, as its words, with the flags its `--help` lists."""
    if not server_binary().exists():
        pytest.skip(f"no server binary at {server_binary()} (build it or set KOBANA_DUNNING_BIN)")
    found: dict[tuple[str, ...], frozenset[str]] = {}

    def walk(words: tuple[str, ...]) -> None:
        text = help_text(*words)
        found[words] = frozenset(re.findall(r"(?<![\w-])--[a-z0-9][a-z0-9-]*", text))
        for name in subcommands(text):
            walk((*words, name))

    walk(())
    return found


def command_of(words: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """The longest command the leading words name (`()` for `serve` by default), and the rest."""
    known = commands()
    taken: tuple[str, ...] = ()
    rest = list(words)
    while rest and (*taken, rest[0]) in known:
        taken = (*taken, rest.pop(0))
    return taken, rest


def flags_in(words: list[str]) -> list[str]:
    out = []
    for word in words:
        word = word.strip("[]()")
        m = re.match(r"^(--[a-z0-9][a-z0-9-]*)(=.*)?$", word)
        if m:
            out.append(m.group(1))
    return out


def our_invocations(line: str) -> list[list[str]]:
    """The argument lists of `kobana-dunning ...` and `cargo run [...] -- ...` in a shell line
    (without the program), split at `;`, `&&`, `|`, `&`, `$(` and the like."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote in prose: read it word by word instead
        tokens = line.split()
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token and all(ch in ";&|()<>" for ch in token):
            segments.append([])
        else:
            segments[-1].append(token)
    out = []
    for words in segments:
        while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):  # VAR=value before a command
            words = words[1:]
        if words and words[0].startswith("$"):
            words = words[1:]
        if not words:
            continue
        if Path(words[0]).name == "kobana-dunning":
            out.append(words[1:])
        elif words[:2] == ["cargo", "run"] and "-p" not in words and "--package" not in words:
            out.append(words[words.index("--") + 1 :] if "--" in words else [])
    return out


def shell_lines(block: str) -> list[str]:
    """A shell block's logical lines: continuation lines (ending in `\\`) joined."""
    out, current = [], ""
    for line in block.split("\n"):
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
        else:
            out.append(current + line)
            current = ""
    if current:
        out.append(current)
    return out


def named_flags(path: Path) -> list[tuple[int, tuple[str, ...], str]]:
    """Every flag the page names for our binary: (line, command, flag)."""
    text = path.read_text()
    out = []
    for start, block in code_blocks(text):
        for offset, line in enumerate(shell_lines(block)):
            for words in our_invocations(line):
                command, rest = command_of(words)
                out.extend((start + offset, command, flag) for flag in flags_in(rest))
    for number, line in prose_lines(text):
        for span in re.findall(r"`([^`]+)`", line):
            words = span.replace("…", " ").split()
            if not words:
                continue
            if words[0] == "kobana-dunning" or words[:2] == ["cargo", "run"]:
                for invocation in our_invocations(span.replace("…", " ")):
                    command, rest = command_of(invocation)
                    out.extend((number, command, flag) for flag in flags_in(rest))
                continue
            command, rest = command_of(words)
            if command:  # `token create --toolsets`, `pix connect --account-number …`
                out.extend((number, command, flag) for flag in flags_in(rest))
            elif re.match(r"^--[a-z0-9][a-z0-9-]*(=\S*)?$", words[0]):  # a bare `--flag VALUE`
                if words[0].split("=")[0] not in FOREIGN_FLAGS:
                    out.append((number, ("*",), words[0].split("=")[0]))
    return out


# --- the tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_of_the_page_resolves(page):
    broken = []
    for number, target in links(page):
        file_part, _, anchor = target.partition("#")
        destination = (page.parent / file_part).resolve() if file_part else page
        if not destination.exists():
            broken.append(f"{page.name}:{number}: {target}: no such file")
            continue
        if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{page.name}:{number}: {target}: no heading '#{anchor}' in {destination.name}")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_flag_the_page_names_is_in_the_help_of_its_command(page):
    known = commands()
    everything = frozenset().union(*known.values())
    wrong = []
    for number, command, flag in named_flags(page):
        if command == ("*",):
            if flag not in everything:
                wrong.append(f"{page.name}:{number}: {flag} is no flag of kobana-dunning (nor listed in FOREIGN_FLAGS)")
        elif flag not in known[command]:
            name = " ".join(("kobana-dunning", *command))
            wrong.append(f"{page.name}:{number}: {flag} is not in `{name} --help`")
    assert not wrong, "\n".join(wrong)


def test_the_configuration_table_lists_every_flag_of_serve_and_only_those():
    serve = commands()[("serve",)] - {"--help", "--version"}
    table = set()
    for _, line in prose_lines(CONFIGURATION.read_text()):
        m = re.match(r"^\| `(--[a-z0-9-]+)", line)
        if m:
            table.add(m.group(1))
    assert table - serve == set(), f"in the table, not in `serve --help`: {sorted(table - serve)}"
    assert serve - table == set(), f"in `serve --help`, not in the table: {sorted(serve - table)}"


@pytest.fixture(scope="module")
def fresh_server():
    """A server of the walkthrough's own: its blocks cancel a charge and add customers."""
    if not server_binary().exists():
        pytest.skip(f"no server binary at {server_binary()}")
    s = Server().start()
    yield s
    s.stop()
    s.cleanup()


def walkthrough_blocks() -> list[tuple[int, str]]:
    return code_blocks(WALKTHROUGH.read_text(), ("sh",))


@pytest.mark.parametrize("start,block", walkthrough_blocks(), ids=lambda v: f"line-{v}" if isinstance(v, int) else "")
def test_the_walkthrough_block_runs_against_a_fresh_server(fresh_server, start, block):
    # The page starts its own server with `cargo run`; here the harness started one.
    lines = [line for line in block.split("\n") if not line.lstrip().startswith("cargo run")]
    script = "\n".join(lines).replace("localhost:8080", f"127.0.0.1:{fresh_server.port}")
    run = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=fresh_server.dir, capture_output=True, text=True, timeout=180,
    )
    assert run.returncode == 0, (
        f"the block at {WALKTHROUGH.name}:{start} exited {run.returncode}\n"
        f"stdout:\n{run.stdout[-3000:]}\nstderr:\n{run.stderr[-3000:]}"
    )
    if "discharge_letter" in block:
        # What the page says the collection flow prints.
        for expected in ("queued", "('email', 'sent')", "in_agreement", "PDF document"):
            assert expected in run.stdout, f"the collection flow did not print {expected!r}:\n{run.stdout}"
        assert run.stdout.count("paid") >= 3, run.stdout
    if "dunning_charges_cancel" in block:
        assert "canceled" in run.stdout, run.stdout
