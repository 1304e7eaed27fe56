"""The SUDA2 search, compiled: minimal sample uniques found by splitting groups of records.

Key sets are visited depth first, each extending its parent by one higher column, as groups of
records that agree on the set; a node's children are visited highest column first, so every
subset of a set is visited before the set. A group splits by the next column; a record left alone
in its part is unique on the new set. Each record keeps the unique sets found for it so far: a set
holding one of them is never minimal, so the record is *dead* there and in the whole subtree.
Groups are split further only while they hold a live sample unique (a group of records that all
have a twin on the full key set never splits into singletons) and while the set is smaller than
the maximum size; small groups go on as bit masks (below). Every MSU is found (no
subset of it is unique, so its record stays live down to it), so a found set is an MSU exactly
when its values are all present and no other set found for its record lies inside it. Missing
values (code -1) count as a value of their own when grouping.

Fewer records below each split. Every set searched below a group's split by column c lies
within the group's set and the columns c..m-1 (sets grow by higher columns only), so records of
the group agreeing on all of c..m-1 stay together down there and none of them is ever alone:
one of them stands for all (``_collapse``, on cells of c..m-1 numbered once per search by
``_suffix_cells``), and only records alone in their cell are *hopeful* there (a group is
followed only while it holds one). On Adult's 8 keys the root's splits by the 2nd, 3rd and 4th
column start from 5,988, 4,450 and 1,401 of the 18,109 distinct records.

The compiled loops pass arrays whole with row numbers, never slices or tuples of arrays, and
return counts rather than arrays: numba counts references to arrays with atomic operations, and
those cost more than the search itself when they sit in the inner loops.

Small groups. Once a group (records agreeing on a key set) holds at most 62 records, splitting it by a column
need not move records: with each record's "same value in column j" neighbours as a bit mask,
a part is one AND, and a split costs one step per part instead of one per record. The subtree
is visited in the same order as the large groups' (higher columns first) with the same pruning,
and one more: a part that is also the set of records agreeing on its key set less one column
(that column adds nothing: a constant column is the simplest case) holds no MSU below, since
every set there keeps a unique subset without the column.

Threads. The parts of one split hold different records, and everything the search keeps is kept
per record, so the subtrees of a split's parts can be searched in any order, on several threads,
with the same sets found. The top splits (the root's, column by column, and those of a part
holding over half of the records) are made by ``drive``; when their parts hold enough work it
hands them to Python threads running ``run_tasks`` without the GIL, each taking the next part
when done with one (largest first), each with its own scratch and list of sets. The lists are
joined thread by thread before the next split, so a record's sets keep the order they were
found in and the scores are the same numbers whatever the threads did. Python threads rather
than numba's ``prange``: numba's OpenMP workers spin while they wait, which cost more CPU than
the second thread saved on a machine with other work.

Both halves live in this one module on purpose: numba's on-disk cache does not follow calls
across modules, so a compiled caller in another file would keep running an old copy of a callee
edited since (``tests/test_code_shape.py`` forbids compiled calls across modules).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

from hidekit.risk.suda_scores import jit, msu_scores, representatives

MAX_GROUP = 62  # records of a small group: bits of a signed 64-bit word
_DEBRUIJN = 0x03F79D71B4CB0A89
# position of a single set bit b: _BIT_INDEX[(b * _DEBRUIJN) >> 58 & 63]
_BIT_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _BIT_INDEX[(((1 << _i) * _DEBRUIJN) & (2**64 - 1)) >> 58] = _i


@jit
def live(known, r, mask):  # pragma: no cover - compiled
    """Whether record r can still have an MSU inside ``mask``: none of its known unique sets
    (known[r, 1:known[r, 0] + 1]) lies within it (a superset of a unique set is never minimal).
    A record with a twin on the full key set holds the empty set: never live."""
    for i in range(1, known[r, 0] + 1):  # noqa: SIM110 - a plain loop compiles
        if known[r, i] & ~mask == 0:
            return False
    return True


@jit
def emit(out, emitted, r, u, known):  # pragma: no cover - compiled
    """Note that record r is unique on u: in ``out`` (2 × capacity; past it only counted, the
    caller runs again with room) and among its known unique sets. Returns the new count: no
    array is returned, so no reference counting in the hot loops."""
    if emitted < out.shape[1]:
        out[0, emitted] = r
        out[1, emitted] = u
    if known[r, 0] < known.shape[1] - 1:
        known[r, 0] += 1
        known[r, known[r, 0]] = u
    return emitted + 1


@jit
def _lowest(bits):  # pragma: no cover - compiled
    """Index of the lowest set bit."""
    return _BIT_INDEX[((bits & -bits) * _DEBRUIJN) >> 58 & 63]


@jit
def _neighbours(codes, group, row, lo, size, floor, by_code, work):  # pragma: no cover - compiled
    """work[j, x]: the records group[row, lo:lo + size] (as bits) with the value of record x in
    column j > floor."""
    m = codes.shape[1]
    for j in range(floor + 1, m):
        for x in range(size):
            by_code[codes[group[row, lo + x], j]] |= 1 << x
        for x in range(size):
            work[j, x] = by_code[codes[group[row, lo + x], j]]
        for x in range(size):
            by_code[codes[group[row, lo + x], j]] = 0


@jit
def _closed_without_one(work, x, cols, part, full):  # pragma: no cover - compiled
    """Whether the records ``part`` (those agreeing with record x on the columns ``cols``) are
    also all those agreeing with it on ``cols`` less one column: then that column adds
    nothing, and no set holding ``cols`` is minimal."""
    rest = cols
    while rest:
        k = _lowest(rest)
        rest &= rest - 1
        acc = full
        others = cols & ~(1 << k)
        while others:
            acc &= work[_lowest(others), x]
            others &= others - 1
        if acc == part:
            return True
    return False


@jit
def small_subtree(
    codes, group, row, lo, size, w_mask, floor, level, max_size, cells, known, by_code, work, out,
    emitted,
):  # fmt: skip  # pragma: no cover - compiled
    """Unique sets in the subtree of group[row, lo:lo + size] (records agreeing on w_mask,
    extended by columns above ``floor``), as ``suda_search.first_unique_sets`` would find them.
    Returns the new emitted count. ``work``: rows 0..m-1 the "same value" masks, rows m.. the stack.
    (Few arrays, one by one, not in a tuple: numba counts references to each with atomic
    operations on every call.)"""
    m, hopeful = codes.shape[1], 0
    _neighbours(codes, group, row, lo, size, floor, by_code, work)
    for x in range(size):  # the records that may still have an MSU here (``_collapse``)
        if cells[m + row, group[row, lo + x]]:
            hopeful |= 1 << x
    # stack rows m + level..: records, set, column, floor, records left to part (scalars)
    top, bottom, full = m + level, m + level, (1 << size) - 1
    work[top, 0], work[top, 1], work[top, 2], work[top, 3] = full, w_mask, m, floor
    work[top, 4] = 0
    while top >= bottom:
        rest = work[top, 4]
        if rest == 0:  # this column is done: next column
            j = work[top, 2] - 1
            work[top, 2] = j
            if j <= work[top, 3] or top - m >= max_size:
                top -= 1
            else:
                work[top, 4] = work[top, 0]
            continue
        j = work[top, 2]
        x = _lowest(rest)
        part = work[top, 0] & work[j, x]
        work[top, 4] = rest & ~part
        new_mask = work[top, 1] | (1 << j)
        if part == 1 << x:
            r = group[row, lo + x]
            if hopeful >> x & 1 and live(known, r, new_mask):
                emitted = emit(out, emitted, r, new_mask, known)
        elif (
            top - m + 1 < max_size
            and j < m - 1
            and not _closed_without_one(work, x, new_mask >> (floor + 1) << (floor + 1), part, full)
            and part & hopeful != 0
        ):
            top += 1
            work[top, 0], work[top, 1], work[top, 2], work[top, 3] = part, new_mask, m, j
            work[top, 4] = 0
    return emitted


@jit(inline="always")
def _collapse(bufs, level, lo, hi, j, cells, tally):  # pragma: no cover - compiled
    """Write to bufs[-1, lo:] one record of each cell of columns j..m-1 among bufs[level, lo:hi]
    (every set searched below a split by column j lies within the group's set and those
    columns: records agreeing on them stay together and none is ever alone), noting in
    cells[m + level + 1] whether it is *hopeful*, may have an MSU below: alone in its cell and
    hopeful when the group was made (cells[m + level]; a record standing for several is never
    alone). Returns their number. ``tally``: cell stamps and counts, the last stamp at the end
    (no clearing between groups)."""
    m, n, tmp = (cells.shape[0] - 2) // 2, tally.shape[1] - 1, bufs.shape[0] - 1
    serial = tally[0, n] + 1
    tally[0, n] = serial
    for i in range(lo, hi):
        c = cells[j, bufs[level, i]]
        if tally[0, c] != serial:
            tally[0, c], tally[1, c] = serial, 1
        else:
            tally[1, c] += 1
    kept = lo
    for i in range(lo, hi):
        r = bufs[level, i]
        c = cells[j, r]
        if tally[1, c] > 0:  # the first of its cell
            cells[m + level + 1, r] = tally[1, c] == 1 and cells[m + level, r] == 1
            tally[1, c] = 0
            bufs[tmp, kept] = r
            kept += 1
    return kept - lo


@jit(inline="always")
def _split(codes, bufs, src, level, lo, hi, j, counts, touched, starts):  # pragma: no cover
    """Copy bufs[src, lo:hi] into bufs[level + 1, lo:hi] grouped by column j: a counting sort
    over the values present only (``counts`` is all zero before and after). The parts' starts
    go in starts[level]; their number is returned. (Rows by index, not as views: a view costs
    reference counts.)"""
    n_touched = 0
    for i in range(lo, hi):
        c = codes[bufs[src, i], j]
        if counts[c] == 0:
            touched[n_touched] = c
            n_touched += 1
        counts[c] += 1
    pos = lo
    for t in range(n_touched):
        c = touched[t]
        starts[level, t] = pos
        pos += counts[c]
        counts[c] = starts[level, t]
    for i in range(lo, hi):
        r = bufs[src, i]
        c = codes[r, j]
        bufs[level + 1, counts[c]] = r
        counts[c] += 1
    for t in range(n_touched):
        counts[touched[t]] = 0
    starts[level, n_touched] = hi
    return n_touched


@jit
def _seed(codes, cards, candidate, known):  # pragma: no cover - compiled
    """Known unique sets (``live``) start with the single values no other record
    holds, and the empty set for records with a twin."""
    n, m = codes.shape
    for r in range(n):
        known[r, 0] = 1 - candidate[r]
    for j in range(m):
        counts = np.zeros(cards[j], dtype=np.int64)
        for r in range(n):
            counts[codes[r, j]] += 2 - candidate[r]  # a twin class counts as two
        for r in range(n):
            if counts[codes[r, j]] == 1 and known[r, 0] < known.shape[1] - 1:
                known[r, 0] += 1
                known[r, known[r, 0]] = 1 << j


@jit
def _suffix_cells(codes, cards, candidate, limit):  # pragma: no cover - compiled
    """cells[c, r]: the cell of record r on the columns c..m-1 (``_collapse``), numbered from the
    last column back through a table of (cell, value) pairs; where the table would pass
    ``limit`` entries, each record is a cell of its own on the columns left (never wrong, only
    slower). Rows m + level: ``_collapse``'s hopeful flags of the groups at each level, the
    root's (row m) ``candidate``."""
    n, m = codes.shape
    cells = np.empty((2 * m + 2, n), dtype=np.int32)
    cells[m] = candidate
    ids, count, c = np.zeros(n, dtype=np.int64), 1, m - 1
    while c >= 0 and count * cards[c] <= limit:
        table = np.full(count * cards[c], -1, dtype=np.int64)
        count = 0
        for r in range(n):
            k = ids[r] * cards[c] + codes[r, c]
            if table[k] < 0:
                table[k] = count
                count += 1
            ids[r] = table[k]
            cells[c, r] = ids[r]
        c -= 1
    for k in range(c + 1):
        cells[k] = np.arange(n)
    return cells


@jit
def _follow(bufs, level, pos, e, whole, j, m, max_size, cells):  # pragma: no cover
    """Whether the part bufs[level + 1, pos:e] (more than one record) of a group of ``whole``
    records split by column j is searched further: the set may grow, the column split the
    group, and a record of the part is hopeful (``_collapse``)."""
    if level + 1 >= max_size or j >= m - 1 or e - pos >= whole:
        return False
    for i in range(pos, e):  # noqa: SIM110 - a plain loop compiles
        if cells[m + level + 1, bufs[level + 1, i]]:
            return True
    return False


@jit
def _subtree(
    codes, bufs, base, lo, hi, w_mask, floor, cells, known, max_size, small,
    counts, touched, starts, stack, by_code, work, tally, out, emitted,
):  # fmt: skip  # pragma: no cover - compiled
    """Unique sets in the subtree of the group bufs[base, lo:hi] (records agreeing on w_mask,
    extended by columns above ``floor``), depth first; groups of at most ``small`` records go to
    ``small_subtree``. Returns the new emitted count. Writes bufs only within lo:hi."""
    if hi - lo <= small:
        return small_subtree(
            codes, bufs, base, lo, hi - lo, w_mask, floor, base, max_size, cells, known, by_code,
            work, out, emitted,
        )  # fmt: skip
    m = codes.shape[1]
    level = base
    # per level: start, end, set, column, floor, next part, parts (scalars: no tuple copies)
    stack[level, 0], stack[level, 1], stack[level, 2] = lo, hi, w_mask
    stack[level, 3], stack[level, 4] = m, floor
    stack[level, 5] = stack[level, 6] = 0
    while level >= base:
        t = stack[level, 5]
        if t >= stack[level, 6]:  # the parts of this column are done: next column
            j = stack[level, 3] - 1
            stack[level, 3] = j
            if j <= stack[level, 4] or level >= max_size:
                level -= 1
            else:
                lo, hi = stack[level, 0], stack[level, 1]
                kept = _collapse(bufs, level, lo, hi, j, cells, tally)
                stack[level, 6] = _split(
                    codes, bufs, bufs.shape[0] - 1, level, lo, lo + kept, j, counts, touched, starts
                )  # fmt: skip
                stack[level, 5], stack[level, 7] = 0, kept
            continue
        stack[level, 5] = t + 1
        pos, e = starts[level, t], starts[level, t + 1]
        j = stack[level, 3]
        new_mask = stack[level, 2] | (1 << j)
        if e - pos == 1:
            r = bufs[level + 1, pos]
            if cells[m + level + 1, r] and live(known, r, new_mask):
                emitted = emit(out, emitted, r, new_mask, known)
        elif _follow(bufs, level, pos, e, stack[level, 7], j, m, max_size, cells):
            if e - pos <= small:
                emitted = small_subtree(
                    codes, bufs, level + 1, pos, e - pos, new_mask, j, level + 1, max_size,
                    cells, known, by_code, work, out, emitted,
                )  # fmt: skip
            else:
                level += 1
                stack[level, 0], stack[level, 1], stack[level, 2] = pos, e, new_mask
                stack[level, 3], stack[level, 4] = m, j
                stack[level, 5] = stack[level, 6] = 0  # next: split by a column
    return emitted


@intrinsic
def _take_next(typingctx, counter):  # pragma: no cover - compiled
    """counter[0] += 1 as one atomic operation; returns the value before (threads take tasks
    from one list in turn)."""

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], ary, [zero])
        one = context.get_constant(types.int64, 1)
        return builder.atomic_rmw("add", ptr, one, "monotonic")

    return types.int64(counter), codegen


@jit(nogil=True)
def run_tasks(
    slot, counter, tasks, n_tasks, codes, bufs, cells, known, max_size, small,
    counts, touched, starts, stack, by_code, work, tally, outs, emitted,
):  # fmt: skip  # pragma: no cover - compiled
    """Take tasks (level, start, end, set, floor) in turn from tasks[counter[0]:n_tasks] and
    search their subtrees with the scratch of ``slot``, the unique sets going to outs[slot]
    after the emitted[slot] there. Threads may run it at once on one list (the GIL is let go):
    the tasks of one split hold different records and a record's state is its own, so which
    thread searches a task changes nothing found."""
    done = emitted[slot]
    k = _take_next(counter)
    while k < n_tasks:
        done = _subtree(
            codes, bufs, tasks[k, 0], tasks[k, 1], tasks[k, 2], tasks[k, 3], tasks[k, 4],
            cells, known, max_size, small, counts[slot], touched[slot], starts[slot],
            stack[slot], by_code[slot], work[slot], tally[slot], outs[slot], done,
        )  # fmt: skip
        k = _take_next(counter)
    emitted[slot] = done


@jit
def _merge(outs, emitted):  # pragma: no cover - compiled
    """The threads' unique sets (outs[t], t < last) after the driver's (outs[-1]), thread by
    thread: a record's sets keep the order they were found in."""
    d, capacity = outs.shape[0] - 1, outs.shape[2]
    for t in range(d):
        for i in range(max(0, min(emitted[t], capacity - emitted[d]))):
            outs[d, 0, emitted[d] + i], outs[d, 1, emitted[d] + i] = outs[t, 0, i], outs[t, 1, i]
        emitted[d] += emitted[t]
        emitted[t] = 0


@jit
def _node_parts(codes, bufs, node, j, cells, known, max_size, counts, touched, starts, tally,
                out, found, tasks):  # fmt: skip  # pragma: no cover - compiled
    """Split the group ``node`` (level, start, end, set, floor) by column j: a record alone in
    its part is noted unique (at the root without the ``live`` test: the single values no other
    record holds are known from the start), the parts searched further go to ``tasks``, the
    largest first. Returns (number of tasks, found)."""
    m = codes.shape[1]
    level, lo, hi = node[0], node[1], node[2]
    mask, n_tasks = node[3] | (1 << j), 0
    kept = _collapse(bufs, level, lo, hi, j, cells, tally)
    parts = _split(codes, bufs, bufs.shape[0] - 1, level, lo, lo + kept, j, counts, touched, starts)
    for t in range(parts):
        pos, e = starts[level, t], starts[level, t + 1]
        if e - pos == 1:
            r = bufs[level + 1, pos]
            if cells[m + level + 1, r] and (level == 0 or live(known, r, mask)):
                found = emit(out, found, r, mask, known)
        elif _follow(bufs, level, pos, e, kept, j, m, max_size, cells):
            tasks[n_tasks, 0], tasks[n_tasks, 1], tasks[n_tasks, 2] = level + 1, pos, e
            tasks[n_tasks, 3], tasks[n_tasks, 4] = mask, j
            n_tasks += 1
    if n_tasks > 1:
        tasks[:n_tasks] = tasks[:n_tasks][np.argsort(tasks[:n_tasks, 1] - tasks[:n_tasks, 2])]
    return n_tasks, found


@jit
def drive(
    codes, cells, known, max_size, small, share, bufs, nodes, tasks, state, counter,
    counts, touched, starts, stack, by_code, work, tally, outs, emitted,
):  # fmt: skip  # pragma: no cover - compiled
    """Split the top groups (``nodes``: the root, then a part of it holding over half of its
    records) column by column and search their parts; stops and returns True when the parts
    of a split (tasks[counter[0]:state[3]]) are worth sharing among threads (``share`` records
    times columns left or more): run them with ``run_tasks`` on each thread and call again.
    False when the search is done. ``state``: depth, shared, big part, tasks."""
    m, d = codes.shape[1], outs.shape[0] - 1  # the last slot is the driver's: the result
    if state[1]:  # back from a shared split: the threads' sets after ours
        _merge(outs, emitted)
        state[1] = 0
        if state[2]:
            nodes[1, :5], nodes[1, 5], state[0] = tasks[0], m, 1
    while state[0] >= 0:
        depth = state[0]
        j = nodes[depth, 5] - 1
        nodes[depth, 5] = j
        if j <= nodes[depth, 4] or nodes[depth, 0] >= max_size:
            state[0] -= 1
            continue
        n_tasks, emitted[d] = _node_parts(
            codes, bufs, nodes[depth], j, cells, known, max_size, counts[d], touched[d],
            starts[d], tally[d], outs[d], emitted[d], tasks,
        )  # fmt: skip
        size = tasks[0, 2] - tasks[0, 1] if n_tasks > 0 else 0
        big = depth == 0 and 2 * size > nodes[0, 2] and size > small
        counter[0] = 1 if big else 0
        work_left = 0  # records times the columns they may still be split by
        for k in range(counter[0], n_tasks):
            work_left += (tasks[k, 2] - tasks[k, 1]) * (m - 1 - tasks[k, 4])
        if d > 1 and n_tasks - counter[0] > 1 and work_left >= share:
            state[1], state[2], state[3] = 1, big, n_tasks
            return True
        run_tasks(
            d, counter, tasks, n_tasks, codes, bufs, cells, known, max_size, small,
            counts, touched, starts, stack, by_code, work, tally, outs, emitted,
        )  # fmt: skip
        if big:
            nodes[1, :5], nodes[1, 5], state[0] = tasks[0], m, 1
    return False


SMALL_GROUP = 62  # groups up to this size are searched as bit masks (above)
SUFFIX_TABLE = 32  # table entries per record when numbering suffix cells (``_suffix_cells``)
SHARE_WORK = 40_000  # records × columns left in the parts of a split worth sharing
ROOM_PER_RECORD = 4  # unique sets kept per distinct record before the search runs again
THREADS: int | None = None  # threads for the search; None: the cores this process may use
MAX_THREADS = 8
_pool: ThreadPoolExecutor | None = None


def search(
    codes: np.ndarray, full_ids: np.ndarray, full_sizes: np.ndarray, max_size: int, weights
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Score, each key's share of it (records × keys) and MSU counts per size, for codes with -1
    as missing. Records agreeing on every key are searched as one (``full_ids``: their class),
    and the columns in order of falling cardinality (small groups early: less to split); codes
    in the narrowest type, records × keys, so a record's codes share a cache line."""
    n, m = codes.shape
    if m > 62:
        raise ValueError("SUDA2 searches at most 62 key variables")
    cards = codes.max(axis=0, initial=-1) + 2
    order = np.argsort(-cards, kind="stable")
    shifted: np.ndarray = np.empty((full_sizes.size, m), dtype=_code_type(cards.max()))
    reps = representatives(codes, full_ids, order, shifted)
    candidate = full_sizes == 1
    capacity = ROOM_PER_RECORD * reps.size + 16
    while True:  # rarely more than once
        known: np.ndarray = np.zeros((reps.size, 17), dtype=_code_type(2**m - 1))  # count, sets
        out, found = first_unique_sets(
            shifted, cards[order], candidate, known, max_size, SMALL_GROUP, capacity,
            SHARE_WORK, _threads(),
        )  # fmt: skip
        if found <= capacity:
            break
        capacity = found
    weights = np.asarray(weights, dtype=np.float64)
    return msu_scores(out, found, shifted, reps, order, weights, n)


def first_unique_sets(
    codes: np.ndarray, cards: np.ndarray, candidate: np.ndarray, known: np.ndarray,
    max_size: int, small: int, capacity: int, share: int = SHARE_WORK, threads: int = 1,
) -> tuple[np.ndarray, int]:  # fmt: skip
    """(record, set bit mask) for unique sets that hold every MSU, and their number (when over
    ``capacity``, only the first ``capacity`` are kept: run again with more); ``codes`` is
    records × keys, ≥ 0 (missing shifted in); ``known`` records × 17, zero, in the narrowest
    type that holds a set (``live``: small enough to stay in cache). Groups of at most ``small``
    records are searched as bit masks; the parts of a top split with ``share`` work or more
    are searched on ``threads`` threads (Python threads running compiled code without the
    GIL: no thread spins while waiting, and none is started when there is one core)."""
    n, m = codes.shape
    small = min(small, MAX_GROUP)
    bufs = np.empty((m + 2, n), dtype=np.int32)  # a group's records per level; the last: scratch
    bufs[0] = np.arange(n)
    _seed(codes, cards, candidate, known)
    cells = _suffix_cells(codes, cards, candidate, SUFFIX_TABLE * (n + 32))
    # a slot per thread and the last one the driver's (its sets are the result); rows 8 words
    # longer than needed, so that two threads never write to one cache line (they slowed
    # each other down more than the second thread gained)
    slots, c = threads + 1, int(cards.max()) + 10
    scratch = (
        np.zeros((slots, c), np.int64), np.empty((slots, c), np.int64),  # counts, touched
        np.zeros((slots, m + 1, c), np.int64), np.zeros((slots, m + 1, 15), np.int64),
        np.zeros((slots, c), np.int64), np.zeros((slots, 2 * m + 2, max(small, 5) + 8), np.int64),
        np.zeros((slots, 2, n + 1), np.int32),  # cell stamps and counts (``_collapse``)
        np.empty((slots, 2, capacity), np.int64), np.zeros(slots, np.int64),  # outs, emitted
    )  # fmt: skip
    nodes = np.zeros((2, 6), dtype=np.int64)  # level, start, end, set, floor, column
    nodes[0, 2], nodes[0, 4], nodes[0, 5] = n, -1, m
    tasks, state, counter = (
        np.empty((n + 1, 5), np.int64),
        np.zeros(4, np.int64),
        np.zeros(1, np.int64),
    )
    common = (codes, bufs, cells, known, max_size, small)
    while drive(codes, cells, known, max_size, small, share, bufs, nodes, tasks, state,
                counter, *scratch):  # fmt: skip
        args: tuple[Any, ...] = (counter, tasks, int(state[3]), *common, *scratch)
        helpers = [_workers(threads - 1).submit(run_tasks, t, *args) for t in range(1, threads)]
        run_tasks(0, *args)
        for helper in helpers:
            helper.result()
    return scratch[7][-1], int(scratch[8][-1])


def _threads() -> int:
    """``THREADS``, else the cores this process may run on (at most ``MAX_THREADS``)."""
    if THREADS is not None:
        return max(1, THREADS)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, MAX_THREADS))


def _workers(count: int) -> ThreadPoolExecutor:
    """A pool of at least ``count`` threads, kept for the next search (idle threads wait on a
    queue: they take no CPU)."""
    global _pool
    if _pool is None or _pool._max_workers < count:
        _pool = ThreadPoolExecutor(max_workers=count, thread_name_prefix="hidekit-suda2")
    return _pool


def _code_type(top: int) -> type:
    """The narrowest type for values up to ``top`` (codes, sets as bits): few bytes a record.
    Never uint64: numba mixes it with int64 into floats."""
    return (
        np.uint8 if top < 2**8 else np.uint16 if top < 2**16 else np.uint32 if top < 2**32
        else np.int64
    )  # fmt: skip
