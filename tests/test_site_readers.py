"""The course website for every reader (`make site`, built once for this module): no page scrolls sideways or cuts
text off at 320 CSS px (a phone, or 400% zoom), the course map and the page contents open there by mouse, Enter and
Space, every focus stop shows an unclipped ring and has a name, each solution toggle is named for its exercise, and
search results are announced; all in Debian's Chromium (Playwright), skipped with the reason without it.
"""

from __future__ import annotations

import collections

import pytest
from browser_support import CHROMIUM, CHROMIUM_FLAGS, needs_chromium

from tutorial_lib.classroom import site

# sphinx-book-theme 1.4 reads a Sphinx attribute that Sphinx 11 will remove: its warning, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:'sphinx_book_theme.*is deprecated")
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
    off: the notebook's file name in "Run this notebook", the previous/next titles, a heading's long word. On every
    page too: no console error, no request off the site, a title of its own, no placeholder author."""
    from playwright.sync_api import sync_playwright

    out, _ = built
    wide, cut, titles, errors = {}, {}, {}, []
    with sync_playwright() as p:
        browser = _browser(p)
        try:
            page = browser.new_page(viewport=PHONE)
            page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            page.on("request", lambda r: None if r.url.startswith(served) else errors.append(f"off-site: {r.url}"))
            for name in sorted(f.name for f in out.glob("*.html")):
                page.goto(f"{served}/{name}", wait_until="load")
                seen = page.evaluate(PAST_THE_EDGE)
                if seen["scroll"] > seen["width"] or seen["found"]:
                    wide[name] = seen
                if found := page.evaluate(CUT_OFF):
                    cut[name] = found[:3]
                titles.setdefault(page.title(), []).append(name)
                assert "Author name not set" not in page.content(), f"{name}: the theme's placeholder author"
        finally:
            browser.close()
    assert not wide, f"pages wider than {PHONE['width']} CSS px: {wide}"
    assert not cut, f"text cut off at {PHONE['width']} CSS px: {cut}"
    assert not errors, errors  # every page: no console error, nothing requested off the site
    assert not {t: names for t, names in titles.items() if len(names) > 1}, "pages that share a title"


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
