"""LightGBM's regression trees walked in compiled code: the leaf ids and raw scores that
``Booster.predict(pred_leaf=True)`` and ``Booster.predict(raw_score=True)`` give, in one pass.

The forests' ``backend="lightgbm"`` (:mod:`evalrank.models.forest`) keeps its trees in boosters of
:data:`~evalrank.models.forest.TREES_PER_BOOSTER` trees. LightGBM's predictor turns every row into a
feature vector once per call and booster, so a pool prediction (the scores, then the leaves for the
leaf histograms) took two calls per booster: at paper scale 297 CPU s for rf's 200 trees over
3.04 M documents, against 66 for scikit-learn's forest (benchmarks/RESULTS.md, "Paper scale,
re-projected"). Here the trees are read from the booster's text model (LightGBM's model format:
``split_feature``, ``threshold`` written with 17 significant digits, ``decision_type``,
``left_child`` / ``right_child`` with ``~leaf`` for a leaf, ``leaf_value``) and every row walks
every tree once.

The decision at a node is LightGBM's ``Tree::NumericalDecision``: a NaN feature is 0 unless the
node's missing type is NaN; a row whose value is missing for the node (``Zero``: ``|x| <= 1e-35``;
``NaN``: NaN) goes to the default side; else left when ``x <= threshold`` (``x`` the float32
feature as a double). Categorical splits and linear trees are refused (the forests grow neither).
The raw score of a booster adds its trees' leaf values in tree order from 0.0, as LightGBM's
``PredictRaw`` does, so it is the same double; tests/models/test_lgb_trees.py checks leaves and
scores against LightGBM, including rows on the thresholds.
"""

from __future__ import annotations

import weakref

import numpy as np

from evalrank._jit import njit, prange

__all__ = ["FlatTrees", "flatten", "walk"]

_K_ZERO = 1e-35  # LightGBM's kZeroThreshold
_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class FlatTrees:
    """The trees of one booster as one node table: node ``i`` of tree ``j`` is row ``root[j] + i`` of
    ``nodes`` (int64 ``(n_nodes, 4)``: the split feature plus ``missing type << 32`` plus
    ``default left << 34``, the left child, the right child, the threshold's float64 bits), so a
    node is one 32-byte record; a child ``>= 0`` is a node row, ``< 0`` is ``~leaf``; a one-leaf
    tree has ``root`` -1 (``~0``, its one leaf). ``leaf_value[leaf_base[j] + leaf]`` is a leaf's output."""

    __slots__ = ("nodes", "root", "leaf_base", "leaf_value", "n_trees")

    def __init__(self, nodes, root, leaf_base, leaf_value):
        self.nodes, self.root, self.leaf_base, self.leaf_value = nodes, root, leaf_base, leaf_value
        self.n_trees = len(root)


def _numbers(text: str, dtype) -> np.ndarray:
    return np.array(text.split(), dtype=dtype) if text else np.zeros(0, dtype=dtype)


def _parse(model: str) -> FlatTrees:
    feature, threshold, left, right, dleft, missing, roots, bases, values = [], [], [], [], [], [], [], [], []
    n_nodes = n_leaves = 0
    for block in model.split("\nTree=")[1:]:
        block = block.split("\nend of trees", 1)[0]
        kv = dict(line.split("=", 1) for line in block.splitlines()[1:] if "=" in line)
        if int(kv.get("num_cat", "0")) or int(kv.get("is_linear", "0")):
            raise ValueError("a LightGBM tree with categorical splits or linear leaves: not a forest of evalrank's")
        leaf_value = _numbers(kv["leaf_value"], np.float64)
        n_leaf = int(kv["num_leaves"])
        roots.append(n_nodes if n_leaf > 1 else -1)
        bases.append(n_leaves)
        values.append(leaf_value)
        n_leaves += n_leaf
        if n_leaf > 1:
            lc = _numbers(kv["left_child"], np.int64)
            rc = _numbers(kv["right_child"], np.int64)
            left.append(np.where(lc >= 0, lc + n_nodes, lc))
            right.append(np.where(rc >= 0, rc + n_nodes, rc))
            feature.append(_numbers(kv["split_feature"], np.int64))
            threshold.append(_numbers(kv["threshold"], np.float64))
            dt = _numbers(kv["decision_type"], np.int64)
            dleft.append((dt & 2) != 0)
            missing.append(((dt >> 2) & 3).astype(np.int8))
            n_nodes += n_leaf - 1

    def cat(parts, dtype):
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

    nodes = np.empty((n_nodes, 4), dtype=np.int64)
    nodes[:, 0] = cat(feature, np.int64) | (cat(missing, np.int64) << 32) | (cat(dleft, np.int64) << 34)
    nodes[:, 1] = cat(left, np.int64)
    nodes[:, 2] = cat(right, np.int64)
    nodes[:, 3] = cat(threshold, np.float64).view(np.int64)
    return FlatTrees(nodes, np.array(roots, dtype=np.int64), np.array(bases, dtype=np.int64),
                     cat(values, np.float64))


def flatten(booster) -> FlatTrees:
    """The booster's trees as :class:`FlatTrees` (kept while the booster lives)."""
    flat = _CACHE.get(booster)
    if flat is None:
        flat = _CACHE[booster] = _parse(booster.model_to_string())
    return flat


#: rows walked together through one tree at a time (their feature rows stay in cache, and so does the tree)
BLOCK_ROWS = 256
#: rows of a block that descend one tree in lockstep, one level each per round: their paths are
#: independent chains of loads, which the processor overlaps (one row at a time waits on each node's
#: load and each mispredicted branch). Measured on rf's paper-scale boosters (10 trees of ~2,300
#: leaves, 300,000 pool rows, one thread): 0.53 CPU s one row at a time, 0.27 with 8 (4: 0.30, 16: 0.35)
LANES = 8


@njit(cache=True, parallel=True)
def _walk(X, nodes, thresholds, root, leaf_base, leaf_value, leaves, raw):
    n = X.shape[0]
    n_blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
    for b in prange(n_blocks):
        lo = b * BLOCK_ROWS
        hi = min(lo + BLOCK_ROWS, n)
        cur = np.empty(LANES, dtype=np.int64)
        for i in range(lo, hi):
            raw[i] = 0.0
        for j in range(root.shape[0]):
            for g in range(lo, hi, LANES):
                lanes = min(LANES, hi - g)
                for k in range(lanes):
                    cur[k] = root[j]
                going = True
                while going:  # one level of every unfinished lane per round
                    going = False
                    for k in range(lanes):
                        node = cur[k]
                        if node < 0:
                            continue
                        head = nodes[node, 0]
                        x = np.float64(X[g + k, head & 0xFFFFFFFF])
                        m = (head >> 32) & 3
                        nan = x != x
                        x = 0.0 if nan else x  # NaN is 0 unless the missing type is NaN (then missing below)
                        missing = (m == 1 and -_K_ZERO <= x <= _K_ZERO) or (m == 2 and nan)
                        left = (head >> 34) & 1 == 1 if missing else x <= thresholds[node, 3]  # missing: default side
                        node = nodes[node, 2 - np.int64(left)]  # selects, not branches
                        cur[k] = node
                        going = going or node >= 0
                for k in range(lanes):
                    leaf = -cur[k] - 1  # a one-leaf tree's root -1 is ~0: its leaf 0
                    leaves[g + k, j] = leaf
                    raw[g + k] += leaf_value[leaf_base[j] + leaf]


def walk(booster, X: np.ndarray, n_jobs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(leaves, raw)`` of the rows of ``X`` (float32 ``(n, d)``): int32 ``(n, n_trees)`` leaf ids,
    as ``booster.predict(X, pred_leaf=True)``, and float64 ``(n,)`` raw scores, as
    ``booster.predict(X, raw_score=True)``. ``n_jobs``: numba's threads for this call (at most its
    ``NUMBA_NUM_THREADS``; None: as they are); the result does not depend on them."""
    from evalrank import _jit

    flat = flatten(booster)
    X = np.ascontiguousarray(X, dtype=np.float32)
    leaves = np.empty((X.shape[0], flat.n_trees), dtype=np.int32)
    raw = np.empty(X.shape[0], dtype=np.float64)
    with _jit.threads(n_jobs):
        _walk(X, flat.nodes, flat.nodes.view(np.float64), flat.root, flat.leaf_base, flat.leaf_value, leaves, raw)
    return leaves, raw
