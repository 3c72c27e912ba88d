"""Tabulate the :ref:`Chapter 7 <ch-evidence>` evidence explorer's normalisers for every (n, l) slider position.

    .venv/bin/python tools/tabulate_evidence_normalisers.py [-j 2]

Writes svmlib/widgets/evidence_normalisers.json: ln <N^n> and its standard error along the
explorer's C grid, from svmlib.widgets.evidence.compute_normaliser (seeded; one BLAS thread per
worker), so a slider event never waits ~1 s for a chained Monte Carlo run. Deterministic: the
same code gives the same file (floats written with repr). Rerun after changing the explorer's
grids or the sampler; tests/test_probabilistic_widgets.py recomputes entries of the table.
"""

import argparse
import json
import warnings

import numpy as np
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from svmlib.evidence import LowESSWarning
from svmlib.widgets import evidence as ev


def one(n, l):
    with threadpool_limits(1, "blas"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LowESSWarning)
        curve = ev.compute_normaliser(n, l)
    return {"n": n, "l": l, "log_value": curve.log_value.tolist(), "std_error": curve.std_error.tolist(),
            "low_ess_warning": bool(caught)}


def main(jobs):
    positions = ev.slider_positions()
    entries = Parallel(n_jobs=jobs)(delayed(one)(n, l) for n, l in tqdm(positions, desc="normalisers"))
    header = {"C": ev.C_GRID.tolist(), "CK0": ev.CK0, "norm_grid_size": int(ev.NORM_GRID.shape[0]),
              "source": "tools/tabulate_evidence_normalisers.py"}
    # one entry per line: readable diffs when the table is regenerated
    body = ",\n".join(json.dumps(e) for e in entries)
    ev.NORMALISER_TABLE.write_text(json.dumps(header)[:-1] + ', "entries": [\n' + body + "\n]}\n")
    spread = [(e["n"], e["l"]) for e in entries if e["low_ess_warning"]]
    print(f"wrote {len(entries)} normalisers to {ev.NORMALISER_TABLE}; replica spread > 0.5 nats somewhere "
          f"along C for {len(spread)} of them" + (f": {spread}" if spread else ""))
    print(f"largest standard error: {max(np.max(e['std_error']) for e in entries):.2f} nats")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    main(parser.parse_args().jobs)
