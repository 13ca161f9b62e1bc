"""Figures 1-7 of Ozertem et al. (2011) on the simulated world, and Fig. 8
(beyond the paper): estimated against true ΔDCG@5 over all tests.

1. click-model relevance x against the editorial grade (jittered);
2. the beta fits p(x|g) over the intersection's histograms;
3. the position-aware prior p(g) for depth 1 and depth 5;
4. the posterior p(g|x) with the depth-1 (dashed) and depth-5 (solid) prior;
5. p(g|x) at 10 evenly spaced x (depth 1), stacked;
6. leave-one-out MSE against sigma (log axis), with position (sigma = 0) and
   query (sigma -> inf) smoothing as lines;
7. LOO error densities (Gaussian KDE, kernel variance 0.1 as in the paper)
   and the error samples;
8. smoothed-DBN's test-level ΔDCG ± 2 SD against the truth.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evalrank.papers.common.plots.style import color, save_figure, subplots

__all__ = ["figures", "plot_scatter_grades", "plot_beta_fits", "plot_priors", "plot_posteriors",
           "plot_posterior_bars", "plot_loo_curve", "plot_loo_errors", "plot_truth"]


def _fits(sources):
    from evalrank.papers.ozertem2011.mapping import BetaFits

    return BetaFits(params=sources["beta_params"], n_samples=sources["beta_samples"],
                    pooled=sources["beta_pooled"].astype(bool))


def plot_scatter_grades(x, grades, scale, path, *, seed=0, title=None):
    rng = np.random.default_rng(seed)
    fig, axes = subplots(1, 1, width=5.0, height=3.6)
    ax = axes[0][0]
    for j in range(scale.n):
        m = grades == j
        ax.scatter(j + rng.uniform(-0.25, 0.25, m.sum()), x[m], s=4, alpha=0.35, color=color(j), lw=0)
        if m.any():
            ax.plot([j - 0.3, j + 0.3], [np.median(x[m])] * 2, color="k", lw=1.5)
    ax.set_xticks(range(scale.n), scale.names)
    ax.set_xlabel("editorial grade (pre-existing judgment)")
    ax.set_ylabel("click-model relevance x = a s")
    ax.set_ylim(-0.02, 1.02)
    if title:
        ax.set_title(title)
    return save_figure(fig, path)


def plot_beta_fits(x, grades, fits, scale, path, *, eps=1e-4, title=None):
    from scipy import stats

    fig, axes = subplots(1, 1, width=5.2, height=3.6)
    ax = axes[0][0]
    xs = np.linspace(0.005, 0.995, 400)
    bins = np.linspace(0, 1, 26)
    for j in range(scale.n):
        a, b = fits.params[j]
        m = grades == j
        if m.sum() > 1:
            ax.hist(np.clip(x[m], eps, 1 - eps), bins=bins, density=True, histtype="step", color=color(j), alpha=0.5)
        lab = f"{scale.names[j]} (n={int(fits.n_samples[j])}{', pooled fit' if fits.pooled[j] else ''})"
        ax.plot(xs, stats.beta.pdf(xs, a, b), color=color(j), lw=1.8, label=lab)
    ax.set_xlabel("click-model relevance x")
    ax.set_ylabel("p(x | g)")
    ax.set_ylim(0, min(ax.get_ylim()[1], 12))
    ax.legend(title="grade", fontsize=7)
    if title:
        ax.set_title(title)
    return save_figure(fig, path)


def plot_priors(priors: dict, scale, path, *, title=None):
    fig, axes = subplots(1, 1, width=4.6, height=3.4)
    ax = axes[0][0]
    depths = sorted(priors)
    width = 0.8 / len(depths)
    for i, d in enumerate(depths):
        ax.bar(np.arange(scale.n) + (i - (len(depths) - 1) / 2) * width, priors[d], width=width, color=color(i),
               label=f"top {d} of the baseline")
    ax.set_xticks(range(scale.n), scale.names)
    ax.set_xlabel("grade")
    ax.set_ylabel("p(g)")
    ax.set_ylim(0, max(float(np.max(p)) for p in priors.values()) * 1.3)  # room for the legend above the bars
    ax.legend(loc="upper right")
    if title:
        ax.set_title(title)
    return save_figure(fig, path)


def plot_posteriors(fits, priors: dict, scale, path, *, title=None):
    from evalrank.papers.ozertem2011.mapping import posterior

    xs = np.linspace(0.0, 1.0, 201)
    fig, axes = subplots(1, 1, width=5.2, height=3.6)
    ax = axes[0][0]
    for d, ls in ((1, "--"), (5, "-")):
        if d not in priors:
            continue
        post = posterior(xs, fits, priors[d])
        for j in range(scale.n):
            ax.plot(xs, post[:, j], ls=ls, color=color(j), lw=1.5, label=scale.names[j] if d == 5 else None)
    ax.set_xlabel("click-model relevance x")
    ax.set_ylabel("p(g | x)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(title="grade (dashed: depth-1 prior)", fontsize=7)
    if title:
        ax.set_title(title)
    return save_figure(fig, path)


def plot_posterior_bars(fits, prior, scale, path, *, points=10, title=None):
    from evalrank.papers.ozertem2011.mapping import posterior

    xs = (np.arange(points) + 0.5) / points
    post = posterior(xs, fits, prior)
    fig, axes = subplots(1, 1, width=5.2, height=3.4)
    ax = axes[0][0]
    bottom = np.zeros(points)
    for j in range(scale.n):
        ax.bar(np.arange(points), post[:, j], bottom=bottom, color=color(j), label=scale.names[j])
        bottom += post[:, j]
    ax.set_xticks(range(points), [f"{v:.2f}" for v in xs], rotation=45)
    ax.set_ylim(0, 1)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_xlabel("click-model relevance x")
    ax.set_ylabel("p(g | x), depth-1 prior")
    ax.legend(title="grade", fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    if title:
        ax.set_title(title)
    return save_figure(fig, path)


def plot_loo_curve(curve, mse_position, mse_query, sigma_star, mse_star, path, *, title=None):
    fig, axes = subplots(1, 1, width=5.0, height=3.5)
    ax = axes[0][0]
    # the curve through sigma* too (an evaluation like the grid's), so that the marker lies on it
    sig = np.append(np.asarray(curve["sigma"], dtype=float), sigma_star)
    mse = np.append(np.asarray(curve["mse"], dtype=float), mse_star)
    order = np.argsort(sig, kind="stable")
    ax.plot(sig[order], mse[order], color=color(0), lw=1.8, label="hybrid (eq. 11-13)")
    ax.axhline(mse_position, color=color(1), ls="--", label=r"position ($\sigma = 0$)")
    ax.axhline(mse_query, color=color(2), ls=":", label=r"query ($\sigma \to \infty$)")
    ax.plot([sigma_star], [mse_star], "o", color="k", label=rf"$\sigma^* = {sigma_star:.3g}$")
    ax.set_xscale("log")
    ax.set_xlabel(r"$\sigma$")
    ax.set_ylabel("leave-one-out MSE")
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    return save_figure(fig, path)


def plot_loo_errors(errors: dict, path, *, kernel_var=0.1, title=None):
    from scipy import stats

    names = ["query", "position", "hybrid"]
    fig, axes = subplots(2, 1, width=5.4, height=2.6)
    ax, ax2 = axes[0][0], axes[1][0]
    lo = min(float(np.min(errors[m])) for m in names) - 1
    hi = max(float(np.max(errors[m])) for m in names) + 1
    xs = np.linspace(lo, hi, 500)
    for i, m in enumerate(names):
        e = np.asarray(errors[m])
        # a Gaussian kernel of variance kernel_var: bandwidth factor = sd / sample sd
        kde = stats.gaussian_kde(e, bw_method=np.sqrt(kernel_var) / max(np.std(e, ddof=1), 1e-12))
        ax.plot(xs, kde(xs), color=color(i), lw=1.6, label=f"{m} (MSE {np.mean(e * e):.3f})")
        ax2.plot(e, np.full(e.size, i) + np.random.default_rng(i).uniform(-0.3, 0.3, e.size), "|", ms=4,
                 color=color(i), alpha=0.3)
    ax.set_ylabel("density")
    ax.legend(fontsize=8)
    ax2.set_yticks(range(3), names)
    ax2.set_xlabel(r"leave-one-out error $e_j = g_j - \hat g_j$")
    for a in (ax, ax2):
        a.set_xlim(lo, hi)
    if title:
        fig.suptitle(title)
    return save_figure(fig, path)


def plot_truth(summaries, path, *, methods=("smoothed", "carterette_jones"), z=2.0, title=None):
    fig, axes = subplots(1, len(methods), width=3.8, height=3.6, sharey=True)
    truth = summaries[summaries.method == "truth"].sort_values("test")["delta"].to_numpy()
    for i, m in enumerate(methods):
        ax = axes[0][i]
        s = summaries[summaries.method == m].sort_values("test")
        d, sd = s["delta"].to_numpy(), s["sd"].to_numpy()
        inside = np.abs(d - truth) <= z * sd
        ax.errorbar(truth[inside], d[inside], yerr=z * sd[inside], fmt="o", ms=3, color=color(0), lw=0.6,
                    label=rf"truth within $\pm{z:g}$ SD ({inside.mean():.0%})")
        ax.errorbar(truth[~inside], d[~inside], yerr=z * sd[~inside], fmt="o", ms=3, color=color(1), lw=0.6,
                    label="outside")
        lim = [min(truth.min(), d.min()), max(truth.max(), d.max())]
        ax.plot(lim, lim, color="0.5", lw=1, ls="--")
        ax.axhline(0, color="0.8", lw=0.8)
        ax.axvline(0, color="0.8", lw=0.8)
        r = np.corrcoef(truth, d)[0, 1]
        ax.set_title(f"{m} (r = {r:.2f})", fontsize=9)
        ax.set_xlabel(r"true $\Delta$DCG@5 (simulator's grades)")
        if i == 0:
            ax.set_ylabel(r"estimated $\Delta$DCG@5")
        ax.legend(fontsize=7, loc="upper left")
    if title:
        fig.suptitle(title)
    return save_figure(fig, path)


#: the figures' file names, Figs. 1-8 in order (named for what they show)
FIGURES = ("fig1_click_relevance_vs_grade.png", "fig2_beta_fits.png", "fig3_grade_prior.png", "fig4_posteriors.png",
           "fig5_posterior_bars.png", "fig6_loo_mse_vs_sigma.png", "fig7_loo_errors.png", "fig8_estimated_vs_true.png")


def figures(out, *, sources, scale, curve, errors, summaries, coverage_z=2.0) -> list[Path]:
    """Write :data:`FIGURES` (Figs. 1-8) into ``out`` (module docstring)."""
    out = Path(out)
    fits = _fits(sources)
    priors = {int(d): p for d, p in zip(sources["prior_depths"], sources["priors"])}
    inter = (sources["judged_grade"] >= 0) & sources["reliable"].astype(bool)
    x, g = sources["relevance"][inter], sources["judged_grade"][inter]
    paths = []
    paths += plot_scatter_grades(x, g, scale, out / FIGURES[0],
                                 title="Fig. 1: click-model relevance vs editorial grade")
    paths += plot_beta_fits(x, g, fits, scale, out / FIGURES[1], title="Fig. 2: beta fits p(x | g)")
    paths += plot_priors(priors, scale, out / FIGURES[2], title="Fig. 3: the grade prior p(g)")
    paths += plot_posteriors(fits, priors, scale, out / FIGURES[3], title="Fig. 4: p(g | x)")
    paths += plot_posterior_bars(fits, priors[1], scale, out / FIGURES[4],
                                 title="Fig. 5: p(g | x) at 10 points (depth 1)")
    pooled = float(curve["pooled_sigma"].iloc[0])
    e = errors
    paths += plot_loo_curve(curve, float(np.mean(e["position"] ** 2)), float(np.mean(e["query"] ** 2)), pooled,
                            float(np.mean(e["hybrid"] ** 2)), out / FIGURES[5],
                            title="Fig. 6: leave-one-out MSE against sigma")
    paths += plot_loo_errors(e, out / FIGURES[6], title="Fig. 7: leave-one-out error densities")
    paths += plot_truth(summaries, out / FIGURES[7], z=coverage_z,
                        title=r"Fig. 8 (beyond the paper): estimated vs true $\Delta$DCG@5 per test")
    return paths
