// Inline formulas wider than their line scroll inside themselves (class svmlib-wide-inline, see
// svmlib-web.css) instead of running past the column edge on a phone. MathJax 3 cannot break an inline
// formula, so after it typesets the page (and on every resize) each inline formula is compared with
// the width of the block it sits in.
(function () {
  function fit() {
    document.querySelectorAll('.bd-article mjx-container:not([display="true"])').forEach(function (c) {
      c.classList.remove('svmlib-wide-inline');
      var block = c.parentElement;
      while (block && getComputedStyle(block).display.indexOf('inline') === 0) block = block.parentElement;
      if (!block) return;
      var style = getComputedStyle(block);
      var room = block.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (c.getBoundingClientRect().width > room + 0.5) c.classList.add('svmlib-wide-inline');
    });
  }
  function whenTypeset() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fit);
    } else {
      setTimeout(whenTypeset, 100);
    }
  }
  var timer = null;
  window.addEventListener('resize', function () { clearTimeout(timer); timer = setTimeout(fit, 150); });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', whenTypeset);
  else whenTypeset();
})();
