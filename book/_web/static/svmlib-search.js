// Search-result snippets: Sphinx cuts them from the page's HTML, where math is still TeX source
// ("\(\alpha_i\)"). Replace math elements by an ellipsis before the text is extracted.
(function () {
  function patch() {
    if (typeof Search === "undefined" || Search.svmlibMathless) return;
    const htmlToText = Search.htmlToText;
    Search.htmlToText = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll("span.math, div.math, mjx-container, .MathJax").forEach((el) => {
        el.replaceWith(doc.createTextNode(" … "));
      });
      return htmlToText(doc.documentElement.outerHTML, anchor);
    };
    Search.svmlibMathless = true;
  }
  patch();
  document.addEventListener("DOMContentLoaded", patch);
})();
