/* lnbook site fixes (see _ext/lnbook_site.py; checked in the browser by tests/site). */
"use strict";
(function () {
  /* Sidebar drawers: sphinx-book-theme 1.3 renders its own "Toggle primary/secondary sidebar"
     buttons, pydata-sphinx-theme 0.17 hidden ones with the same classes, and both attach
     their handlers to the first, hidden one only (pydata-sphinx-theme #2451): every further
     button forwards its click to it, so the themes' own handlers run. */
  function forwardToggles() {
    ["primary-toggle", "secondary-toggle"].forEach(function (cls) {
      var buttons = document.querySelectorAll("button." + cls);
      for (var i = 1; i < buttons.length; i++) {
        buttons[i].addEventListener("click", function (event) {
          event.preventDefault();
          event.stopPropagation();
          buttons[0].click();
        });
      }
    });
  }
  /* An inline formula (KaTeX HTML, wrapping only between its terms) still wider than its
     line gets the class lnb-wide: a box of its own that scrolls sideways, and a tab stop. */
  function markWideFormulas() {
    document.querySelectorAll("span.math").forEach(function (math) {
      math.classList.remove("lnb-wide");
      math.removeAttribute("tabindex");
    });
    document.querySelectorAll("span.math").forEach(function (math) {
      var line = math.parentElement.getBoundingClientRect();
      var box = math.getBoundingClientRect();
      if (math.getClientRects().length === 1 &&
          (box.right > line.right + 1 || box.left < line.left - 1)) {
        math.classList.add("lnb-wide");
        if (math.scrollWidth > math.clientWidth + 1) math.setAttribute("tabindex", "0");
      }
    });
  }
  /* Display formulas, code, outputs and tables wider than the column scroll in their own
     box: a labelled tab stop (arrow keys scroll it) with the classes lnb-more-left /
     lnb-more-right while there is more to see on that side (lnbook-site.css fades it). */
  var SCROLLERS = ".katex-display, article pre, .pst-scrollable-table-container, " +
    "article .cell_output .output.text_html";
  function kindOf(box) {
    return box.classList.contains("katex-display") ? "Formula"
      : box.closest(".cell_output") ? "Output" : box.tagName === "PRE" ? "Code" : "Table";
  }
  function markCue(box) {
    box.classList.toggle("lnb-more-left", box.scrollLeft > 1);
    box.classList.toggle("lnb-more-right",
      box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
  }
  function markScrollers() {
    document.querySelectorAll(SCROLLERS).forEach(function (box) {
      var ours = box.dataset.lnbScroll === "1";
      if (box.scrollWidth > box.clientWidth + 1) {
        box.classList.add("lnb-scroll");
        box.tabIndex = 0;
        if (!box.hasAttribute("aria-label") || ours) {
          box.setAttribute("role", "group");
          box.setAttribute("aria-label", kindOf(box) + ", wider than the page: scroll sideways");
          box.dataset.lnbScroll = "1";
        }
        markCue(box);
      } else {
        box.classList.remove("lnb-scroll", "lnb-more-left", "lnb-more-right");
        if (ours) {
          ["role", "aria-label", "tabindex", "data-lnb-scroll"].forEach(function (name) {
            box.removeAttribute(name);
          });
        }
      }
    });
  }
  /* A drawer (in-page contents, table of contents) closes when a link in it is followed,
     instead of staying over the section it leads to. */
  function closeDrawersOnLinks() {
    document.querySelectorAll("dialog[id$='-sidebar-modal']").forEach(function (dialog) {
      dialog.addEventListener("click", function (event) {
        if (event.target.closest("a[href]") && dialog.open) dialog.close();
      });
    });
  }
  /* pydata-sphinx-theme scrolls the sidebar on a first visit until the current chapter's
     link is a quarter down, which from chapter 4 on hides the book's title and search box
     although the link would be in sight: the sidebar keeps its top then, and otherwise
     scrolls only as far as the link needs. A position the theme restored from this tab's last
     page (sessionStorage) is the reader's own, and stays. */
  function sidebarFromTheTop() {
    var sidebar = document.querySelector("div.bd-sidebar");
    var nav = document.querySelector(".bd-docs-nav");
    if (!sidebar || !nav || sessionStorage.getItem("sidebar-scroll-top") !== null) return;
    var active = nav.querySelectorAll(".active");
    if (!active.length) return;
    var bottom = active[active.length - 1].getBoundingClientRect().bottom -
      sidebar.getBoundingClientRect().top + sidebar.scrollTop;
    sidebar.scrollTop = Math.max(0, bottom + 16 - sidebar.clientHeight);
  }
  /* for scripts and the tests: mark again what is too wide (after a change of window size
     that no resize event has reported yet) */
  window.lnbook = {refresh: function () { markWideFormulas(); markScrollers(); }};
  /* a deferred script: it runs when the page is parsed, before DOMContentLoaded (after which
     the theme has scrolled the sidebar) */
  forwardToggles();
  closeDrawersOnLinks();
  document.addEventListener("DOMContentLoaded", sidebarFromTheTop);
  window.lnbook.refresh();
  document.addEventListener("scroll", function (event) {
    if (event.target.classList && event.target.classList.contains("lnb-scroll")) {
      markCue(event.target);
    }
  }, true);
  var timer = null;
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(window.lnbook.refresh, 150);
  });
  if (document.fonts && document.fonts.ready) {  /* fonts change widths */
    document.fonts.ready.then(window.lnbook.refresh);
  }
})();
