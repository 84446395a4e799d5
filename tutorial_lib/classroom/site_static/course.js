/* The course site's own behaviour (tutorial_lib.classroom.site): the menu and contents buttons, names for
   solution toggles and scrolling boxes, and search results announced. */
(() => {
  "use strict";

  // pydata-sphinx-theme and sphinx-book-theme bind the first .primary-toggle / .secondary-toggle of the page,
  // which is the hidden navbar's; the buttons a reader sees (in the article header) get the same behaviour here.
  const move = (from, to) => {
    Array.from(from.childNodes).forEach((node) => to.appendChild(node));
    Array.from(from.classList).forEach((name) => { from.classList.remove(name); to.classList.add(name); });
  };
  const bindToggle = (button, sidebar, modal, collapsible) => {
    if (!button || !sidebar || !modal) return;
    button.setAttribute("aria-haspopup", "dialog");
    button.addEventListener("click", (event) => {
      event.preventDefault();
      event.stopPropagation();
      if (collapsible && window.matchMedia("(min-width: 992px)").matches) {
        sidebar.classList.toggle("pst-sidebar-hidden");
        return;
      }
      const back = document.activeElement;
      move(sidebar, modal);
      modal.showModal();
      modal.addEventListener("close", () => {
        if (modal.childNodes.length) move(modal, sidebar);
        if (back && back.focus) back.focus();
      }, { once: true });
    });
    modal.addEventListener("click", (event) => {  // a click on the backdrop closes it
      const box = modal.getBoundingClientRect();
      if (event.clientX < box.left || event.clientX > box.right || event.clientY < box.top ||
          event.clientY > box.bottom) modal.close();
    });
  };

  // "Show the solution" toggles are named for their exercise: the nearest heading or bold "Exercise N" above.
  const nameToggles = () => {
    const marks = Array.from(document.querySelectorAll("article h1, article h2, article h3, article h4, article strong"))
      .filter((el) => el.tagName !== "STRONG" || /^Exercise\b/.test(el.textContent.trim()));
    document.querySelectorAll("details.hide > summary").forEach((summary, index) => {
      if (summary.querySelector(".course-toggle-name")) return;
      const above = marks.filter((m) => m.compareDocumentPosition(summary) & Node.DOCUMENT_POSITION_FOLLOWING);
      const mark = above.length ? above[above.length - 1].textContent.replace(/#\s*$/, "").trim() : "";
      const what = mark ? ` to ${mark.replace(/[.:]\s*$/, "")}` : ` ${index + 1}`;
      summary.querySelectorAll("p").forEach((p) => {
        const span = document.createElement("span");
        span.className = "visually-hidden course-toggle-name";
        span.textContent = what;
        p.appendChild(span);
      });
    });
  };

  // The theme makes scrolling code, outputs and tables tab stops; each gets a name saying what it is.
  const nameScrollers = () => {
    const kinds = [["pre", "Code"], [".cell_output > .output, .nboutput > .output_area", "Output"],
                   [".pst-scrollable-table-container", "Table"], [".jp-RenderedHTMLCommon", "Output"]];
    for (const [selector, kind] of kinds) {
      let count = 0;
      document.querySelectorAll(selector).forEach((box) => {
        count += 1;
        if (box.tabIndex === 0) {
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", `${kind} ${count}, scrolls`);
        } else if (box.getAttribute("aria-label") && box.getAttribute("role") === "region") {
          box.removeAttribute("role");
          box.removeAttribute("aria-label");
        }
      });
    }
  };

  // Search results are announced: the summary line ("Search finished, found N pages ...") is copied into a
  // polite live region when it changes.
  const announceSearch = () => {
    const results = document.getElementById("search-results");
    if (!results) return;
    const live = document.createElement("p");
    live.className = "visually-hidden";
    live.id = "course-search-status";
    live.setAttribute("role", "status");
    results.parentNode.insertBefore(live, results);
    let said = "";
    new MutationObserver(() => {
      const summary = results.querySelector(".search-summary");
      const text = summary ? summary.textContent.trim() : "";
      if (text && text !== said) { said = text; live.textContent = text; }
    }).observe(results, { childList: true, subtree: true, characterData: true });
  };

  const start = () => {
    bindToggle(document.querySelector(".bd-header-article .primary-toggle"),
               document.getElementById("pst-primary-sidebar"), document.getElementById("pst-primary-sidebar-modal"),
               true);
    bindToggle(document.querySelector(".bd-header-article .secondary-toggle"),
               document.getElementById("pst-secondary-sidebar"),
               document.getElementById("pst-secondary-sidebar-modal"), false);
    nameToggles();
    announceSearch();
    window.setTimeout(nameScrollers, 400);  // after the theme has set the tab stops (it waits 300 ms)
    let timer = null;
    window.addEventListener("resize", () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(nameScrollers, 400);
    });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
