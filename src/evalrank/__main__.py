import os

# before anything can load libgomp (LightGBM, numba's omp layer): evalrank.models._omp says why
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from evalrank.cli import main  # noqa: E402

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
