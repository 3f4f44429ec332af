"""The shared battery every class-conditional family must pass.

One table of parameter cases drives every check: logpdf against
scipy.stats, integration to one, logcdf/logsf consistency with the density,
shapes (M, P) × (N,) → (M, N), transforms round-tripping, priors finite on
the domain, initialisers recovering the parameters of simulated data, and
the mean used for identification.
"""

import numpy as np
import pytest
from scipy import integrate, stats

from spe.families import REGISTRY, family_names, get_family
from spe.families.asymgauss import bennett_gaussian_mle
from spe.families.asymlaplace import bennett_mle

# family name -> list of parameter rows (constrained), typical of model-space scores in (0, 1)
CASES = {
    "truncnorm": [(0.3, 0.1), (0.8, 0.05), (-0.2, 0.4), (1.3, 0.2)],
    "gamma": [(2.0, 0.1), (0.7, 0.3), (40.0, 0.02)],
    "asymlaplace": [(0.4, 10.0, 30.0), (0.7, 50.0, 5.0), (0.5, 3.0, 3.0)],
    "beta": [(2.0, 5.0), (0.6, 0.8), (30.0, 4.0)],
    "truncnorm2": [(0.4, 0.3, 0.1, 0.4, 0.15), (0.8, 0.1, 0.05, 0.6, 0.2), (0.3, -0.1, 0.3, 0.9, 0.1)],
    "trunct": [(0.3, 0.1, 4.0), (0.8, 0.05, 1.5), (0.5, 0.3, 30.0), (1.2, 0.2, 3.0)],
    "lognormal": [(-1.5, 0.5), (-0.3, 0.1), (-2.5, 1.0)],
    "gumbel_r": [(0.3, 0.05), (0.6, 0.1)],
    "gumbel_l": [(0.8, 0.05), (0.5, 0.1)],
    "gompertz": [(1.0, 0.3), (0.01, 0.15), (1e-4, 0.08)],
    "frechet_r": [(4.0, 0.3), (8.0, 0.5), (2.5, 0.05)],
    "asymgauss": [(0.4, 0.1, 0.3), (0.7, 0.2, 0.05), (0.52, 0.1, 0.1)],  # a mode off the test grid: scipy's
    # Mixture of two half-normals counts both halves at the mode itself
}


def test_every_registered_family_has_cases():
    assert set(CASES) == set(REGISTRY), "add a row to CASES for each new family"
    assert family_names() == sorted(REGISTRY)


def _cases():
    """One pytest.param per (family, parameter row) of CASES, as a list (pytest ≥ 9 deprecates generators)."""
    return [pytest.param(name, np.array(row), id=f"{name}{row}") for name, rows in CASES.items() for row in rows]


class _NewStyle:
    """The battery's view of a new-style scipy.stats distribution (e.g. ``stats.Mixture``, scalar-only)."""

    def __init__(self, dist):
        self.dist = dist

    def logpdf(self, x):
        return self.dist.logpdf(x)

    def mean(self):
        return np.array([[self.dist.mean()]])

    def support(self):
        return self.dist.support()

    def rvs(self, size, random_state):
        return self.dist.sample(size, rng=random_state)


def _scipy(fam, theta):
    dist = fam.scipy_dist(*[np.array([[v]]) for v in theta])
    return _NewStyle(dist) if hasattr(dist, "sample") else dist


def _support(fam, theta):
    dist = _scipy(fam, theta)
    lo, hi = (float(np.ravel(v)[0]) for v in dist.support())
    lo, hi = max(lo, -20.0), min(hi, 20.0)
    return lo, hi


@pytest.mark.parametrize("name,theta", _cases())
def test_logpdf_matches_scipy(name, theta):
    fam = get_family(name)
    x = np.linspace(0.005, 0.995, 57)
    ours = fam.logpdf(theta, x)[0]
    ref = _scipy(fam, theta).logpdf(x[None, :])[0]
    under = np.isneginf(ref) & np.isfinite(ours)  # scipy underflows where the density is merely tiny (Fréchet)
    assert np.all(ours[under] < -700)
    np.testing.assert_allclose(ours[~under], ref[~under], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name,theta", _cases())
def test_density_integrates_to_one(name, theta):
    fam = get_family(name)
    lo, hi = _support(fam, theta)
    mode_guess = (float(np.clip(theta[1 if name == "truncnorm2" else 0], lo + 1e-9, hi - 1e-9))
                  if name != "gamma" else None)
    total, _ = integrate.quad(lambda v: np.exp(fam.logpdf(theta, np.array([v]))[0, 0]), lo, hi, limit=400,
                              points=[mode_guess] if mode_guess is not None and lo < mode_guess < hi else None)
    assert total == pytest.approx(1.0, abs=2e-6)


@pytest.mark.parametrize("name,theta", _cases())
def test_cdf_and_sf_agree_with_density(name, theta):
    fam = get_family(name)
    lo, _ = _support(fam, theta)
    x = np.array([0.1, 0.35, 0.6, 0.9])
    cdf = np.exp(fam.logcdf(theta, x)[0])
    sf = np.exp(fam.logsf(theta, x)[0])
    np.testing.assert_allclose(cdf + sf, 1.0, atol=1e-10)
    for xi, c in zip(x, cdf):
        integral, _ = integrate.quad(lambda v: np.exp(fam.logpdf(theta, np.array([v]))[0, 0]), lo, xi, limit=400)
        assert c == pytest.approx(integral, abs=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_broadcast_over_draws(name):
    fam = get_family(name)
    theta = np.array(CASES[name])
    x = np.linspace(0.01, 0.99, 7)
    for fn in (fam.logpdf, fam.logcdf, fam.logsf):
        out = fn(theta, x)
        assert out.shape == (len(theta), x.size)
        for m in range(len(theta)):
            np.testing.assert_allclose(out[m], fn(theta[m], x)[0])
    assert fam.log_prior(theta).shape == (len(theta),)
    assert fam.mean_of(theta).shape == (len(theta),)
    with pytest.raises(ValueError, match="columns"):
        fam.logpdf(np.ones((2, fam.n_params + 1)), x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_transform_round_trip_and_jacobian(name):
    fam = get_family(name)
    theta = np.array(CASES[name], dtype=float)
    u = fam.to_unconstrained(theta)
    back, logjac = fam.from_unconstrained(u)
    np.testing.assert_allclose(back, theta, rtol=1e-12)
    # log-Jacobian against a numerical derivative of each coordinate map
    h = 1e-6
    num = np.zeros(len(theta))
    for j in range(fam.n_params):
        e = np.zeros(fam.n_params)
        e[j] = h
        step = fam.from_unconstrained(u + e)[0][:, j] - fam.from_unconstrained(u - e)[0][:, j]
        num += np.log(np.abs(step / (2 * h)))
    np.testing.assert_allclose(logjac, num, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,theta", _cases())
def test_prior_finite_in_domain(name, theta):
    fam = get_family(name)
    assert np.isfinite(fam.log_prior(theta)).all()


@pytest.mark.parametrize("name,theta", _cases())
def test_mean_matches_scipy(name, theta):
    fam = get_family(name)
    assert fam.mean_of(theta)[0] == pytest.approx(float(_scipy(fam, theta).mean()[0, 0]), rel=1e-8)


@pytest.mark.parametrize("name,theta", _cases())
def test_samples_pass_ks_and_initialiser_is_close(name, theta):
    fam = get_family(name)
    rng = np.random.default_rng(12345)
    x = np.ravel(_scipy(fam, theta).rvs(size=(1, 4000), random_state=rng))
    cdf = lambda v: np.exp(fam.logcdf(theta, np.atleast_1d(v))[0])  # noqa: E731
    assert stats.kstest(x, cdf).pvalue > 1e-3
    init = fam.initialize(x)
    assert init.shape == (fam.n_params,)
    # the initialiser lands where the data are: its mean is close to the sample mean
    if not (name == "truncnorm" and not 0 <= theta[0] <= 1):
        assert fam.mean_of(init)[0] == pytest.approx(np.mean(x), abs=0.1 * np.std(x) + 0.02)


def test_bennett_closed_form_mle_maximises_likelihood():
    """Bennett (2003) eq. 3: for a fixed mode the closed-form rates maximise the likelihood."""
    rng = np.random.default_rng(3)
    fam = get_family("asymlaplace")
    x = np.ravel(_scipy(fam, (0.4, 10.0, 30.0)).rvs(size=(1, 3000), random_state=rng))
    left, right = bennett_mle(x, 0.4)
    best = fam.logpdf(np.array([0.4, left, right]), x).sum()
    for dl, dr in [(1.05, 1), (0.95, 1), (1, 1.05), (1, 0.95)]:
        assert fam.logpdf(np.array([0.4, left * dl, right * dr]), x).sum() < best
    assert left == pytest.approx(10.0, rel=0.1) and right == pytest.approx(30.0, rel=0.1)


def test_bennett_gaussian_closed_form_mle_maximises_likelihood():
    """Bennett (2003) eq. 4: for a fixed mode the closed-form spreads maximise the likelihood."""
    rng = np.random.default_rng(4)
    fam = get_family("asymgauss")
    x = np.ravel(_scipy(fam, (0.4, 0.05, 0.15)).rvs(size=(1, 3000), random_state=rng))
    left, right = bennett_gaussian_mle(x, 0.4)
    best = fam.logpdf(np.array([0.4, left, right]), x).sum()
    for dl, dr in [(1.02, 1), (0.98, 1), (1, 1.02), (1, 0.98)]:
        assert fam.logpdf(np.array([0.4, left * dl, right * dr]), x).sum() < best
    assert left == pytest.approx(0.05, rel=0.1) and right == pytest.approx(0.15, rel=0.1)


def test_unknown_family_names_the_known_ones():
    with pytest.raises(ValueError, match="truncnorm"):
        get_family("nope")


def test_logpdf_outside_support_is_minus_inf():
    x = np.array([-0.5, 1.5])
    assert np.all(get_family("beta").logpdf((2.0, 2.0), x) == -np.inf)
    assert np.all(get_family("truncnorm").logpdf((0.5, 0.2), x) == -np.inf)
    assert get_family("gamma").logpdf((2.0, 0.1), x)[0, 0] == -np.inf


@pytest.mark.parametrize("name,theta", _cases())
def test_log_cdf_sf_match_scipy(name, theta):
    """The closed-form tails agree with the scipy counterpart wherever scipy's own are finite."""
    fam = get_family(name)
    x = np.linspace(0.01, 0.99, 25)
    lc, ls = fam.log_cdf_sf(theta, x)
    dist = _scipy(fam, theta)
    with np.errstate(divide="ignore"):
        if isinstance(dist, _NewStyle):  # scipy's new-style distributions are scalar-only
            ref_c = np.log([dist.dist.cdf(v) for v in x])
            ref_s = np.log([dist.dist.ccdf(v) for v in x])
        else:
            ref_c, ref_s = np.log(np.ravel(dist.cdf(x[None, :]))), np.log(np.ravel(dist.sf(x[None, :])))
    for ours, ref in ((lc[0], ref_c), (ls[0], ref_s)):
        ok = np.isfinite(ref) & (ref > -30)  # where the plain cdf carries the digits to compare
        np.testing.assert_allclose(ours[ok], ref[ok], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name,theta", _cases())
def test_log_bin_mass_is_the_integral_of_the_density(name, theta):
    """log P(a < X ≤ b) against the quadrature of the density over each bin: 64 bins over (0, 1) and three
    narrow bins far in the tails, where a plain difference of CDFs would cancel to 0."""
    fam = get_family(name)
    edges = np.concatenate([np.linspace(0.0, 1.0, 65), [0.002, 0.0021, 0.9985, 0.9986]])
    edges = np.unique(edges)
    lower = np.arange(edges.size - 1)
    upper = lower + 1
    out = fam.log_bin_mass(theta, edges, lower, upper)[0]
    assert out.shape == (lower.size,) and np.all(out <= 0)
    for k in range(lower.size):
        a, b = edges[lower[k]], edges[upper[k]]
        ref, _ = integrate.quad(lambda v: np.exp(fam.logpdf(theta, np.array([v]))[0, 0]), a, b,
                                epsabs=0, epsrel=1e-10, limit=200)
        if ref > 1e-280:
            assert out[k] == pytest.approx(np.log(ref), abs=1e-6, rel=1e-6), (a, b)
        else:
            assert out[k] < np.log(1e-250)
