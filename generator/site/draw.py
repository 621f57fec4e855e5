"""Stage 4, draw: each export's kernel roofline, and the `Report` the pages read. (A page's
other charts are drawn by its own module from the report, next to the text that explains
them.)"""

from __future__ import annotations

from dataclasses import replace

from generator.pages.page import Report
from generator.site.check import Checked


def draw(checked: Checked) -> Report:
    from generator.charts import roofline_chart  # altair takes a third of a second to import

    analysed = checked.analysed
    loaded = analysed.loaded
    views = [
        replace(view, chart=roofline_chart(view.kernels, view.step, view.match.device, view.title))
        for view in analysed.views
    ]
    return Report(
        catalog=loaded.catalog,
        imported=[item for item, _ in loaded.imported],
        runs=analysed.runs,
        steps=loaded.steps,
        experiments=loaded.experiments,
        ceilings=loaded.ceilings,
        complexity=loaded.complexity,
        references=loaded.references,
        citation=loaded.citation,
        benchmarks=loaded.benchmarks,
        views=views,
        replications=analysed.replications,
        verdicts=analysed.verdicts,
        workloads=analysed.workloads,
        overview=analysed.overview,
        run_findings=checked.run_findings,
        traces=analysed.traces,
        trace_pages=analysed.trace_pages,
    )
