#!/usr/bin/env python3
"""Checks that the course guide (COURSE.md) is a plan of lab sessions that fit their slots and
follow the stages: prints one line per problem on stderr and exits 1, or prints nothing and exits
0 when the guide holds these rules:

  - SESSIONS sessions ("## Session N: ... (stages ...)"), numbered 1 to SESSIONS in order;
  - each with "**Time budget: N min**" and its parts below it, one a line, "- M min, required:
    what" or "- M min, optional: what"; the parts add up to N, N is at most 180 (three hours)
    and at least 120 (a lab of two to three hours), and at least one part is required;
  - every stage a heading names comes in the same session as the stage it builds on (its
    manifest's builds-on), or in a later one;
  - nothing is used before it is introduced: a command named in a session's prose (`make GOAL`,
    `build/PROGRAM`, `tools/...`, `./run.sh`, a python3 script) runs in a code block of that
    session or of an earlier one; a /tmp/ file a command reads is written by an earlier command
    of the same session (`--output`, `--record`, `-o` or `>`), one the prose names by a command
    of the same session; a generated scene (build/scenes/) comes after `make scenes` in a code
    block of that session or an earlier one; results/local/ after a command that writes there
    (./run.sh, tools/sweep.sh, make profile).

Which stages exist and what they build on comes from tools/stages (STAGES_DIR as there); that
every stage is in some heading is tests/test_course.c's check. Run from the repository root.
"""
import argparse
import re
import subprocess
import sys

SESSIONS = 14
MAX_MINUTES, MIN_MINUTES = 180, 120
WRITES = ('--output', '--record', '-o', '>')
RESULTS_WRITERS = ('./run.sh', 'tools/sweep.sh', 'make profile')


def stages_tool(*args):
    return subprocess.run(['tools/stages', *args], capture_output=True, text=True, check=True).stdout


def stage_table():
    """The stages in course order, their ids and what each builds on."""
    rows = stages_tool('table').splitlines()
    header = rows[0].split('\t')
    table = [dict(zip(header, row.split('\t'))) for row in rows[1:]]
    return table


def resolve(item, table):
    """The position in table of the stage an id or folder name names, else None."""
    def norm(text):
        return re.sub(r'^(p?)0*', r'\1', text)
    for k, row in enumerate(table):
        if item == row['stage'] or (re.fullmatch(r'p?\d+[a-z]?', item) and
                                    norm(item) == norm(row['id'])):
            return k
    return None


def heading_stages(heading, table):
    """The positions in table of the stages a heading's "(stages A, B-C)" names; None if none."""
    m = re.search(r'\(stages? ([^()]*)\)\s*$', heading)
    if not m:
        return None
    found = set()
    for item in (i.strip() for i in m.group(1).split(',')):
        k = resolve(item, table)
        if k is not None:
            found.add(k)
            continue
        for dash in [i for i, c in enumerate(item) if c == '-']:
            a, b = resolve(item[:dash], table), resolve(item[dash + 1:], table)
            if a is not None and b is not None and a <= b:
                found.update(range(a, b + 1))
                break
    return found


def split_sessions(text):
    """[(number, heading, body)] of the guide's sessions, body up to the next "## " heading."""
    sessions = []
    parts = re.split(r'^(## .*)$', text, flags=re.M)
    for heading, body in zip(parts[1::2], parts[2::2]):
        m = re.match(r'## Session (\d+): ', heading)
        if m:
            sessions.append((int(m.group(1)), heading, body))
    return sessions


def code_and_prose(body):
    """The commands of a session's ```sh blocks (comments removed) and its prose."""
    commands, prose, in_block = [], [], False
    for line in body.split('\n'):
        stripped = line.strip()
        if stripped.startswith('```'):
            in_block = not in_block and stripped == '```sh'
            continue
        if in_block:
            command = re.sub(r'\s+#.*$', '', stripped)
            if command and not command.startswith('#'):
                commands.append(command)
        else:
            prose.append(line)
    return commands, '\n'.join(prose)


def command_key(text):
    """What a command runs: `make GOAL`, a program's path, a python3 script; None for others."""
    words = text.split()
    while words and re.fullmatch(r'[A-Z_][A-Z0-9_]*=\S*', words[0]):
        words = words[1:]
    if not words:
        return None
    if words[0] == 'make':
        goals = [w for w in words[1:] if '=' not in w and not w.startswith('-')]
        return 'make ' + goals[0] if goals else 'make'
    if words[0] == 'python3' and len(words) > 1:
        return words[1]
    first = words[0]
    if first.startswith(('build/', 'tools/', './run.sh', 'scenes/')):
        if first.startswith('build/') and re.search(r'\.[a-z]+$', first):
            return None  # a file the build writes (build/NN.resources.txt), not a program
        if first.startswith('build/scenes/') or first.endswith('/'):
            return None  # a generated scene, a folder: files, not programs
        return first
    return None


def budget_problems(number, body):
    problems = []
    m = re.search(r'^\*\*Time budget: (\d+) min\*\*\n((?:- .*\n(?:  .*\n)*)*)', body, flags=re.M)
    if not m:
        return [f'session {number}: no "**Time budget: N min**" with its parts below it']
    total, parts = int(m.group(1)), re.findall(r'^- (\d+) min, (\w+): ', m.group(2), flags=re.M)
    lines = re.findall(r'^- ', m.group(2), flags=re.M)
    if not parts or len(parts) != len(lines):
        problems.append(f'session {number}: a part of the time budget is not "- M min, '
                        'required: ..." or "- M min, optional: ..."')
    if any(kind not in ('required', 'optional') for _, kind in parts):
        problems.append(f'session {number}: a part is neither required nor optional')
    if sum(int(minutes) for minutes, _ in parts) != total:
        problems.append(f'session {number}: the parts add up to '
                        f'{sum(int(minutes) for minutes, _ in parts)} min, not the {total} stated')
    if not MIN_MINUTES <= total <= MAX_MINUTES:
        problems.append(f'session {number}: {total} min, outside a lab of {MIN_MINUTES} to '
                        f'{MAX_MINUTES} min')
    if not any(kind == 'required' for _, kind in parts):
        problems.append(f'session {number}: no required part')
    return problems


def tmp_files(command):
    """The /tmp/ files a command writes and those it reads."""
    words = command.split()
    written, read = [], []
    for i, word in enumerate(words):
        for path in re.findall(r'/tmp/[\w.-]+', word):
            if word.startswith('>'):
                written.append(path)
            elif i > 0 and words[i - 1] in WRITES:
                written.append(path)
            else:
                read.append(path)
    return written, read


def check(path, sessions_wanted):
    problems = []
    text = open(path, encoding='utf-8').read()
    sessions = split_sessions(text)
    numbers = [n for n, _, _ in sessions]
    if numbers != list(range(1, sessions_wanted + 1)):
        problems.append(f'{len(sessions)} sessions numbered {numbers}; want 1 to {sessions_wanted}')
    table = stage_table()
    where = {}
    for number, heading, _ in sessions:
        named = heading_stages(heading, table)
        if named is None:
            problems.append(f'session {number}: its heading does not end with "(stages ...)"')
            continue
        for k in named:
            where.setdefault(k, number)
    for k, session in where.items():
        parent = table[k]['builds-on']
        if parent == 'none':
            continue
        p = next(i for i, row in enumerate(table) if row['stage'] == parent)
        if p not in where:
            problems.append(f'session {session}: stage {table[k]["stage"]} builds on {parent}, '
                            'which no session names')
        elif where[p] > session:
            problems.append(f'session {session}: stage {table[k]["stage"]} comes before {parent} '
                            f'(session {where[p]}), the stage it builds on')
    introduced, scenes_made, results_written = set(), False, False
    for number, heading, body in sessions:
        problems += budget_problems(number, body)
        commands, prose = code_and_prose(body)
        written_here = set()
        for command in commands:
            written, read = tmp_files(command)
            for path in read:
                if path not in written_here:
                    problems.append(f'session {number}: `{command}` reads {path}, which no earlier '
                                    'command of this session writes')
            written_here.update(written)
            if 'build/scenes/' in command and not scenes_made:
                problems.append(f'session {number}: `{command}` uses build/scenes/ before '
                                '`make scenes`')
            key = command_key(command)
            if key:
                introduced.add(key)
            if key == 'make scenes':
                scenes_made = True
            if key in RESULTS_WRITERS:
                results_written = True
        for span in re.findall(r'`([^`\n]+)`', prose):
            key = command_key(span)
            if key and key not in introduced:
                problems.append(f'session {number}: the text names `{span}`, but no code block of '
                                f'this session or an earlier one runs {key}')
            for path in re.findall(r'/tmp/[\w.-]+', span):
                if path not in written_here:
                    problems.append(f'session {number}: the text names {path}, which no command '
                                    'of this session writes')
        if 'build/scenes/' in prose and not scenes_made:
            problems.append(f'session {number}: the text uses build/scenes/, but no code block of '
                            'this session or an earlier one runs `make scenes`')
        if 'results/local/' in body and not results_written:
            problems.append(f'session {number}: results/local/ before any command that writes '
                            f'there ({", ".join(RESULTS_WRITERS)})')
    return problems


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        epilog='The rules: the comment at the top of tools/course-check.py.')
    parser.add_argument('guide', nargs='?', default='COURSE.md', help='default: COURSE.md')
    parser.add_argument('--sessions', type=int, default=SESSIONS,
                        help=f'how many sessions the guide must have (default {SESSIONS})')
    args = parser.parse_args()
    problems = check(args.guide, args.sessions)
    for problem in problems:
        print(f'{args.guide}: {problem}', file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
