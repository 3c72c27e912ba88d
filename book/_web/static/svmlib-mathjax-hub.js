// ipywidgets' embed manager typesets every widget label with MathJax 2's API,
// MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]); the book loads MathJax 3, which has no Hub,
// so each label raised "Cannot read properties of undefined (reading 'Queue')". This gives whatever
// object window.MathJax holds (Sphinx's configuration, then MathJax 3 itself, which replaces it on
// load) a Hub whose Queue typesets the element with MathJax 3's typesetPromise.
(function () {
  "use strict";
  function typeset(job) {
    var element = Array.isArray(job) ? job[2] : null;
    var mathjax = window.MathJax;
    if (element && mathjax && typeof mathjax.typesetPromise === "function") {
      mathjax.typesetPromise([element]).catch(function () {});
    }
  }
  function withHub(value) {
    if (value && typeof value === "object" && !value.Hub) {
      // not enumerable: MathJax 3 reads its configuration from this object's own enumerable keys
      Object.defineProperty(value, "Hub", {value: {Queue: typeset}, configurable: true, enumerable: false});
    }
    return value;
  }
  var current = withHub(window.MathJax);
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    get: function () { return current; },
    set: function (value) { current = withHub(value); },
  });
})();
