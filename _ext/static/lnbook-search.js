/* The search page: Pagefind's index (built by _ext/lnbook_search.py into pagefind/), asked
   from this page alone; no chapter is fetched. Results are the pages in Pagefind's order (a
   chapter whose title names the query comes first), each with its best sections and a
   snippet of its text in which every formula appears once, as a line of text. A result's
   link carries ?highlight=, so Sphinx's highlighter marks the words on that page only (no
   term is left in localStorage for later pages). Tested by tests/site/test_search.py. */
"use strict";
(function () {
  var script = document.currentScript;
  var root = new URL("..", script.src);  // this script is _static/lnbook-search.js
  var form = document.querySelector(".bd-search-container form.bd-search");
  var results = document.getElementById("search-results");
  if (!form || !results) return;
  var input = form.querySelector("input[name='q']");
  var FIRST = 5;  // results on screen first
  var SHOWN = 10;  // results shown without asking; the rest after "Show more"
  var pagefind = null;

  function load() {
    if (!pagefind) {
      pagefind = import(new URL("pagefind/pagefind.js", root).href).then(function (pf) {
        /* no worker: for a book this size the search is quicker on the page itself */
        return pf.options({baseUrl: root.pathname, noWorker: true}).then(function () {
          return pf.init();
        }).then(function () { return pf; });
      });
    }
    return pagefind;
  }

  /* Pagefind's excerpt is text with <mark> around the words found: rebuild it as nodes,
     keeping the marks and nothing else. */
  function excerpt(html) {
    var p = document.createElement("p");
    p.className = "context";
    var doc = new DOMParser().parseFromString("<body>" + html + "</body>", "text/html");
    doc.body.childNodes.forEach(function (node) {
      if (node.nodeType === Node.ELEMENT_NODE && node.tagName === "MARK") {
        var mark = document.createElement("mark");
        mark.textContent = node.textContent;
        p.appendChild(mark);
      } else {
        p.appendChild(document.createTextNode(node.textContent));
      }
    });
    return p;
  }

  function withHighlight(url, query) {
    var link = new URL(url, root);
    link.searchParams.set("highlight", query);
    return link.href;
  }

  function item(data, query) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = withHighlight(data.url, query);
    a.textContent = data.meta.title || data.url;
    li.appendChild(a);
    li.appendChild(excerpt(data.excerpt));
    var sections = (data.sub_results || []).filter(function (sub) {
      return sub.url !== data.url && sub.title && sub.title !== data.meta.title;
    }).slice(0, 3);
    if (sections.length) {
      var ul = document.createElement("ul");
      ul.className = "lnb-sections";
      sections.forEach(function (sub) {
        var s = document.createElement("li");
        var link = document.createElement("a");
        link.href = withHighlight(sub.url, query);
        link.textContent = sub.title;
        s.appendChild(link);
        ul.appendChild(s);
      });
      li.appendChild(ul);
    }
    return li;
  }

  var current = 0;  // the latest query's number: an older answer arriving late is dropped
  function details(found, from, to) {
    return Promise.all(found.results.slice(from, to).map(function (r) { return r.data(); }));
  }
  function search(query) {
    var mine = ++current;
    results.setAttribute("aria-busy", "true");
    return load().then(function (pf) {
      return pf.search(query);
    }).then(function (found) {
      var count = found.results.length;
      /* the first few on screen as soon as their snippets are in, the next ones after */
      return details(found, 0, FIRST).then(function (data) {
        if (mine !== current) return;
        results.replaceChildren();
        var heading = document.createElement("h2");
        heading.textContent = "Search results";
        var summary = document.createElement("p");
        summary.className = "search-summary";
        summary.textContent = count
          ? "Found " + count + " page" + (count > 1 ? "s" : "") + " matching \u201c" + query +
            "\u201d."
          : "Your search for \u201c" + query + "\u201d did not match any page.";
        var list = document.createElement("ul");
        list.className = "search";
        data.forEach(function (d) { list.appendChild(item(d, query)); });
        results.append(heading, summary, list);
        /* milliseconds from the page's start to the answer on screen */
        results.dataset.answeredAt = Math.round(performance.now());
        results.removeAttribute("aria-busy");
        return details(found, FIRST, SHOWN).then(function (next) {
          if (mine !== current) return;
          next.forEach(function (d) { list.appendChild(item(d, query)); });
          if (count <= SHOWN) return;
          var more = document.createElement("button");
          more.type = "button";
          more.className = "btn btn-sm lnb-more-results";
          more.textContent = "Show " + (count - SHOWN) + " more";
          more.addEventListener("click", function () {
            more.disabled = true;
            details(found, SHOWN, count).then(function (rest) {
              rest.forEach(function (d) { list.appendChild(item(d, query)); });
              more.remove();
            });
          });
          results.appendChild(more);
        });
      });
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var query = input.value.trim();
    if (!query) return;
    var url = new URL(window.location.href);
    url.searchParams.set("q", query);
    window.history.replaceState({}, "", url);
    search(query);
  });
  var query = (new URLSearchParams(window.location.search).get("q") || "").trim();
  if (query) {
    input.value = query;
    search(query);
  } else {
    load();  // the index is ready by the time the reader has typed
  }
})();
