#!/usr/bin/env python3
"""Checks a bundle of a student's results (tools/bundle-results.sh) and prints a one-page
comparison with the reference GPUs: a teacher's grading aid.

The bundle passes when it holds one campaign folder with its bundle.txt and env.txt, both naming
the GPU; runs (runs.csv.gz or runs.csv) whose rows all name that GPU and all ended well (status
ok), every stage with the same number of runs; and a verify.txt in which every timed stage's last
verification is "ok" (its image checked against the CPU reference by ./run.sh). Each problem is one
line on stderr, and the exit status 1; a file that is no bundle, 2.

The page (stdout): who, when, the GPU and the revision; then, per stage, the medians of the
bundle's `total` and `kernel_events` (runs without an image written) beside those of each
reference GPU (REFERENCE/<gpu>/summary.csv) and the ratio of the bundle's median to the
reference's (above 1x: the student's run took longer).
"""
import argparse
import csv
import os
import statistics
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'runner'))
import runs_file  # noqa: E402

METRICS = ('total', 'kernel_events')


def field(path, key):
    """The value of the first "key: value" line of a text file, or ''."""
    if not os.path.isfile(path):
        return ''
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith(key + ': '):
                return line[len(key) + 2:].strip()
    return ''


def read_runs(folder):
    with runs_file.open_runs(folder) as f:
        return list(csv.DictReader(f))


def check(folder):
    """(problems, the bundle's medians {stage: {metric: median}}, the GPU's name, stages)."""
    problems = []
    bundle, env = os.path.join(folder, 'bundle.txt'), os.path.join(folder, 'env.txt')
    for path in (bundle, env):
        if not os.path.isfile(path):
            problems.append(f'no {os.path.basename(path)}')
    gpu_line = field(bundle, 'gpu') or field(env, 'gpu')
    if not gpu_line or gpu_line == 'unknown':
        problems.append('the GPU is not named (bundle.txt and env.txt have no "gpu:" line)')
    if not runs_file.has_runs(folder):
        return problems + ['no runs (runs.csv.gz or runs.csv)'], {}, '', []
    rows = read_runs(folder)
    if not rows:
        problems.append('the runs file holds no run')
    gpus = sorted({row.get('gpu', '') for row in rows})
    gpu = gpus[0] if len(gpus) == 1 else ''
    if len(gpus) != 1 or not gpu:
        problems.append(f'the runs name {len(gpus)} GPUs ({", ".join(gpus) or "none"}), not one')
    elif gpu_line and gpu not in gpu_line:
        problems.append(f'the runs were timed on {gpu}, but bundle.txt and env.txt name {gpu_line}')
    failed = [row for row in rows if row.get('status') != 'ok']
    for row in failed[:5]:
        problems.append(f'a failed run: {row.get("stage")} run {row.get("run")} '
                        f'({row.get("status")})')
    if len(failed) > 5:
        problems.append(f'{len(failed) - 5} more failed runs')
    runs = {}
    for row in rows:
        if row.get('status') == 'ok':
            runs.setdefault(row['stage'], set()).add((row.get('image', ''), row['run']))
    counts = {stage: len(r) for stage, r in runs.items()}
    if counts and len(set(counts.values())) > 1:
        most = max(counts.values())
        short = [f'{s} ({n})' for s, n in sorted(counts.items()) if n < most]
        problems.append(f'runs incomplete: {most} runs of most stages, fewer of ' + ', '.join(short))
    verified = {}
    verify = os.path.join(folder, 'verify.txt')
    if not os.path.isfile(verify):
        problems.append('no verify.txt: no image was verified')
    else:
        with open(verify, encoding='utf-8', errors='replace') as f:
            for line in f:
                stage, _, rest = line.partition(': ')
                if not line.startswith('#') and rest:
                    verified[stage] = rest.startswith('ok')
    for stage in sorted(runs):
        if stage not in verified:
            problems.append(f'{stage}: timed, but its image was never verified (verify.txt)')
        elif not verified[stage]:
            problems.append(f'{stage}: its image FAILED verification (verify.txt)')
    for stage, ok in sorted(verified.items()):
        if not ok and stage not in runs:
            problems.append(f'{stage}: its image FAILED verification (verify.txt), not timed')
    values = {}
    for row in rows:
        if row.get('status') == 'ok' and not row.get('image') and row.get('metric') in METRICS:
            try:
                values.setdefault(row['stage'], {}).setdefault(row['metric'], []).append(
                    float(row['value']))
            except ValueError:
                problems.append(f'{row["stage"]}: {row["metric"]} is no number: {row["value"]}')
    medians = {s: {m: statistics.median(v) for m, v in ms.items()} for s, ms in values.items()}
    order = list(dict.fromkeys(row['stage'] for row in rows))
    return problems, medians, gpu, order


def reference_medians(reference):
    """{gpu folder: {stage: {metric: median}}} from REFERENCE/*/summary.csv (the first row of a
    stage and metric: the runs without an image)."""
    out = {}
    if not os.path.isdir(reference):
        return out
    for name in sorted(os.listdir(reference)):
        path = os.path.join(reference, name, 'summary.csv')
        if not os.path.isfile(path):
            continue
        with open(path, encoding='utf-8') as f:
            for row in csv.DictReader(f):
                if row.get('metric') in METRICS:
                    out.setdefault(name, {}).setdefault(row['stage'], {}).setdefault(
                        row['metric'], float(row['median']))
    return out


def ms(us):
    return f'{us / 1000:,.2f}' if us is not None else '–'


def page(folder, medians, gpu, order, reference):
    refs = reference_medians(reference)
    lines = [f'# {os.path.basename(folder)}: {field(os.path.join(folder, "bundle.txt"), "name")}',
             '',
             f'bundled: {field(os.path.join(folder, "bundle.txt"), "bundled (UTC)")}; '
             f'revision: {field(os.path.join(folder, "bundle.txt"), "revision")}',
             f'GPU: {gpu}; campaign: {field(os.path.join(folder, "env.txt"), "command")}',
             '',
             'Medians in ms (total, kernel_events); beside each reference GPU its medians and, in '
             'brackets, yours over its (above 1x: yours took longer).',
             '']
    header = ['stage', 'total', 'kernel']
    for name in refs:
        header += [f'{name} total', f'{name} kernel']
    lines.append('| ' + ' | '.join(header) + ' |')
    lines.append('|' + ' --- |' * len(header))
    for stage in order:
        if stage not in medians:
            continue
        mine = medians[stage]
        cells = [stage, ms(mine.get('total')), ms(mine.get('kernel_events'))]
        for name, stages in refs.items():
            for metric in METRICS:
                ref = stages.get(stage, {}).get(metric)
                own = mine.get(metric)
                ratio = f' ({own / ref:.2f}x)' if ref and own else ''
                cells.append(ms(ref) + ratio if ref is not None else '–')
        lines.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     epilog='The rules: the comment at the top of this script.')
    parser.add_argument('bundle', help='the archive tools/bundle-results.sh wrote')
    parser.add_argument('--reference', default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'reference'),
        help='the reference GPUs\' campaigns (default: results/reference/)')
    args = parser.parse_args()
    try:
        archive = tarfile.open(args.bundle, 'r:*')
    except (OSError, tarfile.TarError) as e:
        print(f'check-bundle.py: {args.bundle}: not a bundle ({e})', file=sys.stderr)
        return 2
    with archive, tempfile.TemporaryDirectory() as tmp:
        members = [m for m in archive.getmembers()
                   if not (m.name.startswith('/') or '..' in m.name.split('/'))
                   and (m.isfile() or m.isdir())]
        tops = sorted({m.name.split('/')[0] for m in members})
        if len(tops) != 1:
            print(f'check-bundle.py: {args.bundle}: not a bundle (want one folder, found '
                  f'{len(tops)})', file=sys.stderr)
            return 2
        if hasattr(tarfile, 'data_filter'):
            archive.extractall(tmp, members=members, filter='data')
        else:
            archive.extractall(tmp, members=members)
        folder = os.path.join(tmp, tops[0])
        problems, medians, gpu, order = check(folder)
        sys.stdout.write(page(folder, medians, gpu, order, args.reference))
    for problem in problems:
        print(f'check-bundle.py: {args.bundle}: {problem}', file=sys.stderr)
    if not problems:
        print(f'check-bundle.py: {args.bundle}: complete: {len(medians)} stages timed and '
              f'verified on {gpu}', file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
