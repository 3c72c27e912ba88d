// Accessibility fixes applied in the page (WCAG 2 AA, checked by tests_browser/test_accessibility.py):
// * the sidebar's collapse toggles (<summary> holding only an icon) get a name;
// * explorer sliders (noUiSlider handles, role="slider") get the name of their label, so a screen reader
//   says what they set (they are already keyboard-operable: focus the handle, arrow keys move it);
// * explorer frames (ipywidgets Image, made in the page) get alt text: what the explorer shows at the
//   sliders' current values;
// * Sphinx's bibliography is role="list" without list items: the role goes.
(function () {
  "use strict";
  function label(el) {
    var box = el.closest(".widget-slider, .widget-hslider, .widget-inline-hbox");
    var text = box && box.querySelector(".widget-label");
    return text ? text.textContent.trim() : "";
  }
  function fix() {
    document.querySelectorAll("summary").forEach(function (s) {
      if (!s.textContent.trim() && !s.getAttribute("aria-label")) s.setAttribute("aria-label", "Show or hide the sub-sections");
    });
    document.querySelectorAll('.noUi-handle[role="slider"]').forEach(function (h) {
      var name = label(h);
      if (name && !h.getAttribute("aria-label")) h.setAttribute("aria-label", name);
    });
    document.querySelectorAll(".jupyter-widgets img.widget-image").forEach(function (img) {
      var explorer = img.closest(".svmlib-static-explorer") || img.closest(".jupyter-widgets");
      var settings = [];
      (explorer ? explorer.querySelectorAll(".widget-slider, .widget-dropdown, .widget-toggle-buttons") : []).forEach(function (w) {
        var name = w.querySelector(".widget-label");
        var value = w.querySelector(".widget-readout, select");
        if (name && name.textContent.trim()) {
          settings.push(name.textContent.trim() + (value ? " = " + (value.value || value.textContent).trim() : ""));
        }
      });
      var cell = img.closest(".cell");
      var caption = cell && cell.querySelector("figcaption, .svmlib-static-note");
      var what = caption ? caption.textContent.replace(/\s+/g, " ").trim() : "Interactive figure of the explorer";
      img.setAttribute("alt", what + (settings.length ? " (shown at " + settings.join(", ") + ")" : ""));
    });
    document.querySelectorAll('.citation-list[role="list"]').forEach(function (l) { l.removeAttribute("role"); });
  }
  function start() {
    fix();
    // widgets render asynchronously and frames change when a slider moves
    new MutationObserver(function () { clearTimeout(start.t); start.t = setTimeout(fix, 200); })
      .observe(document.body, {childList: true, subtree: true, attributes: true, attributeFilter: ["src"]});
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
