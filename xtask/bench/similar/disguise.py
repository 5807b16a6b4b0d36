"""Disguised copies of Python programs, one class of disguise at a time, for `cargo xtask bench
--similar`: what a student does to a classmate's file to hide that it is a copy.

    python3 disguise.py OUT SPEC:ORIGINAL...
    python3 disguise.py --class OUT N SPEC:ORIGINAL...

writes OUT/<disguise>/<spec>/<name>.py for every disguise and every ORIGINAL (a Python file
solving SPEC), and OUT/<disguise>/<spec>/<name>.orig.py, the original itself. With --class,
it writes a class of N submissions for timing, OUT/student-NNNN.py, from the originals under
every combination of the disguises. Every copy is
checked to parse; each disguise keeps the program's behaviour (the bench runs both on the
handout's example and compares).

The disguises:
  rename     every name the program defines renamed consistently (layout and comments kept)
  reorder    functions, classes and methods in another order
  layout     comments dropped and others written, the layout normalised (as a formatter would)
  deadcode   an unused statement at the start of every function, and an unused function
  loops      `for x in range(...)` loops rewritten as `while` loops
  statements statements split (`x += 1` as `x = x + 1`, `return f(x)` through a variable,
             `a, b = 1, 2` as two lines) or joined (two assignments as one)
  mix        all of the above, one after another
"""

import ast
import builtins
import io
import keyword
import os
import re
import sys
import tokenize

BUILTINS = set(dir(builtins)) | set(keyword.kwlist) | {"self", "cls"}


def defined_names(tree):
    """The names the program itself defines: what a student renames."""
    names = set()
    attributes = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                attributes.add(node.attr)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                imported.add((alias.asname or alias.name).split(".")[0])
    keep = lambda n: not (n.startswith("__") and n.endswith("__")) and n not in BUILTINS and n not in imported
    return {n for n in names | attributes if keep(n)}


SYNONYMS = ["value", "item", "thing", "entry", "data", "node", "elem", "unit", "part", "piece"]


def rename(source):
    tree = ast.parse(source)
    names = sorted(defined_names(tree))
    mapping = {}
    for index, name in enumerate(names):
        base = SYNONYMS[index % len(SYNONYMS)]
        mapping[name] = f"{base}_{index}" if name[:1].islower() else f"{base.title()}{index}"
    lines = source.splitlines(keepends=True)
    edits = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string in mapping:
            edits.setdefault(token.start[0], []).append((token.start[1], token.end[1], mapping[token.string]))
        elif token.type == tokenize.STRING and "f" in token.string.split("'")[0].split('"')[0].lower():
            if token.start[0] == token.end[0]:
                new = rename_in_fstring(token.string, mapping)
                edits.setdefault(token.start[0], []).append((token.start[1], token.end[1], new))
    for row, changes in edits.items():
        line = lines[row - 1]
        for start, end, new in sorted(changes, reverse=True):
            line = line[:start] + new + line[end:]
        lines[row - 1] = line
    return "".join(lines)


def rename_in_fstring(text, mapping):
    """The names inside the braces of an f-string (its tokens are one string before 3.12)."""
    replace = lambda m: mapping.get(m.group(0), m.group(0))
    in_braces = lambda m: m.group(0) if m.group(0).startswith("{{") else re.sub(r"[A-Za-z_]\w*", replace, m.group(0))
    return re.sub(r"\{\{|\{[^{}]*\}", in_braces, text)


def statement_lines(lines, node):
    """The lines of a statement with its decorators and the comments right above it."""
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
    while start > 0 and lines[start - 1].strip().startswith("#"):
        start -= 1
    return start, node.end_lineno


def reorder_block(lines, body):
    """Reverses every run of consecutive definitions in `body`, recursing into classes."""
    out_edits = []
    run = []
    for node in body + [None]:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            run.append(node)
            if isinstance(node, ast.ClassDef):
                out_edits.extend(reorder_block(lines, node.body))
            continue
        if len(run) > 1:
            spans = [statement_lines(lines, n) for n in run]
            texts = ["".join(lines[s:e]).rstrip("\n") + "\n" for s, e in spans]
            gaps = [lines[spans[i][1]:spans[i + 1][0]] for i in range(len(spans) - 1)]
            new = []
            for i, text in enumerate(reversed(texts)):
                new.append(text)
                if i < len(gaps):
                    new.extend(gaps[i])
            out_edits.append((spans[0][0], spans[-1][1], new))
        run = []
    return out_edits


def reorder(source):
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = reorder_block(lines, tree.body)
    # Inner edits first would be overwritten by outer ones: apply only the outermost.
    edits.sort(key=lambda e: (e[0], -e[1]))
    result, at = [], 0
    for start, end, new in edits:
        if start < at:
            continue
        result.extend(lines[at:start])
        result.extend(new)
        at = end
    result.extend(lines[at:])
    return "".join(result)


def layout(source):
    tree = ast.parse(source)
    text = ast.unparse(tree)
    out = []
    for line in text.splitlines():
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if stripped.startswith(("def ", "class ")):
            out.append("")
            out.append(f"{indent}# {stripped.split()[1].split('(')[0].rstrip(':')}: see below")
        out.append(line)
    return "\n".join(out).lstrip("\n") + "\n"


def indentation_of(lines, node):
    line = lines[node.lineno - 1]
    return line[: len(line) - len(line.lstrip())]


def deadcode(source):
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    inserts = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and len(node.body) > 1:
                first = node.body[1]
            if first.lineno == node.lineno:
                continue
            indent = indentation_of(lines, first)
            inserts.setdefault(first.lineno - 1, []).append(f"{indent}debug_steps = []\n")
    out = []
    for index, line in enumerate(lines):
        out.extend(inserts.get(index, []))
        out.append(line)
    body = "".join(out)
    helper = "\n\ndef unused_helper(values):\n    total = 0\n    for value in values:\n        total += value\n    return total\n"
    # After the imports, so that nothing it shadows is used before.
    first_def = min((n.lineno for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))), default=None)
    if first_def is None:
        return body + helper
    split = body.splitlines(keepends=True)
    offset = sum(len(v) for k, v in inserts.items() if k < first_def - 1)
    at = first_def - 1 + offset
    return "".join(split[:at]) + helper.lstrip("\n") + "\n\n" + "".join(split[at:])


def has_continue(body):
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Continue):
                return True
    return False


def loops(source):
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    replace, append = {}, {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.For) and not node.orelse and isinstance(node.target, ast.Name)):
            continue
        call = node.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"):
            continue
        if len(call.args) not in (1, 2) or has_continue(node.body) or node.body[0].lineno == node.lineno:
            continue
        if call.lineno != node.lineno or call.end_lineno != node.lineno:
            continue
        name = node.target.id
        args = [ast.get_source_segment(source, a) for a in call.args]
        start, stop = ("0", args[0]) if len(args) == 1 else (args[0], args[1])
        indent = indentation_of(lines, node)
        body_indent = indentation_of(lines, node.body[0])
        # The bound is read once, as range() reads it.
        replace[node.lineno - 1] = [
            f"{indent}{name} = {start}\n",
            f"{indent}{name}_stop = {stop}\n",
            f"{indent}while {name} < {name}_stop:\n",
        ]
        depth = node.col_offset
        append.setdefault(node.end_lineno - 1, []).append((-depth, f"{body_indent}{name} += 1\n"))
    out = []
    for index, line in enumerate(lines):
        out.extend(replace.get(index, [line]))
        for _, text in sorted(append.get(index, [])):
            out.append(text)
    return "".join(out)


def single_line(node):
    return node.lineno == node.end_lineno


def statements(source):
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    replace = {}
    bodies = [n.body for n in ast.walk(tree) if hasattr(n, "body") and isinstance(n.body, list)]
    bodies += [n.orelse for n in ast.walk(tree) if hasattr(n, "orelse") and isinstance(n.orelse, list)]
    counter = 0
    for body in bodies:
        skip = False
        for i, stmt in enumerate(body):
            if skip:
                skip = False
                continue
            if not single_line(stmt) or lines[stmt.lineno - 1].rstrip().endswith(("\\", ";")):
                continue
            indent = indentation_of(lines, stmt)
            if stmt.col_offset != len(indent):
                continue
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                op = ast.unparse(ast.BinOp(ast.Name("a"), stmt.op, ast.Name("b"))).split()[1]
                value = ast.get_source_segment(source, stmt.value)
                replace[stmt.lineno - 1] = [f"{indent}{stmt.target.id} = {stmt.target.id} {op} ({value})\n"]
            elif isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Call):
                counter += 1
                value = ast.get_source_segment(source, stmt.value)
                replace[stmt.lineno - 1] = [f"{indent}result_{counter} = {value}\n", f"{indent}return result_{counter}\n"]
            elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
                  and isinstance(stmt.value, ast.Tuple) and len(stmt.targets[0].elts) == len(stmt.value.elts)
                  and all(isinstance(t, ast.Name) for t in stmt.targets[0].elts)):
                targets = [t.id for t in stmt.targets[0].elts]
                used = {n.id for v in stmt.value.elts for n in ast.walk(v) if isinstance(n, ast.Name)}
                if used & set(targets):
                    continue
                replace[stmt.lineno - 1] = [
                    f"{indent}{t} = {ast.get_source_segment(source, v)}\n" for t, v in zip(targets, stmt.value.elts)
                ]
            elif i + 1 < len(body) and joinable(stmt, body[i + 1], lines, indent):
                second = body[i + 1]
                a, b = stmt.targets[0].id, second.targets[0].id
                va = ast.get_source_segment(source, stmt.value)
                vb = ast.get_source_segment(source, second.value)
                replace[stmt.lineno - 1] = [f"{indent}{a}, {b} = {va}, {vb}\n"]
                replace[second.lineno - 1] = []
                skip = True
    out = []
    for index, line in enumerate(lines):
        out.extend(replace.get(index, [line]))
    return "".join(out)


def joinable(first, second, lines, indent):
    simple = lambda s: (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                        and single_line(s) and not lines[s.lineno - 1].rstrip().endswith(("\\", ";")))
    if not (simple(first) and simple(second)) or second.col_offset != len(indent):
        return False
    if second.lineno != first.lineno + 1:
        return False
    a = first.targets[0].id
    b = second.targets[0].id
    used = {n.id for n in ast.walk(second.value) if isinstance(n, ast.Name)}
    return a != b and a not in used and not any(isinstance(n, ast.Call) for n in ast.walk(second.value))


def mix(source):
    for step in (rename, reorder, deadcode, loops, statements, layout):
        source = step(source)
    return source


DISGUISES = {
    "rename": rename,
    "reorder": reorder,
    "layout": layout,
    "deadcode": deadcode,
    "loops": loops,
    "statements": statements,
    "mix": mix,
}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)


def make_class(out, size, originals):
    """`size` submissions: student i is original i mod the originals, under the disguises of
    the bits of i // originals (every combination of the six before any repeats)."""
    steps = [rename, reorder, deadcode, loops, statements, layout]
    sources = []
    for argument in originals:
        with open(argument.partition(":")[2]) as f:
            sources.append(f.read())
    for i in range(size):
        source = sources[i % len(sources)]
        mask = (i // len(sources)) % (1 << len(steps))
        for bit, step in enumerate(steps):
            if mask & (1 << bit):
                source = step(source)
        write(os.path.join(out, f"student-{i:04}.py"), source)


def main(argv):
    if len(argv) > 1 and argv[1] == "--class":
        make_class(argv[2], int(argv[3]), argv[4:])
        return
    if len(argv) < 3:
        sys.exit("usage: disguise.py OUT SPEC:ORIGINAL...")
    out, originals = argv[1], argv[2:]
    for argument in originals:
        spec, _, original = argument.partition(":")
        name = os.path.splitext(os.path.basename(original))[0]
        with open(original) as f:
            source = f.read()
        for disguise, change in DISGUISES.items():
            copy = change(source)
            try:
                ast.parse(copy)
            except SyntaxError as error:
                sys.exit(f"{original}: the {disguise} copy does not parse: {error}")
            write(os.path.join(out, disguise, spec, name + ".orig.py"), source)
            write(os.path.join(out, disguise, spec, name + ".py"), copy)


if __name__ == "__main__":
    main(sys.argv)
