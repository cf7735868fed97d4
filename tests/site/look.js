// What a reader sees on a page, measured in the page (test_looks.py adds this script to every
// tab before the page's own scripts; each function returns plain data for Python to check).
"use strict";
window.lnbLook = (() => {
  // a promise the page may never keep (a stalled font or image) is awaited at most ms
  const within = (p, ms) => Promise.race([p, new Promise(r => setTimeout(() => r("late"), ms))]);
  const article = () => document.querySelector("article.bd-article");
  const shown = el => el.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (typeof el.className === "string" && el.className.trim()
      ? "." + el.className.trim().split(/\s+/).slice(0, 3).join(".") : "");
  const textOutside = (root, skip) => {
    const parts = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode: n =>
      n.parentElement.closest(skip) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
    for (let n = walker.nextNode(); n; n = walker.nextNode()) parts.push(n);
    return parts;
  };

  // images decoded and fonts in; then formulas, images, fonts and prose as they stand
  async function seen() {
    const imgs = Array.from(document.images);
    imgs.forEach(i => { i.loading = "eager"; });
    await within(Promise.all(imgs.map(i => i.decode().catch(() => null))), 10000);
    await within(document.fonts.ready, 10000);
    const math = Array.from(document.querySelectorAll("span.math, div.math"));
    const root = article() || document.body;
    // TeX shown as text: delimiters or $-math outside code and formulas
    const raw = textOutside(root, "pre, code, script, style, .math, .katex")
      .map(n => n.textContent)
      .filter(t => /\\[()[\]]|\$\$|\\begin\{|\$[^$\n]*[\\^_][^$\n]*\$/.test(t));
    // the prose a reader reads: no code, formula, output; folded solutions count
    const prose = textOutside(root, "pre, code, kbd, samp, script, style, .math, .katex, " +
        ".cell_output, .output, .highlight, .headerlink, [aria-hidden='true']")
      .filter(n => n.parentElement.checkVisibility() ||
                   n.parentElement.closest("details, .solution, .dropdown, .toggle-hidden"))
      .map(n => n.textContent).join("");
    // the formulas are HTML: on screen once KaTeX's stylesheet and fonts are in
    const katex = performance.getEntriesByType("resource").filter(e => /katex/.test(e.name));
    const first = Array.from(root.querySelectorAll(".katex"))
      .find(k => k.getBoundingClientRect().width > 0);
    return {
      math: {
        elements: math.length,
        containers: document.querySelectorAll(".katex").length,
        typeset: math.filter(el => el.querySelectorAll(".katex").length === 1 &&
          el.querySelector(".katex > .katex-mathml math") &&
          el.querySelector(".katex > .katex-html")).length,
        errors: document.querySelectorAll(".katex-error").length,
        leftover: math.filter(el => Array.from(el.childNodes).some(n =>
          n.nodeType === Node.TEXT_NODE && /\\[([a-zA-Z]|\$\$/.test(n.textContent)))
          .map(el => el.textContent.slice(0, 80)),
        raw: raw.map(t => t.trim().slice(0, 80)),
        ready: katex.length ? Math.max(...katex.map(e => e.responseEnd)) : null,
        load: performance.getEntriesByType("navigation")[0].loadEventEnd,
        size: first ? first.getBoundingClientRect().width * first.getBoundingClientRect().height
          : null,
      },
      broken: imgs.filter(i => !i.naturalWidth).map(i => i.currentSrc || i.src),
      fonts: Array.from(document.fonts).filter(f => f.status !== "unloaded")
        .map(f => `${f.family} ${f.weight} ${f.style}: ${f.status}`),
      prose: prose,
    };
  }

  // elements wider than the window, or out of it, that no box of their own scrolls
  function overflow() {
    const vw = document.documentElement.clientWidth;
    const out = r => r.right > vw + 1 || r.left < -1;
    const scrolls = el => {
      for (let a = el; a && a !== document.body; a = a.parentElement) {
        const ox = getComputedStyle(a).overflowX;
        if ((ox === "auto" || ox === "scroll") && !out(a.getBoundingClientRect())) return true;
      }
      return false;
    };
    const visible = el => shown(el) && !el.closest("dialog:not([open]), .pst-sidebar-hidden, " +
      "[aria-hidden='true'], .katex-mathml, .skip-link");
    const bad = [];
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height || !out(r) || !visible(el) || scrolls(el)) continue;
      const p = el.parentElement;  // the outermost element only
      if (p && p !== document.body && p.getBoundingClientRect().width &&
          out(p.getBoundingClientRect()) && visible(p) && !scrolls(p)) continue;
      bad.push(`${name(el)} [${Math.round(r.left)}, ${Math.round(r.right)}] ` +
               (el.innerText || "").trim().slice(0, 60).replace(/\s+/g, " "));
    }
    if (document.documentElement.scrollWidth > vw)
      bad.unshift(`the page is ${document.documentElement.scrollWidth} px wide in ${vw}`);
    return bad;
  }

  // every display formula, code block, output and table whose content is wider than what the
  // page shows of it; it is reachable when the innermost box that clips it scrolls sideways
  // inside the window, is a tab stop with a name, and shows a cue (a background or mask,
  // e.g. a scroll shadow, or a scrollbar that takes room)
  function blocks() {
    const vw = document.documentElement.clientWidth;
    const root = article();
    if (!root) return [];
    const kindOf = el => el.classList.contains("katex-display") ? "formula"
      : el.closest(".cell_output") ? "output" : el.tagName === "PRE" ? "code" : "table";
    const found = [];
    for (const el of root.querySelectorAll(
        ".katex-display, pre, table, .cell_output .output.text_html")) {
      if ((el.tagName === "TABLE" && el.closest(".cell_output .text_html, pre")) ||
          !el.checkVisibility() || !el.getBoundingClientRect().width) continue;
      const kind = kindOf(el);
      const inner = kind === "formula" ? el.querySelector(".katex-html") || el : el;
      const left = inner.getBoundingClientRect().left - inner.scrollLeft;
      const right = left + inner.scrollWidth;
      let seenLeft = 0, seenRight = vw, clip = null;
      for (let a = inner; a && a !== document.documentElement; a = a.parentElement) {
        if (getComputedStyle(a).overflowX === "visible") continue;
        const b = a.getBoundingClientRect();
        const border = parseFloat(getComputedStyle(a).borderLeftWidth) || 0;
        seenLeft = Math.max(seenLeft, b.left + border);
        seenRight = Math.min(seenRight, b.left + border + a.clientWidth);
        clip = clip || a;
      }
      if (right <= seenRight + 1 && left >= seenLeft - 1) continue;
      const s = clip ? getComputedStyle(clip) : null;
      const b = clip ? clip.getBoundingClientRect() : null;
      const label = clip ? clip.getAttribute("aria-label") || "" : "";
      const why = {
        scrolls: !!clip && ["auto", "scroll"].includes(s.overflowX) &&
          clip.scrollWidth > clip.clientWidth + 1,
        inWindow: !!b && b.left >= -1 && b.right <= vw + 1,
        focusable: !!clip && clip.tabIndex >= 0,
        named: !!label.trim(),
        cue: !!clip && (s.backgroundImage !== "none" || (s.maskImage || "none") !== "none" ||
          clip.offsetHeight - clip.clientHeight - parseFloat(s.borderTopWidth) -
          parseFloat(s.borderBottomWidth) > 0),
      };
      found.push({kind, content: Math.round(right - left),
        seen: Math.round(Math.max(0, seenRight - seenLeft)), ...why,
        reachable: Object.values(why).every(Boolean),
        tex: kind === "formula" ? (el.querySelector("annotation") || {}).textContent || "" : "",
        text: (el.innerText || "").trim().slice(0, 60).replace(/\s+/g, " ")});
    }
    return found;
  }

  // punctuation right after an inline formula that starts a line of its own
  function punctuation() {
    const root = article();
    const bad = [];
    if (!root) return bad;
    for (const math of root.querySelectorAll("span.math")) {
      if (!math.checkVisibility() || math.closest(".katex-display")) continue;
      let n = math;
      while (n && n !== root && !n.nextSibling) n = n.parentNode;
      if (!n || n === root) continue;
      n = n.nextSibling;
      const text = n.nodeType === Node.TEXT_NODE ? n
        : document.createTreeWalker(n, NodeFilter.SHOW_TEXT).nextNode();
      if (!text || !/^[.,;:!?)\]}’”…]/.test(text.textContent)) continue;
      const range = document.createRange();
      range.setStart(text, 0);
      range.setEnd(text, 1);
      const mark = range.getBoundingClientRect();
      const lines = math.getClientRects();
      if (lines.length && mark.height &&
          mark.top + mark.height / 2 > lines[lines.length - 1].bottom) {
        const tex = (math.querySelector("annotation") || {}).textContent || "";
        bad.push(`$${tex.slice(0, 50)}$ then ${JSON.stringify(text.textContent.slice(0, 12))}`);
      }
    }
    return bad;
  }

  // in the dark theme: every visible element whose own background is light (relative
  // luminance above 0.4; the dark page is below 0.01), and every image light on average as
  // its CSS filter draws it; {boxes, images} counts what was measured
  async function lightBoxes() {
    const lin = c => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    const lum = (r, g, b) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    scrollTo(0, 0);  // what waits above the window (the skip link) is above the page
    // the theme change's transitions (the buttons' 0.15 s) run out first
    await within(Promise.all(document.getAnimations()
      .filter(a => a instanceof CSSTransition && a.playState === "running")
      .map(a => a.finished.catch(() => null))), 5000);
    const light = [];
    let boxes = 0, images = 0;
    const vw = document.documentElement.clientWidth;
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      // off screen until focused (the skip link), images (below), icons (a mask)
      if (r.width * r.height < 64 || !shown(el) || r.right <= 0 || r.left >= vw ||
          r.bottom + scrollY <= 0) continue;
      const style = getComputedStyle(el);
      if (el.tagName === "IMG" || (style.maskImage || "none") !== "none") continue;
      const m = style.backgroundColor.match(/[\d.]+/g);
      if (!m || (m.length > 3 && +m[3] < 0.5)) continue;
      boxes++;
      const l = lum(+m[0], +m[1], +m[2]);
      if (l > 0.4) light.push(`${name(el)}: background ${style.backgroundColor}`);
    }
    for (const img of document.images) {
      if (!img.checkVisibility() || !img.naturalWidth) continue;
      images++;
      const w = 64, h = Math.max(1, Math.round(64 * img.naturalHeight / img.naturalWidth));
      const ctx = new OffscreenCanvas(w, h).getContext("2d");
      const filter = getComputedStyle(img).filter;
      ctx.filter = filter;
      ctx.fillStyle = getComputedStyle(img).backgroundColor;  // under a transparent PNG
      ctx.fillRect(0, 0, w, h);
      ctx.drawImage(img, 0, 0, w, h);
      const px = ctx.getImageData(0, 0, w, h).data;
      let sum = 0;
      for (let i = 0; i < px.length; i += 4) sum += lum(px[i], px[i + 1], px[i + 2]);
      if (sum / (px.length / 4) > 0.4)
        light.push(`img ${img.currentSrc.split("/").pop()} through filter ${filter}`);
    }
    return {boxes, images, light};
  }

  // printed: every code block within the paper's width, every solution's body shown at once
  // (not fading in: no animation or transition running on it)
  function printed() {
    const root = article();
    const bad = [];
    if (!root) return bad;
    const edge = root.getBoundingClientRect().right;
    root.querySelectorAll("pre").forEach((p, i) => {
      if (p.checkVisibility() && (p.scrollWidth > p.clientWidth + 1 ||
                                  p.getBoundingClientRect().right > edge + 1))
        bad.push(`code cut: pre ${i}: ${p.textContent.trim().slice(0, 50)}`);
    });
    for (const s of root.querySelectorAll(".solution")) {
      const hidden = bodyOf(s).filter(c => !shown(c) || !c.getBoundingClientRect().height ||
                                           c.getAnimations().length);
      if (hidden.length) bad.push(`solution hidden: ${s.id} (${hidden.map(name)})`);
    }
    return bad;
  }

  const bodyOf = el => Array.from(el.children)
    .filter(c => !c.classList.contains("admonition-title"));
  // how many of an admonition's body parts (all but its title) a reader can see, of how many
  function bodyShown(el) {
    const body = bodyOf(el);
    return {parts: body.length, visible: body.filter(c => shown(c) &&
      c.getBoundingClientRect().width > 0 && c.getBoundingClientRect().height > 0).length};
  }

  // the sidebar of a page opened afresh: its current link in sight, and the book's title and
  // search box too whenever the link fits from the sidebar's top (else scrolled no further
  // than the link needs)
  function sidebar() {
    const bar = document.querySelector("div.bd-sidebar");
    const active = bar ? Array.from(bar.querySelectorAll(".bd-docs-nav .active")) : [];
    if (!active.length) return null;
    const box = bar.getBoundingClientRect();
    const inSight = el => { const r = el.getBoundingClientRect();
      return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1; };
    const link = active[active.length - 1];
    const end = link.getBoundingClientRect().bottom - box.top + bar.scrollTop;
    const top = inSight(bar.querySelector(".navbar-brand")) &&
      inSight(bar.querySelector(".search-button-field"));
    const needed = Math.max(0, end - bar.clientHeight);
    return !inSight(link) ? "the current page's link is out of sight"
      : end <= bar.clientHeight && !top ? "scrolled past the title and search box"
      : end > bar.clientHeight && bar.scrollTop > needed + 40 ? "scrolled too far" : null;
  }

  return {seen, overflow, blocks, punctuation, lightBoxes, printed, bodyShown, sidebar};
})();
