#!/usr/bin/env python3
"""ptx-functions.py PTX: prints a PTX file's functions and globals one after the other, sorted, with
what the compiler numbers or hashes renamed (internal names, anonymous namespaces, basic-block
labels) and its comments left out, so that two builds of the same functions compare equal with
`cmp` whatever order their source defines them in. Used to check that moving a kernel between a
stage's parts changed no function (results/reference/host-2core-vm/wider-search-refactor/).
Exit status 0; 2 without a readable file."""
import re
import sys


def functions(text):
    text = re.sub(r'_INTERNAL_[0-9a-f_]+', '_INTERNAL_', text)
    text = re.sub(r'__N__[0-9a-f]+_', '__N__', text)
    text = re.sub(r'\$L__BB\d+_', '$L__BB_', text)
    text = '\n'.join(line for line in text.split('\n') if not line.strip().startswith('//'))
    chunks = re.split(r'\n(?=\.(?:visible|weak|extern|global|const|shared|func|entry)\b)', text)
    return sorted(chunks)


def main(argv):
    if len(argv) != 2 or argv[1] in ('-h', '--help'):
        print(__doc__)
        return 0 if len(argv) == 2 else 2
    try:
        with open(argv[1], encoding='utf-8') as f:
            text = f.read()
    except OSError as e:
        print(f'ptx-functions: cannot read {argv[1]}: {e.strerror}', file=sys.stderr)
        return 2
    print('\n=====\n'.join(functions(text)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
