/* lnbook site fixes (see _ext/lnbook_site.py; tested by tests/site/test_reader.py). */
"use strict";
(function () {
  /* Sidebar drawers. sphinx-book-theme 1.3 renders its own "Toggle primary/secondary sidebar"
     buttons in the article header, while pydata-sphinx-theme 0.17 adds buttons with the same
     classes to its (hidden) top bar. Both themes attach their click handlers with
     document.querySelector(".primary-toggle"), i.e. to the first, hidden button only
     (pydata-sphinx-theme issue #2451). Every further button forwards its click to that first
     one, so the themes' own handlers run: a drawer on narrow screens, collapsing the primary
     sidebar on wide ones. */
  function forwardToggles() {
    ["primary-toggle", "secondary-toggle"].forEach(function (cls) {
      var buttons = document.querySelectorAll("button." + cls);
      var first = buttons[0];
      for (var i = 1; i < buttons.length; i++) {
        buttons[i].addEventListener("click", function (event) {
          event.preventDefault();
          event.stopPropagation();
          first.click();
        });
      }
    });
  }
  /* Inline formulas are KaTeX HTML (rendered at build time) and wrap only between their
     top-level terms. One that is still wider than its line gets the class lnb-wide, which
     makes it a box of its own that scrolls sideways (lnbook-site.css); a scrolling box is a
     keyboard tab stop, so a reader can scroll it without a mouse. */
  function markWideFormulas() {
    document.querySelectorAll("span.math").forEach(function (math) {
      math.classList.remove("lnb-wide");
      math.removeAttribute("tabindex");
    });
    document.querySelectorAll("span.math").forEach(function (math) {
      var line = math.parentElement.getBoundingClientRect();
      var box = math.getBoundingClientRect();
      var tooWide = math.getClientRects().length === 1 &&
        (box.right > line.right + 1 || box.left < line.left - 1);
      if (tooWide) {
        math.classList.add("lnb-wide");
        if (math.scrollWidth > math.clientWidth + 1) {
          math.setAttribute("tabindex", "0");
        }
      }
    });
  }
  /* Display formulas, code, outputs and tables scroll sideways in their own box when they
     are wider than the column. Each box that does scroll becomes a labelled tab stop (arrow
     keys then scroll it) and gets the classes lnb-more-left / lnb-more-right while there is
     more to see on that side: lnbook-site.css fades that edge. */
  var SCROLLERS = ".katex-display, article pre, .pst-scrollable-table-container, " +
    "article .cell_output .output.text_html";
  function kindOf(box) {
    if (box.classList.contains("katex-display")) return "Formula";
    if (box.closest(".cell_output")) return "Output";
    if (box.tagName === "PRE") return "Code";
    return "Table";
  }
  function markCue(box) {
    var left = box.scrollLeft > 1;
    var right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    box.classList.toggle("lnb-more-left", left);
    box.classList.toggle("lnb-more-right", right);
  }
  function markScrollers() {
    document.querySelectorAll(SCROLLERS).forEach(function (box) {
      var wide = box.scrollWidth > box.clientWidth + 1;
      var ours = box.dataset.lnbScroll === "1";
      if (wide) {
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
          box.removeAttribute("role");
          box.removeAttribute("aria-label");
          delete box.dataset.lnbScroll;
          box.removeAttribute("tabindex");
        }
      }
    });
  }
  /* The drawers (in-page contents, table of contents) close when a link in them is followed:
     a link to a section of this page would otherwise leave the drawer over the section. */
  function closeDrawersOnLinks() {
    document.querySelectorAll("dialog[id$='-sidebar-modal']").forEach(function (dialog) {
      dialog.addEventListener("click", function (event) {
        var link = event.target.closest("a[href]");
        if (link && dialog.open) dialog.close();
      });
    });
  }
  /* pydata-sphinx-theme scrolls the sidebar on a first visit until the current chapter's link
     is a quarter down, which on chapter 4 onward hides the book's title and search box
     although the link would be in sight without scrolling. The sidebar keeps its top then,
     and otherwise scrolls only as far as the link needs. A position the theme restored from
     this tab's last page (sessionStorage) is the reader's own, and stays. Runs after the
     theme's scroll (on DOMContentLoaded; this script is deferred in the page's head). */
  function sidebarFromTheTop() {
    var sidebar = document.querySelector("div.bd-sidebar");
    var nav = document.querySelector(".bd-docs-nav");
    if (!sidebar || !nav || sessionStorage.getItem("sidebar-scroll-top") !== null) return;
    var active = nav.querySelectorAll(".active");
    if (!active.length) return;
    var link = active[active.length - 1];
    var bottom = link.getBoundingClientRect().bottom - sidebar.getBoundingClientRect().top +
      sidebar.scrollTop;
    sidebar.scrollTop = Math.max(0, bottom + 16 - sidebar.clientHeight);
  }
  /* For scripts and the tests: mark what is too wide again (after a change of window size
     that no resize event has reported yet). */
  window.lnbook = {refresh: function () { markWideFormulas(); markScrollers(); }};
  function ready() {
    forwardToggles();
    closeDrawersOnLinks();
    document.addEventListener("DOMContentLoaded", sidebarFromTheTop);
    markWideFormulas();
    markScrollers();
    document.addEventListener("scroll", function (event) {
      var box = event.target;
      if (box.classList && box.classList.contains("lnb-scroll")) markCue(box);
    }, true);
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(window.lnbook.refresh, 150);
    });
    /* fonts change widths: mark again once they are in */
    if (document.fonts && document.fonts.ready) {
      document.fonts.ready.then(window.lnbook.refresh);
    }
  }
  /* a deferred script: it runs when the page is parsed, before DOMContentLoaded */
  ready();
})();
