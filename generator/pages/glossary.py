"""The glossary: each term the report uses for a kind of point, a kind of interval or a bound
class, defined once (from the constants the analysis applies), and linked from its first use
on every generated page (`link_terms`, which `downloads.attach_downloads` applies to each
page as it is finished)."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from generator.analysis.bound_words import LATENCY, LATENCY_BOUND_BELOW
from generator.analysis.interval import CALIBRATED, MIN_BLOCKS, NONE, ONE_PROCESS
from generator.analysis.launch import HOST_BOUND, SOURCES
from generator.analysis.number_formats import FORMATS, NumberFormat, tensor_cores_taking
from generator.analysis.points import COUNTED, HEADLINE_RULE, MODELLED, TRACE, WHY
from generator.analysis.thresholds import HOST_BOUND_IDLE_SHARE, LAUNCH_BOUND_SHARE
from generator.catalog import Device, load_catalog
from generator.formatting import percent
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import built_folder

PATH = f"{GENERATED_DIR}/glossary.md"
TITLE = "Glossary"


@dataclass(frozen=True)
class Term:
    anchor: str  # the heading's id on the glossary page
    name: str
    pattern: str  # how a page says it (a regular expression, case-insensitive)
    definition: str


def _first_up(text: str) -> str:
    """The sentence's first letter up, the rest as written (FLOPs, DRAM, Nsight Compute)."""
    return text[:1].upper() + text[1:]


def _share(value: float) -> str:
    return percent(100 * value)


TERMS = (
    Term("point-kind", "kind of point", r"\bkinds? of (roofline )?points?\b",
         "Each configuration can have three roofline points, which differ only in what they "
         "divide: the modelled point, the counted point and the trace point (below). "
         "They share one roof."),
    Term("modelled-point", "modelled point", r"\bmodelled points?\b",
         f"{_first_up(WHY[MODELLED])}. The only point with an interval (its time's)."),
    Term("counted-point", "counted point", r"\bcounted points?\b",
         f"{_first_up(WHY[COUNTED])}. In this report *counted* always means counted by "
         "the hardware's counters; a trace's ops are *costed* (a formula gives their FLOPs)."),
    Term("trace-point", "trace point", r"\btrace points?\b",
         f"{_first_up(WHY[TRACE])}: costed ops, each op's FLOPs and minimal bytes from a "
         "cost formula of its shapes, over one step under torch.profiler (no interval)."),
    Term("headline-bound", "headline bound", r"\bheadline (bound|point)s?\b", HEADLINE_RULE),
    Term("interval-kind", "kind (of an interval)", r"\bits kind\b",
         f"Every interval the report states says its kind: {CALIBRATED}, {ONE_PROCESS}, or "
         f"{NONE} (no interval at all). Only a {CALIBRATED} interval says where a "
         "re-measurement falls, so only it decides a verdict."),
    Term("calibrated", CALIBRATED, r"(?<!not )\bcalibrated\b",
         f"A 95 % re-measurement interval: across at least {MIN_BLOCKS} independent worker "
         "processes (blocks), the range in which another `measure` call should find the step "
         "time 19 times in 20. The Calibration page checks it against re-measurements."),
    Term("within-one-process", ONE_PROCESS, r"\bwithin one process\b",
         "The distribution-free interval of a median over the steps of one process: how "
         "precise that process's median is, not where the next process's falls. Not "
         "calibrated."),
    Term("not-calibrated", NONE, r"\bnot calibrated\b",
         "No interval at all: several runs each timed in one process (their medians are "
         f"shown apart, with how far they disagree), or fewer than {MIN_BLOCKS} blocks. Each "
         "such result names the command that re-measures it in blocks."),
    Term("roof", "roof", r"\broofs?\b",
         "What a step could attain at its arithmetic intensity (AI, FLOPs per byte): "
         "min(peak FLOP/s, AI × memory bandwidth), for its device and its own precision; "
         "*measured* (the GEMM and STREAM ceilings measured on the machine, dashed in charts) "
         "or *datasheet* (the catalog's peak, solid)."),
    Term("ridge", "ridge", r"\bridge( point)?s?\b",
         "The arithmetic intensity where a roof's slope meets its flat top: peak FLOP/s over "
         "bandwidth. Left of it a point is on the memory side, right of it on the compute "
         "side."),
    Term("compute-bound", "compute-bound", r"\bcompute-bound\b",
         "On the compute side of the ridge, at or above "
         f"{_share(LATENCY_BOUND_BELOW)} of the roof: the arithmetic units limit it."),
    Term("memory-bound", "memory-bound", r"\bmemory-bound\b",
         f"On the memory side of the ridge, at or above {_share(LATENCY_BOUND_BELOW)} of the "
         "roof: memory traffic limits it."),
    Term("latency-overhead-bound", f"{LATENCY}-bound", r"\blatency/overhead(-bound)?\b",
         f"Under {_share(LATENCY_BOUND_BELOW)} of its roof, on either side of the ridge: "
         "neither arithmetic nor memory is what it waits for, but kernel launches, "
         "synchronisation, small grids or the host."),
    Term("host-bound-launch", HOST_BOUND, r"\bhost-bound \(launch\)",
         f"A CUDA step whose host took at least {_share(LAUNCH_BOUND_SHARE)} of the GPU's time "
         f"to enqueue it: {SOURCES['timed steps']}, or {SOURCES['profiled step']}, the GPU "
         f"then idle at least {_share(HOST_BOUND_IDLE_SHARE)} of the unprofiled step. The "
         "host, not the GPU, sets its time, and a comparison of such steps measures the host."),
    Term("provisional-reading", "provisional reading", r"\bprovisional reading\b",
         "Beside a verdict that is not testable until re-measured: what the uncalibrated runs "
         "give (each run's own median) and by how much the least favourable pair of runs "
         "clears or misses the bound. It decides nothing."),
)  # fmt: skip

# Inline text a link must not go into: code, links, HTML tags and elements, URLs, attributes.
_PROTECTED = re.compile(
    r"`[^`\n]*`|!?\[[^\]\n]*\]\([^)\n]*\)|<a\b.*?</a>|<code\b.*?</code>"
    r"|<p class=\"admonition-title\">.*?</p>|<summary>.*?</summary>|<h\d.*?</h\d>|<[^>\n]+>"
    r"|https?://[^\s)>\]]+|\{[^}\n]*\}"
)
_ANY = re.compile(
    "|".join(f"(?P<t{i}>{t.pattern})" for i, t in enumerate(TERMS)), flags=re.IGNORECASE
)
_SKIP_LINE = re.compile(r"^\s*(#|!!!|\?\?\?|```)")


def link_terms(markdown: str, page: str) -> str:
    """The page's Markdown with the first use of each glossary term linked to its entry:
    in prose, list items and table cells, never in headings, front matter, code, HTML, an
    admonition's title or an existing link."""
    if page == PATH:
        return markdown
    target = posixpath.relpath(PATH, posixpath.dirname(page) or ".")
    # raw HTML's links are not rewritten by MkDocs: relative to the folder it serves from
    built = posixpath.relpath(built_folder(PATH), built_folder(page)) + "/"
    seen: set[int] = set()
    lines = markdown.split("\n")
    fenced = in_pre = False
    start = 0
    if lines and lines[0] == "---":  # front matter
        start = next((i + 1 for i, line in enumerate(lines[1:], 1) if line == "---"), 0)
    for index in range(start, len(lines)):
        line = lines[index]
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if "<pre" in line:
            in_pre = "</pre>" not in line
            continue
        if in_pre:
            in_pre = "</pre>" not in line
            continue
        if fenced or _SKIP_LINE.match(line):
            continue
        html = line.lstrip().startswith("<")
        lines[index] = _link_line(line, built if html else target, seen, html)
        if len(seen) == len(TERMS):
            break
    return "\n".join(lines)


def _link_line(line: str, target: str, seen: set[int], html: bool) -> str:
    out, position = [], 0
    for protected in [*_PROTECTED.finditer(line), None]:
        end = protected.start() if protected else len(line)
        out.append(_link_text(line[position:end], target, seen, html))
        if protected:
            out.append(protected.group(0))
            position = protected.end()
    return "".join(out)


def _link_text(text: str, target: str, seen: set[int], html: bool) -> str:
    def link(match: re.Match[str]) -> str:
        number = int(next(k for k, v in match.groupdict().items() if v is not None)[1:])
        if number in seen:
            return match.group(0)
        seen.add(number)
        anchor = f"{target}#{TERMS[number].anchor}"
        if html:
            return f'<a href="{anchor}">{match.group(0)}</a>'
        return f"[{match.group(0)}]({anchor})"

    return _ANY.sub(link, text)


def power(value: float) -> str:
    """A value as a reader reads a range: 65,504 in full, 3.40 × 10^38 in powers of ten."""
    if 1e-3 <= value < 1e6:
        return f"{value:,.0f}" if value == int(value) else f"{value:g}"
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa} × 10<sup>{int(exponent)}</sup>"


def _format_row(form: NumberFormat, devices: tuple[Device, ...]) -> str:
    cells = (
        f"{form.name}: {form.what}",
        f"{form.sign_bits} + {form.exponent_bits} + {form.mantissa_bits} = {form.bits}",
        power(form.largest_finite),
        f"{power(form.smallest_normal)} (2<sup>{form.smallest_normal_exponent}</sup>)",
        f"{form.decimal_digits:.1f}", tensor_cores_taking(form.tensor_peak, devices),
    )  # fmt: skip
    return "| " + " | ".join(cells) + " |"


def number_formats_section(devices: tuple[Device, ...]) -> str:
    """The floating-point formats' bits and ranges (seed 004's Table 3, its ranges computed
    from the bits by analysis/number_formats.py) and the tensor cores that take each."""
    rows = "\n".join(_format_row(form, devices) for form in FORMATS)
    return (
        "## number formats {#number-formats}\n\n"
        "The floating-point formats a training or inference step runs in. The bits are those "
        "M. Kuo and A. Gurjar's A100 lab report (2025) lists in its Table 3; the range "
        "columns are computed from them: with bias = 2<sup>exponent bits − 1</sup> − 1, the "
        "largest finite value is (2 − 2<sup>−mantissa bits</sup>) × 2<sup>bias</sup> and the "
        "smallest normal 2<sup>1 − bias</sup> (FP8 E4M3 has no infinities: its top exponent "
        "holds numbers, only its all-ones pattern is NaN, so its largest is 448). The tensor "
        "cores column reads the hardware catalog: the oldest NVIDIA architecture one of whose "
        "GPUs states a dense tensor peak of the format. INT8 and INT4 are integers: no "
        "exponent, no mantissa.\n\n"
        "| format | bits: sign + exponent + mantissa | largest finite | smallest normal | "
        "decimal digits | tensor cores that take it |\n"
        "|---|---|---|---|---|---|\n"
        f"{rows}\n"
    )


def glossary_page(devices: tuple[Device, ...] | None = None) -> Page:
    entries = "\n\n".join(
        f"## {term.name} {{#{term.anchor}}}\n\n{term.definition}" for term in TERMS
    )
    formats = number_formats_section(devices if devices is not None else load_catalog())
    markdown = (
        f"# {TITLE}\n\nThe words the report uses for its points, its intervals and its bound "
        "classes, each as the code that computes it applies it. Every generated page links "
        f"a term's first use to its entry here. Last, the number formats the steps run in."
        f"\n\n{entries}\n\n{formats}"
    )
    return Page(PATH, TITLE, markdown)


def _render(report: Report) -> list[Page]:
    return [glossary_page(report.catalog)]


PAGE = Generated(None, _render)
