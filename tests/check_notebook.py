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
  - `git clone URL DIR` then `%cd DIR` enters the repository; $NAME in a command is a variable
    an earlier Python cell assigns.
  - A file name a Python cell displays (a string ending in .png, .md or .csv) is one that run.sh
    or plot.py says it writes, or one a command of the notebook names.

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


class Checker:
    def __init__(self, path, build):
        self.path = path
        self.build = build
        self.problems = []
        self.commands = 0
        self.python_cells = 0
        self.variables = set()
        self.clone_dirs = set()
        self.in_repository = False
        self.command_words = set()
        self.help_texts = {}
        self.gpu_outputs = set()  # what commands stopped for want of a GPU would have written
        self.scratch = None

    def problem(self, cell, text):
        self.problems.append(f"{self.path}: cell {cell}: {text}")

    def help_of(self, words):
        key = tuple(words)
        if key not in self.help_texts:
            status, out, err = run(list(words) + ["--help"])
            self.help_texts[key] = out + err if status == 0 else None
        return self.help_texts[key]

    # --- shell commands --------------------------------------------------------------------
    def shell(self, cell, line):
        for name in re.findall(r"\$\{?([A-Za-z_]\w*)", line):
            if name not in self.variables and name not in os.environ:
                self.problem(cell, f"`{line}`: ${name} is not set by an earlier Python cell")
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
                    self.simple_command(cell, line, command)
                command = []
            else:
                command.append(token)

    def simple_command(self, cell, line, words):
        while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
            words = words[1:]
        if not words:
            return
        self.commands += 1
        self.command_words.update(os.path.basename(w) for w in words)
        program = words[0]
        if program == "git" and len(words) >= 2 and words[1] == "clone":
            if shutil.which("git") is None:
                self.problem(cell, f"`{line}`: git not found")
            self.clone_dirs.add(words[-1] if len(words) >= 4 else
                                os.path.basename(words[-1]).removesuffix(".git"))
            return
        if "/" not in program:
            if shutil.which(program) is None and program not in ELSEWHERE:
                self.problem(cell, f"`{line}`: {program}: no such program")
            elif program == "make":
                self.check_make(cell, line, words)
            elif program.startswith("python") and len(words) >= 2:
                self.check_python_script(cell, line, words)
            return
        if not self.in_repository:
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

    def check_make(self, cell, line, words):
        status, _, err = run(["make", "-n"] + words[1:])
        if status != 0:
            self.problem(cell, f"`{line}`: make -n fails (status {status}): {first_line(err)}")

    def check_run_sh(self, cell, line, words):
        help_text = self.help_of(["./run.sh"]) or ""
        for word in words[1:]:
            if word.startswith("--") and not re.search(r"(^|\s)" + re.escape(word) + r"\b", help_text):
                self.problem(cell, f"`{line}`: ./run.sh --help does not list {word}")
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

    def check_python_script(self, cell, line, words):
        script = words[1]
        if script.startswith("-"):
            return
        if not self.in_repository or not os.path.isfile(script):
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
                    self.shell(cell, line.strip())
            return
        # The Python first (with the shell and magic lines as `pass`): the variables it sets are
        # those the cell's shell lines may use.
        python = []
        for line in lines:
            stripped = line.lstrip()
            indent = line[: len(line) - len(stripped)]
            python.append(indent + "pass" if stripped.startswith(("!", "%")) else line)
        try:
            tree = ast.parse("\n".join(python))
        except SyntaxError as error:
            self.problem(cell, f"Python does not parse: line {error.lineno}: {error.msg}")
            tree = ast.parse("")
        else:
            self.python_cells += 1
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.variables.add(target.id)
        for line in lines:
            stripped = line.lstrip()
            if stripped.startswith("!"):
                self.shell(cell, stripped[1:].strip())
            elif stripped.startswith("%"):
                self.line_magic(cell, stripped)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                self.displayed_file(cell, node.value)

    def line_magic(self, cell, line):
        words = line.split()
        if words[0] != "%cd":
            self.problem(cell, f"line magic {words[0]}: only %cd is expected")
        elif len(words) == 2 and words[1] in self.clone_dirs:
            self.in_repository = True
        else:
            self.problem(cell, f"`{line}`: not the folder a `git clone` of the notebook made")

    def displayed_file(self, cell, text):
        name = os.path.basename(text)
        if not DISPLAYED.match(name):
            return
        written = (self.help_of(["./run.sh"]) or "") + (self.help_of(["python3", "tools/plot.py"]) or "")
        if name not in written and name not in self.command_words:
            self.problem(cell, f"'{text}': neither run.sh nor plot.py writes {name}, nor does a "
                               "command of the notebook name it")

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
