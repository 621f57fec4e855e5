"""The JSON a chart is made of: Vega-Lite specifications and the rows of their inline data,
as Altair writes them and vega-embed reads them.

A specification is free-form JSON by nature (Vega-Lite's schema has hundreds of object
kinds, and Altair's `to_dict` returns plain dicts), so `VegaSpec` names that JSON object
and says no more. A chart's data rows are narrower: flat records of JSON scalars, `Datum`."""

from __future__ import annotations

from typing import Any, TypeAlias

# A Vega-Lite specification, or a part of one (an encoding, a mark, a config block).
VegaSpec: TypeAlias = dict[str, Any]
JsonScalar: TypeAlias = str | int | float | bool | None
# One row of a chart's inline data: a flat record of JSON scalars.
Datum: TypeAlias = dict[str, JsonScalar]
