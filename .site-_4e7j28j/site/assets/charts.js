// Render every chart embedded by the generator: <div class="ra-chart" data-src="URL">, whose
// spec is a script beside the page's downloads that files it in window.RA_CHARTS under its
// own URL (a script, not a fetch: it loads from file:// too). Vega is bundled locally (no
// CDN). Material's instant navigation swaps pages without a reload, so render on each
// document$.
(function () {
  var loaded = new WeakMap(); // chart div -> its spec (a theme change draws it again)

  // The chart's spec, to done(spec) or fail(error).
  function loadSpec(el, done, fail) {
    if (loaded.has(el)) {
      done(loaded.get(el));
      return;
    }
    var src = el.getAttribute("data-src");
    var script = document.createElement("script");
    script.src = src;
    script.onload = function () {
      var spec = (window.RA_CHARTS || {})[script.src];
      script.remove();
      if (spec) {
        loaded.set(el, spec);
        done(spec);
      } else {
        fail(new Error(src + " holds no chart"));
      }
    };
    script.onerror = function () {
      script.remove();
      fail(new Error(src + " could not be loaded"));
    };
    document.head.appendChild(script);
  }

  function isDark() {
    return document.body.getAttribute("data-md-color-scheme") === "slate";
  }

  // again: also the charts already drawn (a theme change); else only those not started
  function renderCharts(again) {
    document.querySelectorAll("div.ra-chart[data-src]").forEach(
      function (el) {
        if (again !== true && el.getAttribute("data-rendered")) {
          return;
        }
        el.setAttribute("data-rendered", "pending");
        loadSpec(el, function (spec) {
          draw(el, spec);
        }, function (err) {
          el.setAttribute("data-rendered", "error");
          el.textContent = "This chart's data could not be read: " + err;
          console.error(err);
        });
      }
    );
  }

  function draw(el, spec) {
    var options = {
      renderer: "svg",
      theme: isDark() ? "dark" : undefined,
      actions: { export: true, source: false, compiled: false, editor: false },
    };
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
