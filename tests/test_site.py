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
import functools
import html
import http.server
import re
import threading
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


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the site once for this module; return its folder and the build's problems."""
    out = tmp_path_factory.mktemp("site") / "site"
    lines: list[str] = []
    problems = site.build(out, progress=lines.append)
    assert any(line.startswith("site: built in") for line in lines), "the build prints its progress and summary"
    return out, problems


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


@pytest.fixture(scope="module")
def served(built):
    """Serve the built site on 127.0.0.1 (a free port) from a thread."""
    out, _ = built
    handler = functools.partial(_QuietHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


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
                result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS)
                assert result["testEngine"]["version"] == AXE_VERSION
                for rule in result["violations"]:
                    found[f"{name}: {rule['id']} ({rule['impact']})"] = [n["target"] for n in rule["nodes"]][:3]
        finally:
            browser.close()
    assert len(pages) >= len(site.notebooks()) + 4
    assert not found, f"axe-core {AXE_VERSION} ({', '.join(AXE_TAGS)}), {scheme} mode: {found}"


# --- every reader: a phone or 400% zoom, a keyboard, a screen reader ----------------------------------------------

PHONE = {"width": 320, "height": 640}  # 320 CSS px: a phone, or 400% zoom on a 1280 px screen (WCAG 1.4.10)
SIDEBARS = ".bd-sidebar-primary, .bd-sidebar-secondary, dialog"
# Elements whose right edge is past the viewport, outside any box that scrolls or clips (code, tables, outputs).
PAST_THE_EDGE = """() => { const width = document.documentElement.clientWidth; const found = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('SIDEBARS')) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    let up = el.parentElement, held = false;
    while (up) { if (getComputedStyle(up).overflowX !== 'visible' && up.getBoundingClientRect().right <= width + 1) {
      held = true; break; } up = up.parentElement; }
    if (!held) found.push(`${el.tagName}.${el.className} ${(el.textContent || '').trim().slice(0, 40)}`);
  }
  return {scroll: document.documentElement.scrollWidth, width, found: found.slice(0, 5)}; }""".replace(
    "SIDEBARS", SIDEBARS)
# Text cut off: a box that hides what overflows it while its content is wider (scrolling boxes excluded).
CUT_OFF = """() => Array.from(document.querySelectorAll('body *')).filter(el => {
  if (el.closest('SIDEBARS, .visually-hidden, pre, .pst-scrollable-table-container, .cell_output')) return false;
  const style = getComputedStyle(el);
  if (el.getBoundingClientRect().width === 0 || style.display === 'none' || style.visibility === 'hidden') {
    return false; }
  return ['hidden', 'clip'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
}).map(el => `${el.tagName}.${el.className} ${(el.textContent || '').trim().slice(0, 40)}`)""".replace(
    "SIDEBARS", SIDEBARS)


def _browser(p):
    return p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)


@needs_chromium
def test_every_page_reflows_at_320_css_px_with_nothing_cut_off(built, served):
    """No page scrolls sideways at 320 CSS px (code blocks and tables scroll in their own box), and no text is cut
    off: the notebook's file name in "Run this notebook", the previous/next titles, a heading's long word."""
    from playwright.sync_api import sync_playwright

    out, _ = built
    wide, cut = {}, {}
    with sync_playwright() as p:
        browser = _browser(p)
        try:
            page = browser.new_page(viewport=PHONE)
            for name in sorted(f.name for f in out.glob("*.html")):
                page.goto(f"{served}/{name}", wait_until="load")
                seen = page.evaluate(PAST_THE_EDGE)
                if seen["scroll"] > seen["width"] or seen["found"]:
                    wide[name] = seen
                if found := page.evaluate(CUT_OFF):
                    cut[name] = found[:3]
        finally:
            browser.close()
    assert not wide, f"pages wider than {PHONE['width']} CSS px: {wide}"
    assert not cut, f"text cut off at {PHONE['width']} CSS px: {cut}"


@needs_chromium
@pytest.mark.parametrize("how", ["click", "Enter", " "])
def test_the_course_map_and_the_page_contents_open_at_any_width(served, how):
    """Below the width where the sidebars show, the menu button opens the course map and the "Contents" button the
    page's contents, by mouse, Enter or Space; Escape closes them and gives the focus back. Wide, the menu button
    hides and shows the sidebar."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = _browser(p)
        try:
            page = browser.new_page(viewport=PHONE)
            page.goto(f"{served}/02_reading_files.html", wait_until="load")
            course_map = 'a[href="05_live_dashboard.html"]'
            menus = [(".bd-header-article .primary-toggle", "#pst-primary-sidebar-modal", course_map),
                     (".bd-header-article .secondary-toggle", "#pst-secondary-sidebar-modal", "a.nav-link")]
            for button, dialog, expected in menus:
                assert page.locator(button).is_visible(), f"{button} is not shown at 320 CSS px"
                if how == "click":
                    page.click(button)
                else:
                    page.focus(button)
                    page.keyboard.press(how)
                page.wait_for_function(f"document.querySelector('{dialog}').open")
                assert page.locator(f"{dialog} {expected}").first.is_visible(), f"{dialog} shows no {expected}"
                page.keyboard.press("Escape")
                page.wait_for_function(f"!document.querySelector('{dialog}').open")
                assert page.evaluate(f"document.activeElement === document.querySelector('{button}')")
            if how == "click":
                page.set_viewport_size({"width": 1400, "height": 900})
                sidebar = page.locator("#pst-primary-sidebar")
                assert sidebar.is_visible()
                page.click(".bd-header-article .primary-toggle")
                page.wait_for_function("document.querySelector('#pst-primary-sidebar').classList"
                                       ".contains('pst-sidebar-hidden')")
                page.click(".bd-header-article .primary-toggle")
                sidebar.wait_for(state="visible", timeout=5_000)
        finally:
            browser.close()


FOCUSED = """() => { const el = document.activeElement; if (!el || el === document.body) return null;
  const style = getComputedStyle(el); const box = el.getBoundingClientRect();
  const reach = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);  // how far the ring is drawn
  const ring = {left: box.left - reach, right: box.right + reach, top: box.top - reach, bottom: box.bottom + reach};
  let clipped = false;
  for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
    const upStyle = getComputedStyle(up);
    if (upStyle.overflowX === 'visible' && upStyle.overflowY === 'visible') continue;
    const edge = up.getBoundingClientRect();
    if (ring.left < edge.left - 0.5 || ring.right > edge.right + 0.5 || ring.top < edge.top - 0.5 ||
        ring.bottom > edge.bottom + 0.5) { clipped = true; break; }
  }
  const named = (el.getAttribute('aria-label') || el.getAttribute('title') || el.textContent || '').trim() ||
    Array.from(el.querySelectorAll('img[alt]')).map(i => i.alt).join(' ');
  return {what: `${el.tagName}.${el.className}`.slice(0, 60), named: !!named,
          ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
          unclipped: !clipped,
          region: el.tabIndex === 0 && ['PRE', 'DIV'].includes(el.tagName) ? el.getAttribute('role') === 'region' &&
            !!el.getAttribute('aria-label') : true,
          shown: box.width > 0 && box.height > 0}; }"""


@needs_chromium
@pytest.mark.parametrize("name", ["index.html", "05_live_dashboard.html", "instructors.html"])
def test_every_focus_stop_shows_a_ring_and_has_a_name(served, name):
    """Tab through the page: every stop shows a focus ring of at least 2 px that no box around it clips, and has a
    name; a scrolling code or output box is a named region."""
    from playwright.sync_api import sync_playwright

    problems, stops = [], 0
    with sync_playwright() as p:
        browser = _browser(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{served}/{name}", wait_until="load")
            page.wait_for_timeout(800)  # the theme sets the scrolling boxes' tab stops after 300 ms, the course 400
            first = None
            for _ in range(400):
                page.keyboard.press("Tab")
                seen = page.evaluate(FOCUSED)
                if seen is None or not seen["shown"]:
                    continue
                key = page.evaluate("() => { const el = document.activeElement; const b = el.getBoundingClientRect();"
                                    " return el.tagName + el.className + Math.round(b.top + scrollY); }")
                if key == first:
                    break  # back at the first stop
                first = first or key
                stops += 1
                for check in ("ring", "unclipped", "named", "region"):
                    if not seen[check]:
                        problems.append(f"{seen['what']}: {check}")
        finally:
            browser.close()
    assert stops > 5, f"{name}: only {stops} focus stops reached"
    assert not problems, f"{name}: {len(problems)} of {stops} focus stops: {collections.Counter(problems)}"


@needs_chromium
def test_solution_toggles_are_named_for_their_exercise_and_search_results_are_announced(built, served):
    from playwright.sync_api import sync_playwright

    out, _ = built
    with sync_playwright() as p:
        browser = _browser(p)
        try:
            page = browser.new_page()
            toggles = 0
            for path in site.notebooks():
                page.goto(f"{served}/{path.stem}.html", wait_until="load")
                names = page.evaluate("() => Array.from(document.querySelectorAll('details.hide > summary')).map("
                                      "s => s.querySelector('p.collapsed').textContent.trim())")
                toggles += len(names)
                assert all(n.startswith("Show the solution") and len(n) > len("Show the solution") for n in names), \
                    names
                assert len(set(names)) == len(names), f"{path.stem}: toggles with the same name: {names}"
            assert toggles >= 10
            page.goto(f"{served}/search.html?q=queue", wait_until="load")
            page.wait_for_function("/found \\d+ page/.test(document.querySelector('#course-search-status')"
                                   ".textContent)", timeout=20_000)
            live = page.locator("#course-search-status")
            assert live.get_attribute("role") == "status"
        finally:
            browser.close()
