#!/usr/bin/env python3
"""kernel-lines.py: the kernel source line each function, branch site and
block of the models' tables stands for, written as a C table
(models/kcode_lines.h) that `numasim list functions|sites|blocks` prints.

Run once by hand, not by the build (the build needs no kernel tree):

    scripts/kernel-lines.py NUMASIM TREES_DIR > models/kcode_lines.h

NUMASIM is a built numasim (its `list ... --format csv` gives the names and
each site's "function: condition"); TREES_DIR holds the kernel trees the
models follow, one directory per release, each with mm/ and include/linux/
as in the kernel (e.g. `git archive v4.6.2 mm include/linux kernel | tar -x
-C TREES_DIR/v4.6.2`):

    v4.6.2  the page allocator and reclaim (models mm, vmscan)
    v4.7.4  the 2016 series' code, merged in v4.7 (model mm-series)
    v5.9.1  SLUB (model slub)

A function's line is its definition's: the line where NAME( follows only a
return type and qualifiers (or `#define NAME(`), the first such in the
files listed below for its model (a function defined twice under
different #ifdefs: the first).  A site's line is the line in its
function's body that holds its condition, as the site's description writes
it (after the function name), compared with spaces removed, trying the
whole condition, then without likely()/unlikely() and the description's
trailing notes; a site is resolved only when exactly one line of the body
matches.  A block's line is the line of the site that ends it.  Names not
resolved get no row (the list prints no line); the coverage goes to
standard error.
"""
import csv
import io
import os
import re
import subprocess
import sys

TREES = {"mm": "v4.6.2", "vmscan": "v4.6.2", "mm-series": "v4.7.4", "slub": "v5.9.1"}
FILES = {
    "v4.6.2": ["mm/page_alloc.c", "mm/vmscan.c", "mm/mmzone.c", "mm/mempolicy.c",
               "mm/vmstat.c", "mm/internal.h", "include/linux/mmzone.h",
               "include/linux/vmstat.h", "include/linux/gfp.h", "include/linux/cpuset.h",
               "kernel/cpuset.c", "include/linux/mm.h", "include/linux/page-flags.h",
               "include/linux/mempolicy.h", "include/linux/swap.h", "mm/swap.c",
               "include/linux/memcontrol.h", "mm/memcontrol.c", "include/linux/topology.h",
               "include/linux/nodemask.h", "include/linux/mm_inline.h", "mm/rmap.c",
               "mm/workingset.c", "include/linux/pageblock-flags.h", "mm/debug.c"],
    "v5.9.1": ["mm/slub.c", "mm/slab.h", "mm/slab_common.c", "include/linux/slub_def.h",
               "include/linux/slab.h", "mm/page_alloc.c", "include/linux/mm.h",
               "include/linux/page-flags.h", "include/linux/gfp.h", "mm/internal.h",
               "include/linux/memcontrol.h", "include/linux/kasan.h",
               "include/linux/bit_spinlock.h", "mm/mempolicy.c"],
}
FILES["v4.7.4"] = FILES["v4.6.2"]


def listing(numasim, kind):
    out = subprocess.run([numasim, "list", kind, "--format", "csv"], check=True,
                         capture_output=True, text=True).stdout
    rows = list(csv.reader(io.StringIO(out)))
    head = rows[0]
    return [dict(zip(head, r)) for r in rows[1:] if r and r[0] == kind]


class Tree:
    def __init__(self, root, files):
        self.files = []
        for f in files:
            p = os.path.join(root, f)
            if os.path.exists(p):
                with open(p, encoding="utf-8", errors="replace") as fh:
                    self.files.append((f, fh.read().split("\n")))

    def define(self, name):
        """(file, line index) of name's first definition, or None."""
        pat = re.compile(r"^(?:#define\s+|(?:[A-Za-z_][\w]*[\s\*]+)*)" + re.escape(name) +
                         r"\s*\(")
        for f, lines in self.files:
            for i, ln in enumerate(lines):
                if not pat.match(ln) or ln.startswith((" ", "\t")):
                    continue
                if ln.startswith("#define"):
                    return f, i
                # a definition: a '{' before any ';' from here on
                for j in range(i, min(i + 12, len(lines))):
                    s = lines[j].split("//")[0]
                    if ";" in s and "{" not in s.split(";")[0]:
                        break
                    if "{" in s:
                        return f, i
        return None

    def body(self, f, i):
        lines = dict(self.files)[f]
        depth, opened = 0, False
        for j in range(i, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            opened = opened or "{" in lines[j]
            if lines[j].startswith("#define") or opened and depth <= 0:
                end = j
                if lines[j].startswith("#define"):
                    while end < len(lines) - 1 and lines[end].rstrip().endswith("\\"):
                        end += 1
                return lines, i, end
        return lines, i, len(lines) - 1


def squash(s):
    return re.sub(r"\s+", "", s)


def candidates(cond):
    """The condition's texts to look for, most exact first."""
    c = cond.strip()
    c = re.sub(r"^(v3 \d+|v4\.6|PRE|POST|v5\.9)\s+", "", c)
    out = []
    def add(x):
        x = x.strip().strip(".").strip()
        x = re.sub(r"^\.\.\.\s*|\s*\.\.\.$", "", x).strip()
        if len(squash(x)) >= 3 and x not in out:
            out.append(x)
    c = re.sub(r"\s*->.*$", "", c)            # "-> slowpath"
    c = re.sub(r"\s*\((stat|the|a|an) [^)]*\)\s*$", "", c)
    c = re.sub(r"^if\s*\((.*)\)$", r"\1", c)
    add(c)
    m = re.match(r"^(?:likely|unlikely)\((.*)\)$", c)
    if m:
        add(m.group(1))
    for part in re.split(r"\s*(?:&&|\|\|)\s*|\.\.\.", c):
        part = re.sub(r"^(?:likely|unlikely)\(", "", part.strip()).rstrip(")")
        part = part.lstrip("(")
        if part.count("(") > part.count(")"):
            part += ")" * (part.count("(") - part.count(")"))
        add(part)
    return out


def site_line(tree, fn, cond):
    d = tree.define(fn)
    if not d:
        return None
    lines, lo, hi = tree.body(*d)
    for cand in candidates(cond):
        want = squash(cand)
        hits = [j for j in range(lo, hi + 1) if want in squash(lines[j])]
        if len(hits) == 1:
            return d[0], hits[0]
        if len(hits) > 1:
            return None                        # not unique: left empty
    return None


def main():
    numasim, trees_dir = sys.argv[1], sys.argv[2]
    trees = {v: Tree(os.path.join(trees_dir, v), FILES[v]) for v in set(TREES.values())}
    rows, cover = [], {}
    fn_line = {}
    for r in listing(numasim, "functions"):
        v = TREES[r["model"]]
        d = trees[v].define(r["name"])
        cover.setdefault("functions", [0, 0])[1] += 1
        if d:
            cover["functions"][0] += 1
            fn_line[r["name"]] = (v, d[0], d[1] + 1)
            rows.append(("KCODE_FN", r["name"], v, d[0], d[1] + 1))
    site_at = {}
    for r in listing(numasim, "sites"):
        v = TREES[r["model"]]
        desc = r["condition"]
        cover.setdefault("sites", [0, 0])[1] += 1
        fn = r["function"]
        cond = desc.split(": ", 1)[1] if ": " in desc else ""
        # "page_expected_state: ..." inside another function's description
        if ": " in cond and re.match(r"^[a-z_0-9]+$", cond.split(": ", 1)[0]):
            fn, cond = cond.split(": ", 1)
        hit = site_line(trees[v], fn, cond) if fn and cond else None
        if hit:
            cover["sites"][0] += 1
            site_at[r["name"]] = (v, hit[0], hit[1] + 1)
            rows.append(("KCODE_SITE", r["name"], v, hit[0], hit[1] + 1))
    for r in listing(numasim, "blocks"):
        cover.setdefault("blocks", [0, 0])[1] += 1
        if r["exit"] in site_at:
            cover["blocks"][0] += 1
            rows.append(("KCODE_BLOCK", r["name"]) + site_at[r["exit"]])
    print("/*")
    print(" * kcode_lines: the kernel source line each name of models/kcode.h's")
    print(" * tables stands for (a function's definition, a site's condition, the")
    print(" * site that ends a block), in the release each model follows:")
    print(" * v4.6.2 (mm, vmscan), v4.7.4 (mm-series), v5.9.1 (slub).")
    print(" * GENERATED by scripts/kernel-lines.py (see it for how each line was")
    print(" * found); do not edit.  Names it could not resolve have no row.")
    for k in ("functions", "sites", "blocks"):
        print(" *   %-9s %d of %d resolved" % (k, cover[k][0], cover[k][1]))
    print(" */")
    print("#ifndef NUMASIM_KCODE_LINES_H\n#define NUMASIM_KCODE_LINES_H\n")
    print("#define KCODE_LINES(X) \\")
    for kind, name, v, f, ln in rows:
        print('\tX(%s, "%s", "%s", "%s", %d) \\' % (kind, name, v, f, ln))
    print("\t/* end */\n\n#endif")
    for k in ("functions", "sites", "blocks"):
        print("%s: %d of %d resolved" % (k, cover[k][0], cover[k][1]), file=sys.stderr)


if __name__ == "__main__":
    main()
