"""The front door kept true: the README's pictures are what the current build draws, every name
the README gave before it moved into docs/ is still written somewhere, every command and flag of
`kiosk` is documented, and the README's deploy lines are the ones the booted tests type."""
import re
import subprocess
import sys
from pathlib import Path

from harness import KIOSK

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "E2E" / "tools"))
import pictures  # noqa: E402


def documentation():
    """README, docs/ and the man pages, as one text."""
    parts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "Packaging" / "man").iterdir())]
    return "\n".join(p.read_text() for p in parts)


def test_the_readmes_pictures_are_what_the_build_draws():
    stale = pictures.differences(str(KIOSK))
    assert stale == [], "stale pictures (run `make pictures`): " + "; ".join(f"{n}: {why}" for n, why in stale)
    total = sum((pictures.FOLDER / n).stat().st_size for n, _, _ in pictures.PICTURES)
    # Two of them show photographs (the exhibits), which PNG keeps at ~90 KiB each.
    assert total < 500_000, f"the README's pictures weigh {total} bytes"


def test_nothing_the_readme_named_is_lost():
    text = documentation()
    names = [l for l in (ROOT / "Tests" / "E2E" / "readme-names.txt").read_text().splitlines() if l and not l.startswith("# ")]
    assert len(names) > 250
    missing = [n for n in names if n not in text]
    assert missing == [], f"named by the README before, now nowhere: {missing}"


def test_every_command_and_flag_of_kiosk_is_documented():
    text = documentation()
    top = subprocess.run([str(KIOSK), "--help"], capture_output=True, text=True, check=True).stdout
    commands = re.findall(r"^  (\w[\w-]+)(?: \(default\))? {2,}", top.split("SUBCOMMANDS:")[1], flags=re.M)
    assert {"run", "snapshot", "screenshot", "check-config", "session"} <= set(commands), commands
    missing = []
    for command in commands:
        if command != "run" and f"kiosk {command}" not in text:
            missing.append(f"kiosk {command}")
        usage = subprocess.run([str(KIOSK), command, "--help"], capture_output=True, text=True, check=True).stdout
        for flag in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", usage)) - {"--help", "--version"}):
            if flag not in text:
                missing.append(f"kiosk {command} {flag}")
    assert missing == [], f"not in README, docs/ or the man pages: {missing}"


def test_the_readme_opens_with_what_it_is_pictures_and_the_commands():
    readme = (ROOT / "README.md").read_text()
    first = "\n".join(readme.splitlines()[:60])
    assert first.count('<img src="docs/pictures/') == len(pictures.PICTURES)
    assert "make run" in first and "make test" in first and "## Contents" in first
    version = subprocess.run([str(KIOSK), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    # What Tests/VM/panel.py's operator types.
    assert f"sudo apt install ./out/kiosk_{version}_amd64.deb\nsudo systemctl enable --now kiosk" in first
    for name, _, _ in pictures.PICTURES:
        assert f"docs/pictures/{name}" in first


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_between_the_pages_leads_somewhere():
    broken = []
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for target, anchor in re.findall(r"\]\(([^)#\s]+)(?:#([^)]*))?\)", page.read_text()):
            if "://" in target:
                continue
            path = page.parent / target
            if not path.exists():
                broken.append(f"{page.relative_to(ROOT)} → {target}")
            elif anchor and anchor not in {slug(h) for h in re.findall(r"^#+ (.+)$", path.read_text(), flags=re.M)}:
                broken.append(f"{page.relative_to(ROOT)} → {target}#{anchor}")
    assert broken == []


# A page named in the project's files: README or docs/NAME.md, with a section in quotes after it
# ("(docs/deploying.md, "Confined")") or an anchor.
PAGE_REFERENCE = re.compile(r'\b(README|docs/[\w-]+\.md)(?:, "([^"]+)"|#([\w-]+))?')


def sections(page):
    """What a reference may name on a page: its headings, and the bold words that open an item."""
    text = page.read_text()
    return {*re.findall(r"^#+ (.+)$", text, flags=re.M), *re.findall(r"\*\*([^*]+?)\*\*", text)}


def test_every_reference_to_a_page_finds_it_and_its_section():
    """A "see …" that names a page or a section no longer there (kiosk.toml's and the units'
    "(README, "Confined")" once did) fails here; Markdown links are checked above."""
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    broken = []
    for name in tracked:
        path = ROOT / name
        if name == "Tests/E2E/test_docs.py" or not path.is_file() or path.suffix in (".png", ".svg", ".mo"):
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for m in PAGE_REFERENCE.finditer(text):
            page = ROOT / ("README.md" if m[1] == "README" else m[1])
            line = text.count("\n", 0, m.start()) + 1
            if not page.exists():
                broken.append(f"{name}:{line}: {m[1]} does not exist")
            elif m[2] and m[2].rstrip(":.") not in {s.rstrip(":.") for s in sections(page)}:
                broken.append(f"{name}:{line}: {m[1]} has no section \"{m[2]}\"")
            elif m[3] and m[3] not in {slug(h) for h in re.findall(r"^#+ (.+)$", page.read_text(), flags=re.M)}:
                broken.append(f"{name}:{line}: {m[1]} has no heading #{m[3]}")
    assert broken == []
