"""Stage 4, draw: each export's kernel roofline and page (through the content-keyed cache,
`site/page_cache.py`), the `Report` the pages read, and each run's page through its cache
(`site/run_page_cache.py`). (A page's other charts are drawn by its own module from the
report, next to the text that explains them.)"""

from __future__ import annotations

from dataclasses import replace

from generator.pages.page import Report
from generator.site.check import Checked
from generator.site.page_cache import drawn_measurements
from generator.site.run_page_cache import cached_run_pages


def draw(checked: Checked) -> Report:
    analysed = checked.analysed
    loaded = analysed.loaded
    views, measurement_pages = drawn_measurements(analysed.views, loaded.context)
    report = Report(
        catalog=loaded.catalog,
        imported=[item for item, _ in loaded.imported],
        runs=analysed.runs,
        steps=loaded.steps,
        experiments=loaded.experiments,
        ceilings=loaded.ceilings,
        complexity=loaded.complexity,
        references=loaded.references,
        contradictions=loaded.contradictions,
        audit=loaded.audit,
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
        measurement_pages=measurement_pages,
        step_verdicts=analysed.step_verdicts,
        results=analysed.results,
        points=analysed.points,
        odd=analysed.odd,
        seed_predictions=analysed.seed_predictions,
        seed_claims=analysed.seed_claims,
        utilisation_beside=analysed.utilisation_beside,
        run_folders={run: loaded.measurements / "runs" / run for run in loaded.runs["run_id"]},
        records=loaded.records,
        calibrations=loaded.calibrations,
        kinds=loaded.kinds,
        captures=analysed.captures,
        pending=loaded.pending,
    )
    return replace(report, run_pages=cached_run_pages(report, loaded.context.store))
