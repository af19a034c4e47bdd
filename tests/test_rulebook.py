"""docs/rulebook.md defines every rule that the code, the docs and the reports cite, and the docs link to it."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from rummysim.cli import main
from rummysim.rules import CHOICES, DEFAULTS, HOUSE_RULES

ROOT = Path(__file__).parent.parent
RULEBOOK = ROOT / "docs" / "rulebook.md"

# Every rule of the rulebook, in order: the numbering of the spec (RULES.md, R1.1 to R12.3), which every citation
# relies on. Written out so that the test needs nothing outside the repository; a rule added to the spec is added here.
EXPECTED_RULES = (
    "R1.1", "R1.2", "R1.3",
    "R2.1",
    "R3.1", "R3.2", "R3.3", "R3.4",
    "R4.1", "R4.2", "R4.3", "R4.4", "R4.5", "R4.6", "R4.7", "R4.8",
    "R5.1", "R5.2", "R5.3", "R5.4",
    "R6.1", "R6.2", "R6.3",
    "R7.1", "R7.2",
    "R8.1", "R8.2", "R8.3",
    "R9.1", "R9.2",
    "R10.1", "R10.2",
    "R11.1", "R11.2",
    "R12.1", "R12.2", "R12.3",
)  # fmt: skip

# A citation: R4 or R4.5, not inside a longer word or number (no "PR12", "R2D2", "R4x").
CITATION = re.compile(r"(?<!\w)R\d+(?:\.\d+)?(?!\w)")
SECTION_HEADING = re.compile(r"^## (R\d+) \S")
RULE_ITEM = re.compile(r"^- \*\*(R\d+\.\d+)\*\* \S")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def cited_files() -> list[Path]:
    """Every file whose text may cite a rule: the package, the docs, the README, the experiment files and reports."""
    files = [
        *sorted((ROOT / "rummysim").rglob("*.py")),
        *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "README.md",
        *sorted((ROOT / "experiments").glob("*.yaml")),
        *sorted((ROOT / "results").glob("**/*.md")),
    ]
    assert len(files) > 50, files  # the globs found the package, not an empty folder
    return files


def rulebook_definitions() -> tuple[list[str], list[str]]:
    """Return the sections (R4) and the rules (R4.5) the rulebook defines, in order; each rule sits in its section."""
    sections: list[str] = []
    rules: list[str] = []
    for line in RULEBOOK.read_text().splitlines():
        if heading := SECTION_HEADING.match(line):
            sections.append(heading[1])
        elif item := RULE_ITEM.match(line):
            rule = item[1]
            section = rule.split(".")[0]
            assert sections and sections[-1] == section, f"{rule} is not under the heading ## {section}"
            rules.append(rule)
    return sections, rules


def citations(path: Path) -> list[tuple[int, str]]:
    return [
        (number, match)
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1)
        for match in CITATION.findall(line)
    ]


def test_the_citation_pattern_finds_rule_numbers_and_only_them():
    text = "(R4.5), R4.2-R4.7, R5-R7, see R9. R11.2's tie; not PR12, R2D2, xR3, R4x or AR1"
    assert CITATION.findall(text) == ["R4.5", "R4.2", "R4.7", "R5", "R7", "R9", "R11.2"]


def test_the_rulebook_defines_exactly_the_rules_of_the_spec_in_order():
    sections, rules = rulebook_definitions()
    assert rules == list(EXPECTED_RULES)
    assert sections == [f"R{n}" for n in range(1, 13)]


def test_every_rule_cited_in_the_code_docs_and_reports_is_in_the_rulebook():
    sections, rules = rulebook_definitions()
    defined = set(sections) | set(rules)
    undefined = [
        f"{path.relative_to(ROOT)}:{line}: {rule}"
        for path in cited_files()
        for line, rule in citations(path)
        if rule not in defined
    ]
    assert not undefined, "cited but not in docs/rulebook.md:\n" + "\n".join(undefined)


def test_the_package_cites_rules_the_scan_finds():
    """A guard on the test above: the files it scans hold hundreds of real citations."""
    cited = [rule for path in cited_files() if path.suffix == ".py" for _, rule in citations(path)]
    assert len(cited) > 200
    assert {"R1.1", "R4.5", "R8.3", "R10.2", "R11"} <= set(cited)


def test_each_house_rule_names_its_setting_and_its_default_and_none_is_reserved():
    """R12 is played: each rule says the setting that turns it on and the default that plays the article's rule."""
    text = RULEBOOK.read_text()
    r12 = " ".join(text[text.index("## R12 ") : text.index("## Variants")].split())
    assert "reserved" not in r12.lower() and "not yet played" not in r12
    for name, rule in HOUSE_RULES.items():
        enum, _ = CHOICES[name]
        (on,) = [value for value in enum if value != DEFAULTS[name]]
        item = r12[r12.index(f"**{rule}**") :].split("- **")[0]
        assert f"(`{name}: {on.value}`;" in item and f"default `{DEFAULTS[name].value}`" in item, item
    assert "not yet played" not in (ROOT / "docs" / "rules.md").read_text()


def github_anchors(path: Path) -> set[str]:
    """The fragments GitHub makes from a markdown file's headings: lower case, punctuation dropped, - for space."""
    anchors: set[str] = set()
    for line in path.read_text().splitlines():
        if heading := re.match(r"^#{1,6} (.+)$", line):
            slug = re.sub(r"[^\w\- ]", "", heading[1].strip().lower()).replace(" ", "-")
            anchor, n = slug, 0
            while anchor in anchors:
                n += 1
                anchor = f"{slug}-{n}"
            anchors.add(anchor)
    return anchors


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def relative_links(path: Path) -> list[tuple[str, Path, str]]:
    """Every link of a markdown file to a file of the repository: the link, the path it resolves to, its fragment."""
    found = []
    for target in LINK.findall(path.read_text()):
        file, _, fragment = target.partition("#")
        if not re.match(r"[a-z]+:", file):  # not https: or mailto:
            found.append((target, (path.parent / file).resolve() if file else path.resolve(), fragment))
    return found


def test_every_relative_link_of_the_readme_and_docs_reaches_a_file_that_exists():
    for page in pages():
        for target, file, _ in relative_links(page):
            assert file.exists(), f"{page.relative_to(ROOT)} links to {target}, which does not exist"


def test_the_pages_that_mention_the_rulebook_link_to_it_and_its_fragments_are_headings():
    mentioning = [page for page in pages() if page != RULEBOOK and "rulebook" in page.read_text().lower()]
    assert {page.name for page in mentioning} >= {"README.md", "rules.md"}
    rulebook = RULEBOOK.resolve()
    for page in mentioning:
        assert any(file == rulebook for _, file, _ in relative_links(page)), (
            f"{page.relative_to(ROOT)} mentions the rulebook without linking to docs/rulebook.md"
        )
    anchors = github_anchors(RULEBOOK)
    assert {"r4-turn", "r12-house-rules", "variants"} <= anchors
    for page in pages():
        for target, file, fragment in relative_links(page):
            if file == rulebook and fragment:
                assert fragment in anchors, f"{page.relative_to(ROOT)} links to {target}: no heading makes it"


def test_no_page_sends_the_reader_to_the_shared_folder_for_the_rules():
    for page in pages():
        assert "RULES.md" not in page.read_text(), f"{page.relative_to(ROOT)} cites RULES.md, not docs/rulebook.md"


def test_rummysim_help_says_where_the_rules_are():
    output = " ".join(CliRunner().invoke(main, ["--help"]).output.split())
    assert "docs/rulebook.md" in output
    assert "R1-R12" in output
    assert (ROOT / "docs" / "rulebook.md").is_file()
