#!/usr/bin/env python3
"""Checks a Colab notebook of this repository (colab/course.ipynb) without a GPU: every shell
command in it (a `!` line, or a line of a `%%bash` cell) names a program that exists, and the
repository's own commands accept the words it gives them; every Python cell parses.

  - The notebook is nbformat 4 and asks Colab for a T4 GPU.
  - A program is a standard tool found on PATH (nvidia-smi and nvcc may be missing here: a
    machine without a GPU), a file of the repository (./run.sh, tools/...; executable unless
    run by python3), or build/NAME, one of the executables make builds (looked for in --build).
  - `make ARGS` runs as `make -n ARGS`: the goals and variables are the Makefile's.
  - `./run.sh ARGS` runs with the GPU hidden (RUN_NVIDIA_SMI=false): it parses its options first,
    so it must stop with status 2 and "no NVIDIA GPU found", not with a usage error.
  - build/NAME ARGS runs with the GPU hidden (CUDA_VISIBLE_DEVICES=), in a scratch folder that
    links to the repository's files (what it writes stays there): status 0, or 2 with "no
    CUDA-capable GPU" after its options were parsed, or, reading an image that a command stopped
    for want of a GPU would have written, "cannot open image".
  - python3 SCRIPT ARGS: each --option appears in `python3 SCRIPT --help`.
  - The repository comes from `git clone URL DIR`, or from an archive the notebook uploads
    (google.colab's files.upload()) and unpacks with `mkdir -p DIR && tar -xzf "$NAME" -C DIR`,
    $NAME a variable that holds the uploaded file's name; `%cd DIR` must enter a folder made so on
    every way to that line (both branches of an `if`). A markdown cell must say how to make the
    archive (`git archive ... -o FILE HEAD`, no --prefix); here, in a git work tree, the checker
    makes it and unpacks it with the notebook's own tar command: DIR/ must hold the repository.
  - An address (a string with "://", "git@...", or the URL of a `git clone`) is not a
    placeholder (YOUR-ACCOUNT, example.com, <...>). $NAME in a command is a variable an earlier
    Python cell assigns; one that may be empty (a blank form field: NAME = "") is used only
    under `if NAME:`.
  - A file name a Python cell displays (a string ending in .png, .md or .csv) is one that run.sh
    or plot.py says it writes, or one a command of the notebook names; under results/, it is in
    ./run.sh's results folder (its --out default, or an --out of the notebook) or in the
    repository.

usage: tests/check_notebook.py NOTEBOOK [--build DIR]    (run from the repository root)
Prints one line per problem ("NOTEBOOK: cell N: ...") and a summary; exit status 1 when there
is a problem, 2 for a notebook that cannot be read.
"""
import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# On Colab, not necessarily here (a CI machine has no GPU, maybe no nvcc on PATH).
ELSEWHERE = {"nvidia-smi", "nvcc"}
NO_GPU_ENV = {"CUDA_VISIBLE_DEVICES": "", "RUN_NVIDIA_SMI": "false", "NVIDIA_SMI": "false"}
DISPLAYED = re.compile(r"^[\w.-]+\.(png|md|csv)$")
# An address nobody can clone: a placeholder left for the user to fill in.
PLACEHOLDER = re.compile(r"(?i)\byour[-_]|\bexample\.(com|org|net)\b|<[^<>]*>")
ADDRESS = re.compile(r"://|^[\w.-]+@[\w.-]+:")
# The Python a `!` or `%` line of a code cell becomes while the cell is parsed: a call that
# keeps the line's place in the cell's structure (an `if` and its branches).
ESCAPE = "_notebook_line_"
# git clone's options that take a value as the next word.
CLONE_VALUE_OPTIONS = {"-b", "--branch", "-o", "--origin", "-c", "--config", "--depth", "-j",
                       "--jobs", "--reference", "--reference-if-able", "--separate-git-dir",
                       "--template", "-u", "--upload-pack", "--shallow-since", "--shallow-exclude",
                       "--filter", "--server-option", "--bundle-uri"}
REPOSITORY_FILES = ("Makefile", "run.sh")  # what the folder the notebook enters must hold


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    env.update(extra or {})
    return env


def run(words, extra_env=None, timeout=300, cwd=None):
    result = subprocess.run(words, env=clean_env(extra_env), capture_output=True, text=True,
                            timeout=timeout, cwd=cwd)
    return result.returncode, result.stdout, result.stderr


def first_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(nothing on stderr)"


def variable_word(word):
    """NAME for a word that is exactly $NAME or ${NAME}, else None."""
    match = re.fullmatch(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))", word)
    return (match.group(1) or match.group(2)) if match else None


def truthy_names(test):
    """The names an `if TEST:` makes non-empty in its body, and those it makes non-empty in its
    else branch (`if NAME`, `if NAME.strip()`, `if NAME != ""`, `not`, `and`)."""
    if isinstance(test, ast.Name):
        return {test.id}, set()
    if (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute)
            and isinstance(test.func.value, ast.Name) and test.func.attr == "strip"):
        return {test.func.value.id}, set()
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yes, no = truthy_names(test.operand)
        return no, yes
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == ""):
        if isinstance(test.ops[0], ast.NotEq):
            return {test.left.id}, set()
        if isinstance(test.ops[0], ast.Eq):
            return set(), {test.left.id}
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        names = set()
        for value in test.values:
            names |= truthy_names(value)[0]
        return names, set()
    return set(), set()


def dotted(node):
    """'a.b.c' for the expression a.b.c, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        outer = dotted(node.value)
        return f"{outer}.{node.attr}" if outer else None
    return None


def target_names(target):
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(target_names(t) for t in target.elts)) if target.elts else set()
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return set()


def parse_tar(args):
    """(extracts, archive, directory) of tar's words after `tar`, GNU style."""
    extracts, archive, directory = False, None, None
    k = 0
    while k < len(args):
        word = args[k]
        if word.startswith("--"):
            name, _, value = word.partition("=")
            if name in ("--extract", "--get"):
                extracts = True
            elif name in ("--file", "--directory"):
                if not value and k + 1 < len(args):
                    k += 1
                    value = args[k]
                if name == "--file":
                    archive = value
                else:
                    directory = value
        elif word.startswith("-") or k == 0:
            # A bundle of short options (-xzf, or the old style xzf as the first word): f and C
            # take the rest of a dashed bundle, else the next word.
            letters = word.lstrip("-")
            dashed = word.startswith("-")
            for position, letter in enumerate(letters):
                if letter == "x":
                    extracts = True
                elif letter in "fC":
                    rest = letters[position + 1:] if dashed else ""
                    if not rest and k + 1 < len(args):
                        k += 1
                        rest = args[k]
                    if letter == "f":
                        archive = rest
                    else:
                        directory = rest
                    break
        k += 1
    return extracts, archive, directory


def markdown_commands(text, program):
    """The commands (inline `code` or lines of a fenced block) of a markdown cell that begin with
    PROGRAM (e.g. "git archive")."""
    found = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            candidates = [line.split(" #")[0]]
        else:
            candidates = re.findall(r"`([^`\n]+)`", line)
        found += [c.strip() for c in candidates if c.strip().startswith(program + " ")]
    return found


def in_git_work_tree():
    try:
        status, out, _ = run(["git", "rev-parse", "--is-inside-work-tree"])
    except OSError:
        return False
    return status == 0 and out.strip() == "true"


class Checker:
    def __init__(self, path, build):
        self.path = path
        self.build = build
        self.problems = []
        self.commands = 0
        self.python_cells = 0
        self.variables = set()
        self.values = {}  # NAME: the strings a Python cell assigns to it
        self.colab_files = set()  # names google.colab's files module is imported as
        self.uploads = set()  # variables that hold what files.upload() returned, or a name of it
        self.unpacks = []  # (cell, line, tar's words, DIR, $NAME) of each archive unpacked
        self.archive_commands = []  # (cell, `git archive ...`) of the markdown cells
        self.run_outs = set()  # the --out folders of the notebook's ./run.sh commands
        # What the cells made, as tokens: ("dir", DIR) a folder, ("repo", DIR) a folder that holds
        # the repository, IN_REPOSITORY once a %cd entered one.
        self.made = set()
        self.command_words = set()
        self.help_texts = {}
        self.gpu_outputs = set()  # what commands stopped for want of a GPU would have written
        self.scratch = None

    IN_REPOSITORY = ("entered",)

    def problem(self, cell, text):
        text = f"{self.path}: cell {cell}: {text}"
        if text not in self.problems:
            self.problems.append(text)

    def help_of(self, words):
        key = tuple(words)
        if key not in self.help_texts:
            status, out, err = run(list(words) + ["--help"])
            self.help_texts[key] = out + err if status == 0 else None
        return self.help_texts[key]

    def placeholder(self, cell, text):
        if PLACEHOLDER.search(text):
            self.problem(cell, f"'{text}' is a placeholder address, not a repository anyone can "
                               "clone: an empty form field instead (NAME = \"\"  #@param), and an "
                               "archive to upload when it stays empty")

    # --- shell commands --------------------------------------------------------------------
    def shell(self, cell, line, state, guards=frozenset()):
        for name in re.findall(r"\$\{?([A-Za-z_]\w*)", line):
            if name not in self.variables and name not in os.environ:
                self.problem(cell, f"`{line}`: ${name} is not set by an earlier Python cell")
            elif "" in self.values.get(name, ()) and name not in guards:
                self.problem(cell, f"`{line}`: ${name} may be empty (a blank form field) and the "
                                   f"line does not run only under `if {name}:`")
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError as error:
            self.problem(cell, f"`{line}`: does not parse ({error})")
            return
        command = []
        for token in tokens + [";"]:
            if token in (";", "&&", "||", "|", "&"):
                if command:
                    self.simple_command(cell, line, command, state)
                command = []
            else:
                command.append(token)

    def simple_command(self, cell, line, words, state):
        while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
            words = words[1:]
        if not words:
            return
        self.commands += 1
        self.command_words.update(os.path.basename(w) for w in words)
        program = words[0]
        if program == "git" and len(words) >= 2 and words[1] == "clone":
            self.check_clone(cell, line, words, state)
            return
        if program == "mkdir":
            state.update(("dir", w.rstrip("/")) for w in words[1:] if not w.startswith("-"))
        if program == "tar":
            self.check_tar(cell, line, words, state)
        if "/" not in program:
            if shutil.which(program) is None and program not in ELSEWHERE:
                self.problem(cell, f"`{line}`: {program}: no such program")
            elif program == "make":
                self.check_make(cell, line, words)
            elif program.startswith("python") and len(words) >= 2:
                self.check_python_script(cell, line, words, state)
            return
        if self.IN_REPOSITORY not in state:
            self.problem(cell, f"`{line}`: {program} before the repository is cloned and entered")
            return
        if program.startswith("build/"):
            self.check_built(cell, line, words)
        elif not os.path.isfile(program):
            self.problem(cell, f"`{line}`: {program}: no such file in the repository")
        elif not os.access(program, os.X_OK):
            self.problem(cell, f"`{line}`: {program} is not executable")
        elif program in ("./run.sh", "run.sh"):
            self.check_run_sh(cell, line, words)

    def check_clone(self, cell, line, words, state):
        if shutil.which("git") is None:
            self.problem(cell, f"`{line}`: git not found")
        positional = []
        k = 2
        while k < len(words):
            if words[k] in CLONE_VALUE_OPTIONS:
                k += 1
            elif not words[k].startswith("-"):
                positional.append(words[k])
            k += 1
        if not positional:
            self.problem(cell, f"`{line}`: git clone of no address")
            return
        url = positional[0]
        name = variable_word(url)
        for value in sorted(self.values.get(name, ())) if name else [url]:
            self.placeholder(cell, value)
        folder = positional[1] if len(positional) > 1 else \
            os.path.basename(url.rstrip("/")).removesuffix(".git")
        folder = folder.rstrip("/")
        state.update({("dir", folder), ("repo", folder)})

    def check_tar(self, cell, line, words, state):
        extracts, archive, folder = parse_tar(words[1:])
        if not extracts:
            return
        if folder is None:
            self.problem(cell, f"`{line}`: tar unpacks into the current folder: give the archive a "
                               "folder of its own (mkdir -p DIR && tar -xzf ARCHIVE -C DIR)")
            return
        folder = folder.rstrip("/")
        if ("dir", folder) not in state:
            self.problem(cell, f"`{line}`: tar -C {folder}: {folder} is not made before it "
                               f"(mkdir -p {folder})")
        name = variable_word(archive or "")
        if name is None or name not in self.uploads:
            self.problem(cell, f"`{line}`: {archive}: not a file the notebook uploads (a variable "
                               "that holds the name google.colab's files.upload() gave it)")
        else:
            self.unpacks.append((cell, line, words, folder, name))
        state.update({("dir", folder), ("repo", folder)})

    def check_make(self, cell, line, words):
        status, _, err = run(["make", "-n"] + words[1:])
        if status != 0:
            self.problem(cell, f"`{line}`: make -n fails (status {status}): {first_line(err)}")

    def check_run_sh(self, cell, line, words):
        help_text = self.help_of(["./run.sh"]) or ""
        for word in words[1:]:
            if word.startswith("--") and not re.search(r"(^|\s)" + re.escape(word) + r"\b", help_text):
                self.problem(cell, f"`{line}`: ./run.sh --help does not list {word}")
        for k, word in enumerate(words[:-1]):
            if word == "--out":
                self.run_outs.add(words[k + 1].rstrip("/"))
        env = dict(NO_GPU_ENV)
        if self.build:
            env["RUN_BIN_DIR"] = self.build
        status, _, err = run(["./run.sh"] + words[1:], env)
        if not (status == 2 and "no NVIDIA GPU found" in err):
            self.problem(cell, f"`{line}`: with no GPU it should stop at 'no NVIDIA GPU found' after "
                               f"reading its options; status {status}: {first_line(err)}")

    def check_built(self, cell, line, words):
        name = words[0][len("build/"):]
        executable = os.path.join(self.build or "build", name)
        if not os.access(executable, os.X_OK):
            self.problem(cell, f"`{line}`: {executable}: make builds no such program")
            return
        if self.scratch is None:
            self.scratch = tempfile.TemporaryDirectory(prefix="check-notebook-")
            for entry in os.listdir("."):
                os.symlink(os.path.abspath(entry), os.path.join(self.scratch.name, entry))
        status, _, err = run([os.path.abspath(executable)] + words[1:], NO_GPU_ENV,
                             cwd=self.scratch.name)
        if status == 2 and "no CUDA-capable GPU" in err:
            if "--output" in words[:-1]:
                self.gpu_outputs.add(words[words.index("--output") + 1])
        elif status != 0 and not ("cannot open image" in err and
                                  any(word in self.gpu_outputs for word in words[1:])):
            self.problem(cell, f"`{line}`: status {status}: {first_line(err)}")

    def check_python_script(self, cell, line, words, state):
        script = words[1]
        if script.startswith("-"):
            return
        if self.IN_REPOSITORY not in state or not os.path.isfile(script):
            self.problem(cell, f"`{line}`: {script}: no such file in the repository")
            return
        help_text = self.help_of(words[:2])
        if help_text is None:
            self.problem(cell, f"`{line}`: {script} --help fails")
            return
        for word in words[2:]:
            if word.startswith("--") and word not in help_text:
                self.problem(cell, f"`{line}`: {script} --help does not list {word}")

    # --- cells -----------------------------------------------------------------------------
    def code_cell(self, cell, source):
        lines = source.splitlines()
        if lines and lines[0].startswith("%%"):
            if lines[0].split()[0] != "%%bash":
                self.problem(cell, f"cell magic {lines[0].split()[0]}: only %%bash is expected")
                return
            for line in lines[1:]:
                if line.strip() and not line.lstrip().startswith("#"):
                    self.shell(cell, line.strip(), self.made)
            return
        # The Python first, each shell or magic line a call that keeps its place (in an `if` or
        # its else): the variables the cell sets are those its shell lines may use, and what a
        # %cd enters must have been made on every way to it.
        python = []
        for number, line in enumerate(lines):
            stripped = line.lstrip()
            indent = line[: len(line) - len(stripped)]
            python.append(f"{indent}{ESCAPE}({number})" if stripped.startswith(("!", "%")) else line)
        try:
            tree = ast.parse("\n".join(python))
        except SyntaxError as error:
            self.problem(cell, f"Python does not parse: line {error.lineno}: {error.msg}")
            # The shell and magic lines one after the other, as they come.
            for line in lines:
                self.escaped_line(cell, line.lstrip(), self.made, frozenset())
            return
        self.python_cells += 1
        self.learn(tree)
        self.made = self.block(cell, tree.body, lines, set(self.made), frozenset())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                self.displayed_file(cell, node.value)
                if ADDRESS.search(node.value):
                    self.placeholder(cell, node.value)

    def learn(self, tree):
        """The names a cell assigns, the strings it assigns them, google.colab's files module and
        the variables that hold what files.upload() returned (or a name of it)."""
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "google.colab":
                self.colab_files.update(a.asname or a.name for a in node.names if a.name == "files")
            elif isinstance(node, ast.Import):
                self.colab_files.update(a.asname for a in node.names
                                        if a.name == "google.colab.files" and a.asname)
        assignments = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                assignments.append(([t for t in node.targets], node.value))
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                assignments.append(([node.target], node.value))
            elif isinstance(node, (ast.For, ast.comprehension)):
                assignments.append(([node.target], node.iter))
            elif isinstance(node, ast.NamedExpr):
                assignments.append(([node.target], node.value))
        for targets, value in assignments:
            for target in targets:
                for name in target_names(target):
                    self.variables.add(name)
                    if isinstance(value, ast.Constant) and isinstance(value.value, str) \
                            and isinstance(target, ast.Name):
                        self.values.setdefault(name, set()).add(value.value)
        changed = True
        while changed:
            changed = False
            for targets, value in assignments:
                if not self.from_upload(value):
                    continue
                names = set().union(*(target_names(t) for t in targets))
                if names - self.uploads:
                    self.uploads |= names
                    changed = True

    def from_upload(self, expression):
        for node in ast.walk(expression):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "upload":
                module = dotted(node.func.value)
                if module in self.colab_files or module == "google.colab.files":
                    return True
            if isinstance(node, ast.Name) and node.id in self.uploads:
                return True
        return False

    def block(self, cell, statements, lines, state, guards):
        """Checks the shell and magic lines of STATEMENTS in order; returns STATE (what is made)
        after them: after an `if`, what both of its branches made."""
        for statement in statements:
            if (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                    and isinstance(statement.value.func, ast.Name)
                    and statement.value.func.id == ESCAPE):
                line = lines[statement.value.args[0].value].lstrip()
                self.escaped_line(cell, line, state, guards)
            elif isinstance(statement, ast.If):
                yes, no = truthy_names(statement.test)
                made = self.block(cell, statement.body, lines, set(state), guards | yes)
                made &= self.block(cell, statement.orelse, lines, set(state), guards | no)
                state = made
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                state = self.block(cell, statement.body, lines, state, guards)
            else:
                # Loops, try, definitions: their lines are checked, but what they make may not be.
                for field in ("body", "orelse", "finalbody"):
                    children = getattr(statement, field, None)
                    if isinstance(children, list):
                        self.block(cell, children, lines, set(state), guards)
                for handler in getattr(statement, "handlers", []):
                    self.block(cell, handler.body, lines, set(state), guards)
        return state

    def escaped_line(self, cell, line, state, guards):
        if line.startswith("!"):
            self.shell(cell, line[1:].strip(), state, guards)
        elif line.startswith("%"):
            self.line_magic(cell, line, state)

    def line_magic(self, cell, line, state):
        words = line.split()
        if words[0] != "%cd":
            self.problem(cell, f"line magic {words[0]}: only %cd is expected")
        elif len(words) == 2 and ("repo", words[1].rstrip("/")) in state:
            state.add(self.IN_REPOSITORY)
        else:
            self.problem(cell, f"`{line}`: not the folder a `git clone` of the notebook made, or "
                               "the archive it uploaded was unpacked into, on every way to this line")

    def displayed_file(self, cell, text):
        name = os.path.basename(text)
        if not DISPLAYED.match(name):
            return
        run_help = self.help_of(["./run.sh"]) or ""
        written = run_help + (self.help_of(["python3", "tools/plot.py"]) or "")
        if name not in written and name not in self.command_words:
            self.problem(cell, f"'{text}': neither run.sh nor plot.py writes {name}, nor does a "
                               "command of the notebook name it")
        if text.startswith("results/") and not os.path.exists(text):
            default = re.search(r"--out\s+\S+\s+[^\n]*?\(default ([^)\s]+)\)", run_help)
            outs = self.run_outs | ({default.group(1).rstrip("/")} if default else set())
            if not any(text.startswith(out + "/") for out in outs):
                self.problem(cell, f"'{text}': not in the repository, nor in ./run.sh's results "
                                   f"folder ({', '.join(sorted(outs)) or 'its --out default'})")

    def check_archives(self):
        """The archive the notebook unpacks: a markdown cell says how to make it; made here (in a
        git work tree) and unpacked by the notebook's own tar command, it puts the repository in
        the folder the notebook enters."""
        if not self.unpacks:
            return
        if not self.archive_commands:
            self.problem(self.unpacks[0][0], "the notebook unpacks an uploaded archive, but no "
                                             "markdown cell says how to make it (`git archive "
                                             "--format=tar.gz -o course.tar.gz HEAD`)")
            return
        formats = None
        status, out, _ = run(["git", "archive", "--list"])
        if status == 0:
            formats = set(out.split())
        work_tree = in_git_work_tree()
        for cell, text in self.archive_commands:
            try:
                words = shlex.split(text)
            except ValueError as error:
                self.problem(cell, f"`{text}`: does not parse ({error})")
                continue
            output, output_at, positional = None, None, []
            for k, word in enumerate(words):
                if k >= 2 and not word.startswith("-") and k != output_at:
                    positional.append(word)
                if word in ("-o", "--output") and k + 1 < len(words):
                    output, output_at = words[k + 1], k + 1
                elif word.startswith("--output="):
                    output, output_at = word.split("=", 1)[1], k
                elif word.startswith("--prefix=") and word != "--prefix=" or word == "--prefix":
                    self.problem(cell, f"`{text}`: {word}: the archive's files are not at its top, "
                                       "so unpacking it into a folder does not make that folder "
                                       "the repository")
                elif word.startswith("--format=") and formats is not None \
                        and word.split("=", 1)[1] not in formats:
                    self.problem(cell, f"`{text}`: git archive knows no {word} "
                                       f"(git archive --list: {' '.join(sorted(formats))})")
            if output is None:
                self.problem(cell, f"`{text}`: says no -o FILE: the archive goes to the terminal")
                continue
            if not work_tree:
                continue  # not a git checkout (an archive itself): nothing to make it from
            with tempfile.TemporaryDirectory(prefix="check-notebook-archive-") as scratch:
                archive = os.path.join(scratch, os.path.basename(output))
                made = list(words)
                made[output_at] = archive if made[output_at] == output else "--output=" + archive
                if len(positional) == 1:
                    made += ["--"] + list(REPOSITORY_FILES)  # the whole tree-ish: these will do
                status, _, err = run(made)
                if status != 0:
                    self.problem(cell, f"`{text}`: git archive fails here (status {status}): "
                                       f"{first_line(err)}")
                    continue
                for unpack_cell, line, tar_words, folder, name in self.unpacks:
                    where = os.path.join(scratch, "colab")
                    os.makedirs(os.path.join(where, folder), exist_ok=True)
                    tar = [archive if variable_word(w) == name else w for w in tar_words]
                    status, _, err = run(tar, cwd=where)
                    missing = [f for f in REPOSITORY_FILES
                               if not os.path.isfile(os.path.join(where, folder, f))]
                    if status != 0 or missing:
                        found = ", ".join(f"no {folder}/{f}" for f in missing)
                        failed = f"tar: status {status}: {first_line(err)}" if status != 0 else ""
                        what = "; ".join(filter(None, (found, failed)))
                        self.problem(unpack_cell, f"`{line}`: the archive `{text}` makes, unpacked "
                                                  f"by this line: {what}")
                    shutil.rmtree(where)

    def check(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                notebook = json.load(f)
        except (OSError, ValueError) as error:
            print(f"{self.path}: cannot read the notebook: {error}", file=sys.stderr)
            return 2
        if notebook.get("nbformat") != 4:
            self.problems.append(f"{self.path}: nbformat {notebook.get('nbformat')}, not 4")
        metadata = notebook.get("metadata", {})
        if metadata.get("accelerator") != "GPU" or metadata.get("colab", {}).get("gpuType") != "T4":
            self.problems.append(f"{self.path}: metadata does not ask Colab for a T4 GPU "
                                 "(accelerator GPU, colab.gpuType T4)")
        for number, cell in enumerate(notebook.get("cells", []), start=1):
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else source
            if cell.get("cell_type") == "code":
                self.code_cell(number, source)
            elif cell.get("cell_type") == "markdown":
                self.archive_commands += [(number, c) for c in markdown_commands(source, "git archive")]
        self.check_archives()
        if self.scratch is not None:
            self.scratch.cleanup()
        for problem in self.problems:
            print(problem)
        print(f"{self.path}: {self.commands} commands and {self.python_cells} Python cells checked, "
              f"{len(self.problems)} problems")
        return 1 if self.problems else 0


def main(argv):
    if len(argv) == 2:
        return Checker(argv[1], None).check()
    if len(argv) == 4 and argv[2] == "--build":
        return Checker(argv[1], argv[3]).check()
    print("usage: tests/check_notebook.py NOTEBOOK [--build DIR]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
