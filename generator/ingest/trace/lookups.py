"""Lookups from recorded shapes: embedding, index_select, embedding_bag and the dense
embedding gradient. Each moves the rows it gathers (op_models.gather_bytes), never its
whole table."""

from __future__ import annotations

from generator.complexity.op_models import TableBatch, gather_bytes, tbe_forward
from generator.ingest.trace.events import OpArgs
from generator.ingest.trace.formulas import Cost, _concrete, _dtype, _is_tensor, _numel, _size


def embedding(args: OpArgs) -> Cost | None:
    """embedding(weight [V, D], indices, ...): one row of D per index, read and written,
    and the indices read; 0 FLOP."""
    if len(args.dims) < 2 or not (_is_tensor(args.dims[0]) and len(args.dims[0]) == 2):
        return None
    (table_rows, width), rows = args.dims[0], _numel(args.dims[1])
    moved = gather_bytes(rows, table_rows, width, _size(args, 0), rows * _size(args, 1))
    return Cost(0.0, moved, "embedding", _dtype(args))


def index_select(args: OpArgs) -> Cost | None:
    """index_select(self, dim, index): the slices the index picks along `dim`."""
    if len(args.dims) < 3 or not _is_tensor(args.dims[0]):
        return None
    table, dim, picks = args.dims[0], _concrete(args, 1), _numel(args.dims[2])
    if not isinstance(dim, int) or not -len(table) <= dim < len(table):
        return None
    per_pick = _numel(table) // table[dim] if table[dim] else 0
    moved = gather_bytes(picks, table[dim], per_pick, _size(args, 0), picks * _size(args, 2))
    return Cost(0.0, moved, "embedding", _dtype(args))


def embedding_bag(args: OpArgs) -> Cost | None:
    """_embedding_bag(weight [V, D], indices, offsets, scale_grad_by_freq, mode, sparse,
    per_sample_weights, include_last_offset, ...): a pooled lookup of one table, by the
    model FBGEMM's table-batched embeddings use (op_models.tbe_forward): each index's row
    read (at most the table's rows, once each) and added into its bag (sum or mean: 1 FLOP
    per element, max: 1 compare; a per-sample weight one multiply more; a mean (mode 1) one
    divide per output element); one row of D written per bag."""
    if len(args.dims) < 3 or not (_is_tensor(args.dims[0]) and len(args.dims[0]) == 2):
        return None
    (table_rows, width), value_size = args.dims[0], _size(args, 0)
    offsets = _numel(args.dims[2])
    weighted = len(args.dims) > 6 and _is_tensor(args.dims[6])
    batch = TableBatch(
        lookups=_numel(args.dims[1]),
        bags=offsets - 1 if _concrete(args, 7) is True else offsets,
        offsets=offsets,
        width=width,
        table_rows=table_rows,
        weight_size=value_size,
        index_size=_size(args, 1),
        offset_size=_size(args, 2),
        output_size=value_size,
        sample_weight_size=_size(args, 6) if weighted else 0,
        mean=_concrete(args, 4) == 1,
    )
    flops, moved = tbe_forward(batch)
    return Cost(flops, moved, "embedding", _dtype(args))


def embedding_backward(args: OpArgs) -> Cost | None:
    """embedding_dense_backward(grad_output [..., D], indices, num_weights, ...): a dense
    [num_weights, D] gradient written whole (zeroed, then one add per gathered element)."""
    if len(args.dims) < 3 or not _is_tensor(args.dims[0]):
        return None
    grad, rows = args.dims[0], _concrete(args, 2)
    if not isinstance(rows, int):
        return None
    size = _size(args, 0)
    moved = _numel(grad) * size + _numel(args.dims[1]) * _size(args, 1) + rows * grad[-1] * size
    return Cost(float(_numel(grad)), float(moved), "embedding", _dtype(args))
