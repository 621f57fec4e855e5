// Render every chart embedded by the generator: <div class="ra-chart" data-spec="ID"> plus
// <script type="application/json" id="ID">spec</script>. Vega is bundled locally (no CDN).
// Material's instant navigation swaps pages without a reload, so render on each document$.
(function () {
  function isDark() {
    return document.body.getAttribute("data-md-color-scheme") === "slate";
  }

  // again: also the charts already drawn (a theme change); else only those not started
  function renderCharts(again) {
    document.querySelectorAll("div.ra-chart[data-spec]").forEach(function (el) {
      if (again !== true && el.getAttribute("data-rendered")) {
        return;
      }
      var source = document.getElementById(el.getAttribute("data-spec"));
      var spec;
      try {
        spec = JSON.parse(source.textContent);
      } catch (err) {
        el.setAttribute("data-rendered", "error");
        el.textContent = "This chart's data could not be read: " + err;
        console.error(err);
        return;
      }
      var options = {
        renderer: "svg",
        theme: isDark() ? "dark" : undefined,
        actions: { export: true, source: false, compiled: false, editor: false },
      };
      el.setAttribute("data-rendered", "pending");
      window.vegaEmbed(el, spec, options).then(
        function () {
          // A fixed-width chart (side-by-side panels) on a narrow screen scrolls rather
          // than losing its right edge.
          var svg = el.querySelector("svg");
          if (svg && svg.getBoundingClientRect().width > el.clientWidth) {
            el.style.overflowX = "auto";
          }
          el.setAttribute("data-rendered", "ok");
        },
        function (err) {
          el.setAttribute("data-rendered", "error");
          el.textContent = "This chart could not be drawn: " + err;
          console.error(err);
        }
      );
    });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(renderCharts);
  }
  // Opened from file://, Material's document$ never emits: the page's own load event
  // draws whatever it has not drawn.
  if (document.readyState === "complete") {
    renderCharts();
  } else {
    window.addEventListener("load", renderCharts);
  }
  // Re-draw with the other theme when the reader toggles the palette.
  new MutationObserver(function () {
    renderCharts(true);
  }).observe(document.body, {
    attributes: true,
    attributeFilter: ["data-md-color-scheme"],
  });
})();
