"""The course website (`make site`): built once per session from the committed notebooks, checked by the link
checker, then read in Debian's Chromium (Playwright) from a server on 127.0.0.1: every notebook page loads with
no console error, shows its title and its figures, links previous/next in course order, keeps its solutions
folded; every internal link resolves; the search finds a notebook by a word of its prose; every page passes axe-core's
WCAG 2.0/2.1 A and AA rules in light and dark mode, and every figure keeps its text alternative as its <img> alt.
For every reader: no page scrolls sideways or cuts text off at 320 CSS px, the course map and the page contents
open there by mouse, Enter and Space, every focus stop shows an unclipped ring and has a name, each solution toggle
is named for its exercise, and search results are announced. Saves a screenshot to out/site-test/.

The browser test is skipped, with the reason, when /usr/bin/chromium is missing (`apt-get install chromium`).
"""

from __future__ import annotations

import collections
import html
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from browser_support import CHROMIUM, CHROMIUM_FLAGS, needs_chromium

from tutorial_lib.classroom import site
from tutorial_lib.classroom.course import read, source, tags
from tutorial_lib.migration import api_map

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "out" / "site-test"
# sphinx-book-theme 1.4 reads a Sphinx attribute that Sphinx 11 will remove: its warning, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:'sphinx_book_theme.*is deprecated")


def test_the_site_builds_with_no_problem_and_a_page_per_notebook(built):
    out, problems = built
    assert problems == []
    for path in site.notebooks():
        assert (out / f"{path.stem}.html").is_file(), f"no page for {path.name}"
    for page in ("index", "readme", "instructors", site.MIGRATION_PAGE, "search"):
        assert (out / f"{page}.html").is_file()
    assert not (out / "_sources").exists(), "no source copies"
    copies = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.ipynb"))
    assert copies == sorted(f"{site.DOWNLOADS}/{p.name}" for p in site.notebooks()), "only the download copies"
    for path in site.notebooks():
        assert (out / site.DOWNLOADS / path.name).read_bytes() == path.read_bytes()
    home = (out / "index.html").read_text()
    for stem in (p.stem for p in site.notebooks()):
        assert f'href="{stem}.html"' in home, f"the course map on the home page does not link {stem}"
    assert re.search(r"about \d+ min", home), "the home page gives each notebook's time"


def test_migration_map_links_land_on_their_sections(built):
    out, _ = built
    page = site.parse((out / f"{site.MIGRATION_PAGE}.html").read_text())
    for row in api_map.MAP:
        if row.where.startswith("tests/"):
            continue
        stem, heading = row.where.split("#", 1)
        href = f"{stem}.html#{api_map.anchor(heading)}"
        assert href in page.links, f"the migration page has no link {href}"
        assert api_map.anchor(heading) in site.parse((out / f"{stem}.html").read_text()).ids


def test_solutions_are_folded_and_widgets_are_static(built):
    out, _ = built
    for path in site.notebooks():
        solutions = sum("solution" in tags(c) for c in read(path).cells)
        page = (out / f"{path.stem}.html").read_text()
        folded = re.findall(r'class="cell tag_solution[^"]*">\s*<details class="[^"]*hide above-input', page)
        assert len(folded) == solutions, f"{path.name}: {len(folded)} of {solutions} solutions folded"
        assert "application/vnd.jupyter.widget" not in page and "require.js" not in page
        text = re.sub(r"<[^>]+>", "", page)
        assert f"notebooks/{path.name}" in text and "make lab" in text and "make test" in text, "the run note"


def test_the_checker_finds_broken_links_notebook_links_paths_and_tokens(tmp_path):
    (tmp_path / "a.html").write_text(
        '<p id="here">x</p><a href="b.html">gone</a><a href="a.html#nowhere">no anchor</a>'
        '<a href="a.html#here">fine</a><a href="99_nothing.ipynb">notebook</a>'
        '<img src="_images/missing.png"><p>/home/someone/data and ?token=0123456789abcdef0123</p>')
    problems = "\n".join(site.check(tmp_path))
    for expected in ("broken link 'b.html'", "no id 'nowhere'", "'99_nothing.ipynb' (no such notebook",
                     "broken link '_images/missing.png'", "a machine path '/home/", "a token 'token=0123",
                     "migration map:"):
        assert expected in problems
    assert "a.html#here" not in problems


def test_every_notebook_page_has_its_launch_links_and_the_checker_catches_a_wrong_or_missing_one(built, tmp_path):
    from tutorial_lib.classroom.course import REPOSITORY_URL, launch_links

    out, _ = built
    for path in site.notebooks():
        page = site.parse((out / f"{path.stem}.html").read_text())
        links = site.page_links(path.stem)
        assert set(links) == {"Open in Colab", "Open in Kaggle", "Download notebook"}
        assert all(url in page.links for url in links.values()), path.name
        github = REPOSITORY_URL.removeprefix("https://github.com/")
        assert links["Open in Colab"] == (f"https://colab.research.google.com/github/{github}/blob/main/notebooks/"
                                          f"{path.name}")
        assert links["Open in Kaggle"] == f"https://kaggle.com/kernels/welcome?src={REPOSITORY_URL}/blob/main/" \
                                          f"notebooks/{path.name}"
        assert launch_links(path.stem)["Download notebook"] == f"{REPOSITORY_URL}/raw/main/notebooks/{path.name}"
    first = site.notebooks()[0]
    colab = site.page_links(first.stem)["Open in Colab"]
    (tmp_path / f"{first.stem}.html").write_text(
        f'<a href="{colab.replace("main", "master")}">Open in Colab</a>'
        f'<a href="{site.DOWNLOADS}/{first.name}" download>Download notebook</a>')
    problems = "\n".join(site.check(tmp_path))
    assert f"no Open in Colab link {colab!r}" in problems and "no Open in Kaggle link" in problems
    assert "a launch link not built from course.REPOSITORY_URL" in problems
    assert f"download link '{site.DOWNLOADS}/{first.name}': no such notebook on the site" in problems


def test_links_are_rewritten_to_pages():
    stems = {p.stem for p in site.notebooks()}
    first = next(iter(stems))
    text = (f"[a]({first}.ipynb#Some-Heading) [b](99_missing.ipynb) [c](../README.md) [d](INSTRUCTORS.md#x) "
            "[e](https://example.org/a.ipynb) [f](../tests/test_site.py) ![g](picture.png)")
    assert site.rewrite_links(text, site.NOTEBOOK_DIR, stems) == (
        f"[a]({first}.html#Some-Heading) b [c](readme.html) [d](instructors.html#x) "
        "[e](https://example.org/a.ipynb) f ![g](picture.png)")


# --- in a real browser -----------------------------------------------------------------------------------------


def _title(path: Path) -> str:
    """The notebook's own title: its first '# ' heading, as the page renders it."""
    for cell in read(path).cells:
        match = re.search(r"^# (.+)$", source(cell), re.M) if cell.cell_type == "markdown" else None
        if match:
            return match.group(1).replace("`", "").strip()
    raise AssertionError(f"{path.name} has no title")


def _figures(path: Path) -> int:
    """How many figures the notebook stores (PNG outputs, bare or inside a described figure's <img>)."""
    from tutorial_lib.plots import figure_alt

    return sum("image/png" in o.get("data", {}) or bool(figure_alt(o.get("data", {})))
               for c in read(path).cells for o in c.get("outputs", []))


def _prose_words(path: Path) -> collections.Counter:
    """The long words of a notebook's prose (not code, not links), counted."""
    words: collections.Counter = collections.Counter()
    for cell in read(path).cells:
        if cell.cell_type == "markdown" and "navigation" not in tags(cell):
            prose = re.sub(r"`[^`]*`|\([^)]*\)|<[^>]*>", " ", source(cell))
            words.update(w.lower() for w in re.findall(r"\b[A-Za-z]{8,}\b", prose))
    return words


def _word_only_in(path: Path, paths: list[Path]) -> str:
    """The word of this notebook's prose that it uses most and no other notebook's prose has."""
    others = set().union(*(_prose_words(p) for p in paths if p != path))
    return next(w for w, _ in _prose_words(path).most_common() if w not in others)


@needs_chromium
def test_every_page_in_chromium(built, served):
    from playwright.sync_api import sync_playwright

    out, _ = built
    paths = site.notebooks()
    stems = [p.stem for p in paths]
    links: set[str] = set()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
            page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
            page.on("request", lambda r: None if r.url.startswith(served) else errors.append(f"off-site: {r.url}"))
            for k, path in enumerate(paths):
                page.goto(f"{served}/{path.stem}.html", wait_until="load")
                assert page.locator("h1").first.inner_text().rstrip("#").strip() == _title(path)
                images = page.eval_on_selector_all(
                    "article img", "els => els.map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0, "
                    "i.getBoundingClientRect().width])")
                pngs = _figures(path)
                assert len(images) == pngs, f"{path.name}: {len(images)} images shown, {pngs} figures stored"
                assert all(loaded and width > 0 for _, loaded, width in images), f"{path.name}: {images}"
                prev = page.get_attribute("a.left-prev", "href")
                after = page.locator("a.right-next")
                assert prev == (f"{stems[k - 1]}.html" if k else "index.html"), f"{path.name}: previous {prev}"
                if k + 1 < len(stems):
                    assert after.get_attribute("href") == f"{stems[k + 1]}.html", f"{path.name}: next"
                folded = page.locator(".tag_solution details")
                assert folded.count() and not any(folded.nth(i).evaluate("d => d.open") for i in
                                                  range(folded.count())), f"{path.name}: a solution is open"
                assert not folded.first.locator(".cell_input").is_visible(), f"{path.name}: solution shown"
                links.update(page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)"))
                assert not errors, f"{path.name}: {errors}"
            shown = max(paths, key=_figures)  # the page with the most figures
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.goto(f"{served}/{shown.stem}.html")
            page.screenshot(path=str(SCREENSHOTS / f"{shown.stem}-top.png"))
            page.locator("article img").first.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / f"{shown.stem}-figure.png"))

            target = paths[1]
            word = _word_only_in(target, paths)
            page.goto(f"{served}/index.html")
            page.locator("button.search-button-field").first.click()  # the sidebar's search box
            page.locator("#pst-search-dialog input[name=q]").fill(word)
            page.keyboard.press("Enter")
            page.wait_for_url(re.compile(r"search\.html\?q="))
            page.wait_for_selector(f'#search-results ul.search li a[href^="{target.stem}.html"]', timeout=20_000)
            assert not errors, errors
        finally:
            browser.close()

        request = p.request.new_context()
        try:
            ids: dict[str, set[str]] = {}
            for link in sorted(links):
                parts = urlsplit(link)
                if not link.startswith(served):
                    continue
                if parts.path not in ids:
                    reply = request.get(f"{served}{parts.path}")
                    assert reply.ok, f"{link}: HTTP {reply.status}"
                    ids[parts.path] = site.parse(reply.text()).ids if parts.path.endswith(".html") else set()
                assert not parts.fragment or unquote(parts.fragment) in ids[parts.path], f"{link}: no such anchor"
            assert len(ids) > len(paths), "the pages link each other"
        finally:
            request.dispose()


# --- accessibility: axe-core on every page, figures' alt -------------------------------------------------------

AXE = ROOT / "tests" / "data" / "axe" / "axe.min.js"  # axe-core 4.14.1, vendored (tests/data/axe/README.md)
AXE_VERSION = "4.14.1"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def test_figures_keep_their_text_alternative_on_the_site(built):
    from test_accessibility import good_alt

    from tutorial_lib import plots

    out, _ = built
    for path in site.notebooks():
        alts = [found[0] for c in read(path).cells for o in c.get("outputs", [])
                if (found := plots.figure_alt(o.get("data", {})))]
        page = (out / f"{path.stem}.html").read_text()
        shown = [m.group(1) for m in re.finditer(r'<img alt="([^"]*)" src="_images/', page)]
        assert len(shown) == _figures(path), f"{path.name}: {len(shown)} figures on the page"
        shown = [html.unescape(a) for a in shown]
        assert shown == alts, f"{path.name}: the page's alts are not the notebook's"
        assert all(good_alt(a) for a in shown), path.name


@needs_chromium
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_passes_axe_core(built, served, scheme):
    from playwright.sync_api import sync_playwright

    out, _ = built
    assert f"axe v{AXE_VERSION}" in AXE.read_text()[:100]
    pages = sorted(p.name for p in out.glob("*.html"))
    found = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)
            for name in pages:
                page.goto(f"{served}/{name}", wait_until="load")
                page.add_script_tag(path=str(AXE))
                result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, "
                                       "resultTypes: ['violations']})", AXE_TAGS)  # passes left uncounted: faster
                assert result["testEngine"]["version"] == AXE_VERSION
                for rule in result["violations"]:
                    found[f"{name}: {rule['id']} ({rule['impact']})"] = [n["target"] for n in rule["nodes"]][:3]
        finally:
            browser.close()
    assert len(pages) >= len(site.notebooks()) + 4
    assert not found, f"axe-core {AXE_VERSION} ({', '.join(AXE_TAGS)}), {scheme} mode: {found}"
