/* lnbook site fixes (see _ext/lnbook_site.py; tested by tests/test_site_reader.py). */
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
  /* Formulas are prerendered by KaTeX at build time; the theme makes every wide block
     scrollable and focusable, which is right for code, not for each formula's wrapper. */
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", forwardToggles);
  } else {
    forwardToggles();
  }
})();
