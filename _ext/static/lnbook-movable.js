/* Movable figures (lnbook.plotting.Movable). Each <script class="lnbook-movable"> holds the
   frames lnbook computed when the chapter ran; this draws the frame a native range input
   selects (arrow keys, Page keys, Home/End, pointer) as SVG, and writes its readout into an
   aria-live output. The marks are drawn in the data's own units under one transform, so a
   test reads the numbers back from the SVG. Nothing animates: a frame replaces the last at
   once, which is also what prefers-reduced-motion asks for. About 60 lines of our own
   instead of a chart library: three kinds of mark on linear axes is all the book needs. */
"use strict";
(function () {
  var SVG = "http://www.w3.org/2000/svg", W = 320, H = 220, L = 52, R = 16, T = 10, B = 40;
  function add(parent, name, attrs, text) {
    var node = document.createElementNS(name === "svg" || parent.namespaceURI === SVG ? SVG :
      "http://www.w3.org/1999/xhtml", name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return parent.appendChild(node);
  }
  function build(script, n) {
    var spec = JSON.parse(script.textContent), id = "lnb-movable-" + n;
    var x0 = spec.box[0][0], x1 = spec.box[0][1], y0 = spec.box[1][0], y1 = spec.box[1][1];
    var sx = (W - L - R) / (x1 - x0), sy = (H - T - B) / (y1 - y0);
    var px = function (x) { return L + (x - x0) * sx; }, py = function (y) { return T + (y1 - y) * sy; };
    var figure = document.createElement("figure");
    figure.className = "lnb-movable";
    var svg = add(figure, "svg", {viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": spec.alt});
    add(svg, "rect", {class: "lnb-frame", x: L, y: T, width: W - L - R, height: H - T - B});
    spec.xticks.forEach(function (t) {
      add(svg, "line", {class: "lnb-grid", x1: px(t[0]), x2: px(t[0]), y1: T, y2: H - B});
      add(svg, "text", {x: px(t[0]), y: H - B + 14, "text-anchor": "middle"}, t[1]);
    });
    spec.yticks.forEach(function (t) {
      add(svg, "line", {class: "lnb-grid", x1: L, x2: W - R, y1: py(t[0]), y2: py(t[0])});
      add(svg, "text", {x: L - 4, y: py(t[0]) + 4, "text-anchor": "end"}, t[1]);
    });
    add(svg, "text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle"}, spec.xlabel);
    add(svg, "text", {x: 12, y: (T + H - B) / 2, "text-anchor": "middle",
                      transform: "rotate(-90 12 " + (T + H - B) / 2 + ")"}, spec.ylabel);
    add(add(svg, "clipPath", {id: id + "-clip"}), "rect", {x: L, y: T, width: W - L - R, height: H - T - B});
    var plot = add(add(svg, "g", {"clip-path": "url(#" + id + "-clip)"}), "g",
                   {transform: "matrix(" + [sx, 0, 0, -sy, px(0), py(0)].join(" ") + ")"});
    var groups = spec.marks.map(function (m) { return add(plot, "g", {class: "lnb-" + m.kind + " " + m.style}); });
    var row = add(figure, "div", {class: "lnb-control"});
    add(row, "label", {for: id}, spec.param);
    var input = add(row, "input", {type: "range", id: id, min: 0, max: spec.values.length - 1, step: 1});
    var output = add(row, "output", {for: id, "aria-live": "polite"});
    function show(k) {
      spec.marks.forEach(function (m, i) {
        var xy = m.moves ? m.xy[k] : m.xy, g = groups[i];
        var lines = m.kind === "line" ? [xy] : xy.map(function (p) {
          return m.kind === "dots" ? [p, p] : [[p[0], 0], p]; });
        g.replaceChildren();
        lines.forEach(function (line) { add(g, "polyline", {points: line.join(" ")}); });
      });
      input.setAttribute("aria-valuetext", spec.labels[k]);
      output.textContent = spec.readouts[k];
    }
    input.value = spec.start;
    input.addEventListener("input", function () { show(+input.value); });
    show(spec.start);
    script.after(figure);
    // the block around it (the lead-in sentence) shows only where the figure does
    var block = script.closest(".lnb-movable-block");
    if (block) block.classList.add("lnb-on");
  }
  document.querySelectorAll("script.lnbook-movable").forEach(build);
})();
