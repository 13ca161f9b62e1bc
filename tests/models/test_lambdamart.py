"""LambdaMART's grid: its points share LightGBM's binned Datasets and grow the trees each
grows alone."""

from __future__ import annotations

import pytest

from evalrank.models import zoo
from evalrank.models.lambdamart import TREE_ONLY_PARAMS

SMALL = {"num_boost_round": 30, "early_stopping_rounds": 10}


@pytest.mark.parametrize("name", ["lambdamart", "gbrt"])
def test_grid_points_share_datasets_and_grow_their_own_trees(toy_split, name, lightgbm_datasets_made):
    train, vali, _ = toy_split
    made = lightgbm_datasets_made
    grid = {"num_leaves": [3, 7], "learning_rate": [0.1, 0.3], "min_data_in_leaf": [5, 20]}
    model = zoo.make_model(name, **SMALL).fit(train, vali, grid=grid, seed=3)
    # train + vali per min_data_in_leaf (it bins, through feature_pre_filter); the rest do not
    assert len(made) == 4
    assert not hasattr(model, "_dataset_cache")
    for row in model.tuning_:
        point = {k: [row[k]] for k in grid}
        alone = zoo.make_model(name, **SMALL).fit(train, vali, grid=point, seed=3)
        assert alone.tuning_[0]["best_iteration"] == row["best_iteration"]
        assert alone.tuning_[0]["vali_ndcg10"] == row["vali_ndcg10"]
        if all(row[k] == model.best_params_[k] for k in grid):
            assert alone.booster_.model_to_string() == model.booster_.model_to_string()


def test_tree_only_params_are_lightgbm_parameters_that_do_not_bin():
    model = zoo.make_model("lambdamart")
    model.seed, model.n_jobs = 0, 1
    p = model._lgb_params(model.params)
    assert TREE_ONLY_PARAMS - {"objective"} <= set(p)
    assert "min_data_in_leaf" not in TREE_ONLY_PARAMS  # LightGBM's feature_pre_filter reads it
