"""pytest plugin: nbval compares a cell's outputs with ``tools/output_compare.py``.

Loaded by the Makefile's nbval flags (``-p tools.nbval_tolerant``). nbval 0.11 compares outputs as
exact strings (after the regex sanitizers of ``tools/nbval_sanitize.cfg``), so a printed number
that another CPU's BLAS kernel rounds in its last digits fails it. Regex sanitizers cannot express
"equal to 1e-6 relative" (they could only erase digits, which would also hide real changes), so
this plugin replaces ``IPyNbCell.compare_outputs`` with the comparison ``tools/run_notebooks.py
--check`` uses: numbers to round-off, integers and words exactly, figures (``image/png``, which
nbval otherwise skips) by RMS pixel difference. nbval's sanitizers still apply first, its skipped
keys (metadata, execution counts, widget view ids) stay skipped, and the cell's
``metadata.output_compare`` declarations apply as in ``run_notebooks.py --check``.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from output_compare import Options, compare_json  # noqa: E402


def tolerant_compare_outputs(self, test, ref, skip_compare=None):
    """Drop-in for ``nbval.plugin.IPyNbCell.compare_outputs`` (same contract: bool, sets comparison_traceback)."""
    from nbval.plugin import transform_streams_for_comparison

    skip = set(skip_compare or self.parent.skip_compare) - {"image/png"}

    def flatten(outputs):
        flat = defaultdict(list)
        for out in transform_streams_for_comparison(outputs):
            for key, value in out.items():
                if key in skip:
                    continue
                if key == "data":
                    for mime, data in value.items():
                        if mime not in skip:  # base64 is not sanitized: '0x..' inside it is no address
                            flat[mime].append(data if mime.startswith("image/") else self.sanitize(data))
                else:
                    flat[key].append(self.sanitize(value))
        return flat

    self.comparison_traceback = []
    reference, testing = flatten(ref), flatten(test)
    try:
        opts = Options(self.cell.metadata)
    except ValueError as err:
        self.comparison_traceback.append(str(err))
        return False
    if set(reference) != set(testing):
        self.comparison_traceback.append(
            f"output fields differ: stored {sorted(reference)}, re-run {sorted(testing)}")
        return False
    problems = []
    for key in reference:
        if len(reference[key]) != len(testing[key]):
            problems.append(f"{key}: {len(reference[key])} outputs stored, {len(testing[key])} re-run")
            continue
        for i, (stored, fresh) in enumerate(zip(reference[key], testing[key])):  # one output at a time
            problems += compare_json(stored, fresh, opts, path=f"{key} (output {i})")  # PNGs: by their signature
    if problems:
        self.comparison_traceback += ["outputs differ beyond round-off (tools/output_compare.py):"] + problems
        return False
    return True


def pytest_configure(config):
    from nbval import plugin

    plugin.IPyNbCell.compare_outputs = tolerant_compare_outputs
