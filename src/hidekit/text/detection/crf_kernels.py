"""The compiled (numba) kernels of CRF decoding: state scores from the word table and the
recognizer hits, crfsuite's Viterbi and scaled forward-backward, and the spans of one document
(``_decode_document``, one compiled call per document). ``crf_decode`` builds their inputs.

They are all in this one module on purpose: numba's on-disk cache checks only the source file of
the function it compiled, so a kernel calling a kernel of another file would keep running the
other file's old code after an edit. Long loops are cut into small kernels that the compiler
inlines (the sums are added in the same order, so the scores stay crfsuite's to the bit).
"""

from __future__ import annotations

import math

import numba
import numpy as np


def _jit(fn):
    """``numba.njit`` with an on-disk cache when numba has somewhere to write it."""
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except Exception:  # no writable cache location (numba raises RuntimeError at decoration)
        return numba.njit(cache=False, nogil=True)(fn)


# --------------------------------------------------------------------------- compiled kernels
# The word table (WordTable): one row per distinct token text, -1 where the model has no weight.
# OWN[w, :]: the sum of the W rows of the word's own features (at most 14), added in their order
# from zeros: a token's scores start from it (the same bits as adding the rows one by one)
# NEAR[w, k, :]: what word w gives a neighbour at offset (-2, -1, +1, +2)[k] ("-1w=...", "-1ss=...")
# CLUS[w, k, :]: its word-cluster features seen from offset (-1, 0, +1)[k] ("-1c1=...", "-1c2=...")
# LH, BG, LWID, DFH, DFM1: "lh=<lower>", its id in the word-pair table, the id of its lower-case
# form (document-level grouping), "dfh=<lower>", "df-1=<lower>"
# FLAGS bits: 1 the text is in ".!?" (may end a sentence), 2 it starts upper-case, 4 it is a
# candidate for the document-level features (alphabetic, capitalized, 3 letters or more)


@_jit
def _bigram(keys, vals, col, nb, a, b):
    """The attribute id of the word pair (a, b) in column col of vals, or -1."""
    if a < 0 or b < 0:
        return -1
    key = a * nb + b
    k = np.searchsorted(keys, key)
    if k < keys.shape[0] and keys[k] == key:
        return vals[k, col]
    return -1


@_jit
def _exp_array(x, out):
    """math.exp (the C library's exp, which crfsuite calls; numpy's differs in the last bit)."""
    for i in range(x.size):
        out.flat[i] = math.exp(x.flat[i])


@_jit
def _viterbi(S, s0, s1, T, gap, back, tags):
    """crfsuite's Viterbi on rows s0:s1 of S; tags[s0:s1] gets the best path, the first best
    previous label on ties. back: work space, rows s0:s1 used.

    gap[a, i] <= min over j of T[a, j] - T[i, j] (``transition_gaps``): a previous label i whose
    score trails the best one, a, by more than gap[a, i] (less a margin far above rounding) is
    beaten by a at every label j, so it is never the best nor the first best: it is skipped (the
    same path, bit for bit; a gap of -inf skips nothing)."""
    L = T.shape[0]
    prev = np.empty(L)
    best = np.empty(L)
    keep = np.empty(L, np.int64)
    for j in range(L):
        prev[j] = S[s0, j]
    for t in range(s0 + 1, s1):
        a = 0
        for i in range(1, L):
            if prev[a] < prev[i]:
                a = i
        pa = prev[a]
        nk = 0
        for i in range(L):
            margin = 1e-9 * (abs(pa) + abs(prev[i]))
            if i == a or not (prev[i] - pa < gap[a, i] - margin):
                keep[nk] = i
                nk += 1
        # for every label j at once: the best previous label i (ascending i, strict: the first)
        for j in range(L):
            best[j] = -1.7976931348623157e308
            back[t, j] = 0
        for q in range(nk):
            i = keep[q]
            p = prev[i]
            for j in range(L):
                v = p + T[i, j]
                if best[j] < v:
                    best[j] = v
                    back[t, j] = i
        for j in range(L):
            prev[j] = best[j] + S[t, j]
    top = -1.7976931348623157e308
    last = 0
    for i in range(L):
        if top < prev[i]:
            top = prev[i]
            last = i
    tags[s1 - 1] = last
    for t in range(s1 - 2, s0 - 1, -1):
        tags[t] = back[t + 1, tags[t + 1]]


@_jit
def _marginals(E, s0, s1, expT, expTT, alpha, beta, scale, P):
    """crfsuite's scaled forward-backward on rows s0:s1 of E = exp(S); P[s0:s1] gets
    P(y_t = l | x) = alpha_t(l) beta_t(l) / scale_t, computed in crfsuite's order of operations.

    Each sum over the previous (next) labels is added from 0.0 in ascending order for every
    label at once, four terms per pass over a work row (``_weighted_sum``): the same additions in the
    same order as one term per pass (the same bits), with a quarter of the row's loads and
    stores, which the compiler vectorizes."""
    L = expT.shape[0]
    row = np.empty(L)
    acc = np.empty(L)
    total = 0.0
    for j in range(L):
        alpha[s0, j] = E[s0, j]
        total += alpha[s0, j]
    scale[s0] = 1.0 / total if total != 0.0 else 1.0
    for j in range(L):
        alpha[s0, j] *= scale[s0]
    for t in range(s0 + 1, s1):
        # alpha[t, j] = sum over i (ascending) of alpha[t - 1, i] * expT[i, j]
        _weighted_sum(alpha[t - 1], expT, acc)
        Et = E[t]
        total = 0.0
        for j in range(L):
            acc[j] *= Et[j]
            total += acc[j]
        scale[t] = 1.0 / total if total != 0.0 else 1.0
        cur = alpha[t]
        for j in range(L):
            cur[j] = acc[j] * scale[t]
    for j in range(L):
        beta[s1 - 1, j] = scale[s1 - 1]
    for t in range(s1 - 2, s0 - 1, -1):
        for j in range(L):
            row[j] = beta[t + 1, j] * E[t + 1, j]
        # beta[t, i] = sum over j (ascending) of expT[i, j] * row[j]
        _weighted_sum(row, expTT, acc)
        cur = beta[t]
        for i in range(L):
            cur[i] = acc[i] * scale[t]
    for t in range(s0, s1):
        for j in range(L):
            P[t, j] = alpha[t, j] * beta[t, j] / scale[t]


@_jit
def _weighted_sum(x, M, acc):
    """acc[j] = sum over i (ascending, from 0.0) of x[i] * M[i, j], for every j: each term
    is x[i] * M[i, j] (one rounding), added in order, so the bits are those of the plain loop;
    four terms per pass over ``acc``."""
    n, L = M.shape
    n4 = n - n % 4
    for j in range(L):
        acc[j] = 0.0
    for i in range(0, n4, 4):
        a0, a1, a2, a3 = x[i], x[i + 1], x[i + 2], x[i + 3]
        for j in range(L):
            acc[j] = (((acc[j] + a0 * M[i, j]) + a1 * M[i + 1, j]) + a2 * M[i + 2, j]) + a3 * M[
                i + 3, j
            ]
    for i in range(n4, n):
        a = x[i]
        for j in range(L):
            acc[j] += a * M[i, j]


@_jit
def _tag_sequences(S, seq_ptr, m, T, expT, expTT, gap, tags, P):
    """Viterbi tags and marginals of the sequences seq_ptr[k]:seq_ptr[k + 1] (k < m) of S."""
    n, L = S.shape
    E = np.empty((n, L))
    _exp_array(S, E)
    back = np.empty((n, L), np.int32)
    alpha = np.empty((n, L))
    beta = np.empty((n, L))
    scale = np.empty(n)
    for k in range(m):
        s0, s1 = seq_ptr[k], seq_ptr[k + 1]
        if s1 > s0:
            _viterbi(S, s0, s1, T, gap, back, tags)
            _marginals(E, s0, s1, expT, expTT, alpha, beta, scale, P)


@_jit
def _hit_tokens(starts, ends, h_start, h_end):
    """For each token, the recognizer hits covering it (in hit order) and the token's place in
    each (0 first, 1 later): a CSR table (ptr, hit, pos). As features._token_features."""
    n = starts.shape[0]
    nh = h_start.shape[0]
    ptr = np.zeros(n + 1, np.int64)
    first = np.empty(nh, np.int64)
    for h in range(nh):
        i = np.searchsorted(starts, h_start[h], side="right") - 1
        if i < 0:
            i = 0
        first[h] = i
        while i < n and starts[i] < h_end[h]:
            if ends[i] > h_start[h]:
                ptr[i + 1] += 1
            i += 1
    for i in range(n):
        ptr[i + 1] += ptr[i]
    fill = ptr[:n].copy()
    hit = np.empty(ptr[n], np.int64)
    pos = np.empty(ptr[n], np.int8)
    for h in range(nh):
        i = first[h]
        p = 0
        while i < n and starts[i] < h_end[h]:
            if ends[i] > h_start[h]:
                hit[fill[i]] = h
                pos[fill[i]] = p
                fill[i] += 1
                p = 1
            i += 1
    return ptr, hit, pos


@_jit
def _document_level(wids, gc, lwid, dfh, dfm1, flags, ptr, hit, h_lab, dn, dfm1_pad, drl):
    """features._document_level as ids: per token (n, 3 + labels), -1 where nothing.

    Mentions are grouped by lower-case form; each gets the group's "dn=", "dfh=", "df-1=" and,
    in label-name order, "drl=" for the recognizer labels covering the group's *other* mentions.
    """
    n = wids.shape[0]
    nlab = drl.shape[0]
    out = np.full((n, 3 + nlab), -1, np.int32)
    line_head = np.empty(n, np.int64)
    h = 0
    ne = 0
    for i in range(n):
        if gc[i] == 0:
            h = i
        line_head[i] = h
        if flags[wids[i]] & 4:
            ne += 1
    el = np.empty(ne, np.int64)
    keys = np.empty(ne, np.int64)
    ne = 0
    for i in range(n):
        if flags[wids[i]] & 4:
            el[ne] = i
            keys[ne] = lwid[wids[i]]
            ne += 1
    order = np.argsort(keys, kind="mergesort")
    counts = np.zeros(max(nlab, 1), np.int64)
    mark = np.zeros(max(nlab, 1), np.bool_)
    g0 = 0
    while g0 < ne:
        g1 = g0 + 1
        while g1 < ne and keys[order[g1]] == keys[order[g0]]:
            g1 += 1
        first = el[order[g0]]
        c0 = dn[min(g1 - g0, 3) - 1]
        c1 = dfh[wids[line_head[first]]] if gc[first] != 0 else -1
        c2 = dfm1[wids[first - 1]] if first > 0 else dfm1_pad
        counts[:] = 0
        for q in range(g0, g1):
            j = el[order[q]]
            for e in range(ptr[j], ptr[j + 1]):
                lab = h_lab[hit[e]]
                if lab >= 0 and not mark[lab]:
                    mark[lab] = True
                    counts[lab] += 1
            for e in range(ptr[j], ptr[j + 1]):
                lab = h_lab[hit[e]]
                if lab >= 0:
                    mark[lab] = False
        for q in range(g0, g1):
            j = el[order[q]]
            out[j, 0] = c0
            out[j, 1] = c1
            out[j, 2] = c2
            for e in range(ptr[j], ptr[j + 1]):
                lab = h_lab[hit[e]]
                if lab >= 0:
                    mark[lab] = True
            k = 3
            for lab in range(nlab):
                if counts[lab] > (1 if mark[lab] else 0):
                    out[j, k] = drl[lab]
                    k += 1
            for e in range(ptr[j], ptr[j + 1]):
                lab = h_lab[hit[e]]
                if lab >= 0:
                    mark[lab] = False
        g0 = g1
    return out


@_jit
def _whitespace_classes(starts, ends, nl, gc):
    """gc[i]: 0 newline, 1 space, 2 nothing between token i-1 and i; gc[0] = gc[n] = 0."""
    n = starts.shape[0]
    gc[0] = 0
    gc[n] = 0
    q = 0
    for i in range(1, n):
        while q < nl.shape[0] and nl[q] < ends[i - 1]:
            q += 1
        if q < nl.shape[0] and nl[q] < starts[i]:
            gc[i] = 0
        elif starts[i] == ends[i - 1]:
            gc[i] = 2
        else:
            gc[i] = 1


@_jit
def _push(buf, k, a):
    """Row ``a`` of W listed at ``buf[k]`` when the model has it (a >= 0); the new count."""
    if a >= 0:
        buf[k] = a
        return k + 1
    return k


@_jit
def _word_rows(buf, k, i, gc, ws_b, ws_a, lp, lh, head, pos):
    """Token i's whitespace before and after, its place in the line ("lp=") and the line's
    first word ("lh=", from the second token of a line on): their W rows listed in ``buf``
    from ``k`` on; returns the new count (as do the other collectors below)."""
    k = _push(buf, k, ws_b[gc[i]])
    k = _push(buf, k, ws_a[gc[i + 1]])
    k = _push(buf, k, lp[pos if pos < 4 else 4])
    return _push(buf, k, lh[head]) if pos else k


@_jit
def _neighbour_rows(buf, k, i, wids, near, pad, bg_keys, bg_vals, nb, bg):
    """What the words at offsets -2, -1, +1, +2 give token i (or the padding features past
    the ends), then the word pairs (i-1, i) and (i, i+1)."""
    n = wids.shape[0]
    w = wids[i]
    for d in range(4):
        j = i + (-2, -1, 1, 2)[d]
        if 0 <= j < n:
            for r in range(near.shape[2]):
                k = _push(buf, k, near[wids[j], d, r])
        else:
            k = _push(buf, k, pad[d])
    if i > 0:
        k = _push(buf, k, _bigram(bg_keys, bg_vals, 0, nb, bg[wids[i - 1]], bg[w]))
    if i + 1 < n:
        k = _push(buf, k, _bigram(bg_keys, bg_vals, 1, nb, bg[w], bg[wids[i + 1]]))
    return k


@_jit
def _hit_rows(buf, k, i, n, ptr, hit, hpos, h_ids):
    """Recognizer hits: "r=", "rl=" of the token's, "-1rl=" / "1rl=" of its neighbours'."""
    for e in range(ptr[i], ptr[i + 1]):
        for c in range(2):
            k = _push(buf, k, h_ids[hit[e], hpos[e], c])
    if i > 0:
        for e in range(ptr[i - 1], ptr[i]):
            k = _push(buf, k, h_ids[hit[e], hpos[e], 2])
    if i + 1 < n:
        for e in range(ptr[i + 1], ptr[i + 2]):
            k = _push(buf, k, h_ids[hit[e], hpos[e], 3])
    return k


@_jit
def _cluster_rows(buf, k, i, wids, clus):
    """The word-cluster features of tokens i-1, i, i+1 seen from token i."""
    n = wids.shape[0]
    for d in range(3):
        j = i + d - 1
        if 0 <= j < n:
            for r in range(clus.shape[2]):
                k = _push(buf, k, clus[wids[j], d, r])
    return k


@_jit
def _sum_rows(S, t, own, w, W, buf, k):
    """S[t, j] = own[w, j] + W[buf[0], j] + W[buf[1], j] + … for every j, added left to right:
    four rows per pass over the row (the same additions in the same order as one row per pass,
    so the same bits), which the compiler vectorizes."""
    L = S.shape[1]
    for j in range(L):
        S[t, j] = own[w, j]
    k4 = k - k % 4
    for q in range(0, k4, 4):
        a0, a1, a2, a3 = buf[q], buf[q + 1], buf[q + 2], buf[q + 3]
        for j in range(L):
            S[t, j] = (((S[t, j] + W[a0, j]) + W[a1, j]) + W[a2, j]) + W[a3, j]
    for q in range(k4, k):
        a = buf[q]
        for j in range(L):
            S[t, j] += W[a, j]


@_jit
def _state_scores(model, words, wids, starts, ends, nl, h_start, h_end, h_ids, h_lab, S, gc):
    """Per-token label scores, adding the W rows in the order in which
    features.document_features lists the features (so the sums are crfsuite's to the bit):
    a token's row starts from its word's own sum (``OWN``), then the rows of its other
    features are listed in that order and summed (``_sum_rows``).

    Also fills gc (0 newline, 1 space, 2 nothing between token i-1 and i; gc[0] = gc[n] = 0).
    """
    W = model[0]
    ws_b, ws_a, lp, pad = model[3], model[4], model[5], model[6]
    bg_keys, bg_vals, nb = model[7], model[8], model[9]
    dn, dfm1_pad, drl = model[10], model[11], model[12]
    document, clusters = model[13], model[14]
    own, near, lh, bg, clus, flags, lwid, dfh, dfm1 = words
    n = wids.shape[0]
    _whitespace_classes(starts, ends, nl, gc)
    ptr, hit, hpos = _hit_tokens(starts, ends, h_start, h_end)
    if document:
        doc = _document_level(wids, gc, lwid, dfh, dfm1, flags, ptr, hit, h_lab, dn, dfm1_pad, drl)
    else:
        doc = np.empty((n, 0), np.int32)
    most = 0  # the most hits covering one token: bounds the rows one token can list
    for i in range(n):
        most = max(most, ptr[i + 1] - ptr[i])
    buf = np.empty(
        8 + 4 * (near.shape[2] + 1) + 4 * most + doc.shape[1] + 3 * clus.shape[2], np.int64
    )
    head = -1
    pos = 0
    for i in range(n):
        w = wids[i]
        if gc[i] == 0:
            head = w
            pos = 0
        k = _word_rows(buf, 0, i, gc, ws_b, ws_a, lp, lh, head, pos)
        pos += 1
        k = _neighbour_rows(buf, k, i, wids, near, pad, bg_keys, bg_vals, nb, bg)
        k = _hit_rows(buf, k, i, n, ptr, hit, hpos, h_ids)
        for d in range(doc.shape[1]):
            k = _push(buf, k, doc[i, d])
        if clusters:
            k = _cluster_rows(buf, k, i, wids, clus)
        _sum_rows(S, i, own, w, W, buf, k)


@_jit
def _sequences(wids, gc, flags, seq_ptr):
    """features.sequences: a newline ends a CRF sequence; one longer than 40 tokens is also cut
    before a capitalized token that follows ".", "!" or "?" and a space. Returns their number."""
    n = wids.shape[0]
    m = 0
    cur = 0
    for i in range(n):
        if cur and (
            gc[i] == 0
            or (
                (flags[wids[i - 1]] & 1) != 0
                and gc[i] != 2
                and cur > 40
                and (flags[wids[i]] & 2) != 0
            )
        ):
            seq_ptr[m] = i - cur
            m += 1
            cur = 0
        cur += 1
    if cur:
        seq_ptr[m] = n - cur
        m += 1
    seq_ptr[m] = n
    return m


@_jit
def _crf_runs(seq_ptr, m, tags, P, tag_kind, tag_ent, ent_itag, out_tok, out_lab, out_score):
    """CRF spans: runs of a B-/I- tag and the I- tags of its label, inside one sequence; score =
    the smallest marginal of the run's tags. Returns how many were written."""
    n_out = 0
    for q in range(m):
        s0, s1 = seq_ptr[q], seq_ptr[q + 1]
        k = s0
        while k < s1:
            if tag_kind[tags[k]] == 0:
                k += 1
                continue
            e = tag_ent[tags[k]]
            it = ent_itag[e]
            j = k + 1
            while j < s1 and tags[j] == it:
                j += 1
            score = P[k, tags[k]]
            for r in range(k + 1, j):
                if P[r, tags[r]] < score:
                    score = P[r, tags[r]]
            out_tok[n_out, 0] = k
            out_tok[n_out, 1] = j - 1
            out_lab[n_out] = e
            out_score[n_out] = score
            n_out += 1
            k = j
    return n_out


@_jit
def _recall_runs(seq_ptr, m, likely, pho, P, phi_order, phi_ent, n_rent, rec_tok, rec_lab,
                 rec_score):  # fmt: skip
    """Recall spans: runs of ``likely`` tokens inside one sequence; label = the one with most
    marginal mass summed over the run (first in name order on ties); score = the smallest
    1 - P(O). Returns how many were written."""
    mass = np.zeros(max(n_rent, 1))
    n_rec = 0
    for q in range(m):
        s0, s1 = seq_ptr[q], seq_ptr[q + 1]
        k = s0
        while k < s1:
            if not likely[k]:
                k += 1
                continue
            j = k
            while j < s1 and likely[j]:
                j += 1
            mass[:] = 0.0
            for r in range(k, j):
                for z in range(phi_order.shape[0]):
                    mass[phi_ent[z]] += P[r, phi_order[z]]
            best = 0
            for e in range(1, n_rent):
                if mass[e] > mass[best]:
                    best = e
            score = pho[k]
            for r in range(k + 1, j):
                if pho[r] < score:
                    score = pho[r]
            rec_tok[n_rec, 0] = k
            rec_tok[n_rec, 1] = j - 1
            rec_lab[n_rec] = best
            rec_score[n_rec] = score
            n_rec += 1
            k = j
    return n_rec


@_jit
def _decode_document(model, words, wids, starts, ends, nl, h_start, h_end, h_ids, h_lab,
                     recall, threshold):  # fmt: skip
    """Scores, tags, marginals and spans of one document.

    CRF spans: runs of a B-/I- tag and the I- tags of its label; score = the smallest marginal of
    the run's tags. Recall spans (with ``recall``): runs of O tags whose PHI probability 1 - P(O)
    reaches ``threshold``; label = the one with most marginal mass summed over the run (tags in
    name order, first of the labels in name order on ties); score = the smallest 1 - P(O).
    Returns, for each kind, (first token, last token) pairs, label indices and scores.
    """
    W, T, expT, expTT, gap = model[0], model[1], model[2], model[22], model[23]
    tag_kind, tag_ent, ent_itag, o_tag = model[15], model[16], model[17], model[18]
    phi_order, phi_ent, n_rent = model[19], model[20], model[21]
    flags = words[5]
    n = wids.shape[0]
    L = W.shape[1]
    S = np.zeros((n, L))
    gc = np.empty(n + 1, np.int8)
    _state_scores(model, words, wids, starts, ends, nl, h_start, h_end, h_ids, h_lab, S, gc)
    seq_ptr = np.empty(n + 1, np.int64)
    m = _sequences(wids, gc, flags, seq_ptr)
    tags = np.zeros(n, np.int32)
    P = np.empty((n, L))
    _tag_sequences(S, seq_ptr, m, T, expT, expTT, gap, tags, P)
    out_tok = np.empty((n, 2), np.int64)
    out_lab = np.empty(n, np.int32)
    out_score = np.empty(n)
    rec_tok = np.empty((n, 2), np.int64)
    rec_lab = np.empty(n, np.int32)
    rec_score = np.empty(n)
    pho = np.zeros(n)  # 1 - P(O), for tokens tagged O
    likely = np.zeros(n, np.bool_)
    if recall and o_tag >= 0:
        for t in range(n):
            if tags[t] == o_tag:
                pho[t] = 1.0 - P[t, o_tag]
                likely[t] = pho[t] >= threshold
    n_out = _crf_runs(seq_ptr, m, tags, P, tag_kind, tag_ent, ent_itag, out_tok, out_lab, out_score)
    n_rec = _recall_runs(seq_ptr, m, likely, pho, P, phi_order, phi_ent, n_rent, rec_tok, rec_lab,
                         rec_score)  # fmt: skip
    return (
        out_tok[:n_out], out_lab[:n_out], out_score[:n_out],
        rec_tok[:n_rec], rec_lab[:n_rec], rec_score[:n_rec],
    )  # fmt: skip
