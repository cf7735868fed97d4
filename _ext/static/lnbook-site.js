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
  function ready() {
    forwardToggles();
    markWideFormulas();
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(markWideFormulas, 150);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
