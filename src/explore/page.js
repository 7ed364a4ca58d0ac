// toyc explore: function picker, marking values and blocks across columns,
// source-line hovering and folding columns. Structure: see html.rs.
(function () {
  "use strict";
  const picker = document.getElementById("fn-picker");
  const sections = Array.from(document.querySelectorAll("section.fn"));
  // key -> colour class, per function section
  const marks = new Map();
  const COLOURS = 4;

  function current() {
    return sections.find(function (s) { return !s.hidden; }) || null;
  }
  function show(name) {
    sections.forEach(function (s) { s.hidden = s.dataset.fn !== name; });
  }
  function byAttr(root, attr, value) {
    return Array.from(root.querySelectorAll("[" + attr + "]")).filter(function (e) {
      return e.getAttribute(attr) === value;
    });
  }
  // Marks (or unmarks) every element named `key` in the section: tokens and
  // CFG blocks with data-k, and for a block also the rows inside it.
  function toggle(section, key) {
    const id = section.dataset.fn + "\u0000" + key;
    const targets = byAttr(section, "data-k", key).concat(byAttr(section, "data-bk", key));
    if (marks.has(id)) {
      const cls = marks.get(id);
      targets.forEach(function (e) { e.classList.remove(cls); });
      marks.delete(id);
      return;
    }
    const used = new Set(marks.values());
    let n = 0;
    while (n < COLOURS - 1 && used.has("hl" + n)) { n++; }
    const cls = "hl" + n;
    marks.set(id, cls);
    targets.forEach(function (e) { e.classList.add(cls); });
  }
  let hovered = null;
  function hoverLine(section, line) {
    if (hovered !== null) {
      section.querySelectorAll(".hl-line").forEach(function (e) { e.classList.remove("hl-line"); });
    }
    hovered = line;
    if (line !== null) {
      byAttr(section, "data-line", line).forEach(function (e) { e.classList.add("hl-line"); });
    }
  }

  picker.addEventListener("change", function () { show(picker.value); });
  document.addEventListener("click", function (ev) {
    const title = ev.target.closest(".col .title");
    if (title) {
      title.closest(".col").classList.toggle("collapsed");
      return;
    }
    const tok = ev.target.closest("[data-k]");
    const section = current();
    if (tok && section) { toggle(section, tok.getAttribute("data-k")); }
  });
  document.addEventListener("mouseover", function (ev) {
    const section = current();
    if (!section) { return; }
    const row = ev.target.closest("[data-line]");
    const line = row ? row.getAttribute("data-line") : null;
    if (line !== hovered) { hoverLine(section, line); }
  });
  show(picker.value);
  document.body.dataset.ready = "1";
})();
