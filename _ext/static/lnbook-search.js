/* The search page: Pagefind's stock interface (pagefind/pagefind-ui.js) over the index that
   _ext/lnbook_search.py builds. It answers the ?q= of the sidebar's search box, and each
   result links its page with ?highlight=, so Sphinx's highlighter marks the words on that page
   only. Tested by tests/site/test_search.py. */
"use strict";
var root = new URL("..", document.currentScript.src);  // this is _static/lnbook-search.js
window.addEventListener("DOMContentLoaded", function () {
  var input = function () { return document.querySelector("#lnb-search input"); };
  function marked(url) {
    var link = new URL(url, root);
    link.searchParams.set("highlight", input().value.trim());
    return link.pathname + link.search + link.hash;
  }
  var ui = new PagefindUI({
    element: "#lnb-search", baseUrl: root.pathname, showImages: false, showSubResults: true,
    noWorker: true,  // for a book this size, quicker on the page than in a worker
    processResult: function (result) {
      result.url = marked(result.url);
      (result.sub_results || []).forEach(function (sub) { sub.url = marked(sub.url); });
      return result;
    },
  });
  // its box is named by a title only (axe: label-title-only, serious): a name of its own
  input().setAttribute("aria-label", "Search this book");
  var query = (new URLSearchParams(location.search).get("q") || "").trim();
  if (query) ui.triggerSearch(query);
});
