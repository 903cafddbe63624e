"""Where a campaign folder's runs are, for every Python reader of them (tools/runner/summarize.py,
tools/plot.py, tools/update_readmes.py): the one place that knows the two forms.

While a campaign runs (run.sh, tools/scaling.sh: tools/runner/run-one.sh appends each run under a lock)
its rows are FOLDER/runs.csv; when it ends, finished or interrupted, tools/runner/close-runs.sh compresses
them into FOLDER/runs.csv.gz (gzip -9 -n) and removes runs.csv: the repository keeps runs.csv.gz
(about 20x smaller). tools/runner/open-runs.sh unpacks it again for --resume. A runs.csv beside a
runs.csv.gz is the live file of a campaign that was cut off before it could close (the newer, a
superset): it is read. tools/runner/runs-file.sh is the shell's counterpart.

Importable (python3 standard library only): runs_path(folder), existing_runs_path(folder),
has_runs(folder), open_runs(folder), open_runs_path(path), runs_folders(pattern).
"""
import glob
import gzip
import os

LIVE = "runs.csv"
COMMITTED = "runs.csv.gz"


def runs_path(folder):
    """FOLDER/runs.csv if there is one (a campaign running, or cut off), else FOLDER/runs.csv.gz
    (a campaign that ended: the committed form), else None."""
    for name in (LIVE, COMMITTED):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def has_runs(folder):
    """Whether FOLDER holds a campaign's runs, in either form."""
    return runs_path(folder) is not None


def open_runs_path(path):
    """PATH (a runs.csv, or a gzip file whose name ends in .gz) opened as text for the csv module."""
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline="", encoding="utf-8")
    return open(path, newline="", encoding="utf-8")


def existing_runs_path(folder):
    """runs_path(FOLDER); FileNotFoundError naming FOLDER/runs.csv.gz when it has neither form."""
    path = runs_path(folder)
    if path is None:
        raise FileNotFoundError(2, f"no {LIVE} or {COMMITTED}", os.path.join(folder, COMMITTED))
    return path


def open_runs(folder):
    """FOLDER's runs (runs_path) opened as text for the csv module; FileNotFoundError naming
    FOLDER/runs.csv.gz when it has neither form."""
    return open_runs_path(existing_runs_path(folder))


def runs_folders(pattern):
    """The folders matching the glob PATTERN (e.g. RESULTS/*, RESULTS/*/scaling) that hold runs
    in either form, in the order of their FOLDER/runs.csv paths."""
    folders = {os.path.dirname(path) for name in (LIVE, COMMITTED)
               for path in glob.glob(os.path.join(pattern, name)) if os.path.isfile(path)}
    return sorted(folders, key=lambda folder: os.path.join(folder, LIVE))


if __name__ == "__main__":  # a module the other tools import: run, it says what it offers
    print(__doc__)
