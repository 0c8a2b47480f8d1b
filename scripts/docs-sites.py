#!/usr/bin/env python3
"""docs-sites: write docs/reference/sites.md, the reference of every branch
site and code block of the models, from the X-macro tables that define
them (models/mm_tables.h: MM_SITES, VM_SITES, MM_BLOCKS;
models/slub_internal.h: SLUB_SITES, SLUB_BLOCKS) and from the model code
that uses them (models/*.c: the function and line of every `S_ID`,
`VS_ID` and `B_NAME`).

    python3 scripts/docs-sites.py [SRC] > docs/reference/sites.md

SRC is the source root (default: the folder above this script).  The
output depends only on those files; tests/cli/doc-sites.sh regenerates it
and fails when the committed page differs.  scripts/docs-figures.sh runs
it with the other generated documentation.
"""
import os
import re
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")

HINT = {"N": "", "L": "likely", "U": "unlikely"}
FALL = {"T": "true falls through", "F": "false falls through", "H": "the hinted outcome falls through"}


def read(path):
    with open(os.path.join(SRC, path), encoding="utf-8") as f:
        return f.read()


def table(text, name):
    """The X(...) rows of `#define NAME(X)`, each as a list of fields
    (strings unquoted), with the row's trailing /* comment */ if any."""
    m = re.search(r"^#define %s\(X\)\s*\\\n" % re.escape(name), text, re.M)
    if not m:
        sys.exit("docs-sites: no table %s" % name)
    body = []
    for line in text[m.end():].split("\n"):
        body.append(line)
        if not line.rstrip().endswith("\\"):
            break
    rows = []
    for line in body:
        line = line.rstrip().rstrip("\\").rstrip()
        for xm in re.finditer(r'X\(((?:"(?:[^"\\]|\\.)*"|[^()"])*)\)', line):
            fields = [f.strip() for f in re.findall(r'\s*("(?:[^"\\]|\\.)*"|[^,]+)', xm.group(1))]
            fields = [f[1:-1].replace('\\"', '"') if f.startswith('"') else f for f in fields]
            rest = line[xm.end():]
            cm = re.search(r"/\*\s*(.*?)\s*\*/", rest)
            rows.append((fields, cm.group(1) if cm else ""))
    return rows


FUNC_DEF = re.compile(r"^(?:static\s+|inline\s+|CPU_INLINE\s+|const\s+|struct\s+|enum\s+|unsigned\s+)*"
                      r"[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(")


def uses(files, prefix):
    """{name: [(file, line, function)]} of every PREFIX_name in the files."""
    found = {}
    pat = re.compile(r"\b%s(\w+)\b" % re.escape(prefix))
    for path in files:
        func = None
        for n, line in enumerate(read(path).split("\n"), 1):
            if line and not line[0].isspace() and not line.startswith(("#", "/", "*", "}", "{")):
                m = FUNC_DEF.match(line)
                if m and not line.rstrip().endswith(";"):
                    func = m.group(1)
            if line.lstrip().startswith(("*", "/*", "//")):
                continue
            for m in pat.finditer(line):
                if func is None:
                    continue
                found.setdefault(m.group(1), []).append((os.path.basename(path), n, func))
    return found


def where(refs):
    if not refs:
        return "(not charged)"
    seen = []
    for f, n, func in refs:
        s = "`%s()` models/%s:%d" % (func, f, n)
        if s not in seen:
            seen.append(s)
    return "<br>".join(seen)


def md(s):
    return s.replace("|", "\\|")


def split_desc(desc):
    variant = ""
    m = re.match(r"(PRE|POST) (.*)", desc)
    if m:
        variant, desc = m.group(1), m.group(2)
    func, sep, cond = desc.partition(": ")
    if not sep:
        func, cond = "", desc
    return variant, func, cond


def sites_section(out, title, intro, rows, refs, prefix, compilers):
    out.append("## %s\n" % title)
    out.append(intro + "\n")
    if compilers:
        out.append("| site | variant | kernel function | condition | hint | layout (gcc / clang) | tested in the model |")
        out.append("|---|---|---|---|---|---|---|")
    else:
        out.append("| site | variant | kernel function | condition | hint | layout | tested in the model |")
        out.append("|---|---|---|---|---|---|---|")
    for fields, _ in rows:
        sid, desc, hint = fields[0], fields[1], fields[2]
        variant, func, cond = split_desc(desc)
        r = refs.get(sid, [])
        lay = " / ".join(fields[3:])
        out.append("| `%s` | %s | %s | `%s` | %s | %s | %s |" % (
            sid, variant or "both", "`%s`" % func if func else "", md(cond), HINT.get(hint, hint), lay, where(r)))
    out.append("")


def blocks_section(out, title, intro, rows, refs, site_desc):
    out.append("## %s\n" % title)
    out.append(intro + "\n")
    out.append("| block | work row | accesses | ends at | run in the model |")
    out.append("|---|---|---|---|---|")
    for fields, comment in rows:
        name, row, kinds, exit_ = fields[0], fields[1], fields[2], fields[3]
        if exit_ == "-1":
            end = "a call, a return or the next block" + (" (%s)" % comment if comment else "")
        else:
            sid = re.sub(r"^S_", "", exit_)
            end = "site `%s` (%s)" % (sid, md(site_desc.get(sid, "?")))
        out.append("| `%s` | `%s` | %s | %s | %s |" % (
            name, row, "`%s`" % kinds if kinds else "none", end, where(refs.get(name, []))))
    out.append("")


def main():
    mm = read("models/mm_tables.h")
    sl = read("models/slub_internal.h")
    models = sorted("models/" + f for f in os.listdir(os.path.join(SRC, "models"))
                    if f.endswith(".c") and not f.endswith("_copy.c"))
    mm_files = [f for f in models if not os.path.basename(f).startswith(("slub", "sched"))]
    slub_files = [f for f in models if os.path.basename(f).startswith("slub")]
    mm_sites, vm_sites = table(mm, "MM_SITES"), table(mm, "VM_SITES")
    mm_blocks = table(mm, "MM_BLOCKS")
    slub_sites, slub_blocks = table(sl, "SLUB_SITES"), table(sl, "SLUB_BLOCKS")
    mm_refs, vm_refs = uses(mm_files, "S_"), uses(mm_files, "VS_")
    slub_refs = uses(slub_files, "S_")
    mm_brefs, slub_brefs = uses(mm_files, "B_"), uses(slub_files, "B_")
    mm_desc = {f[0]: f[1] for f, _ in mm_sites}
    slub_desc = {f[0]: f[1] for f, _ in slub_sites}

    out = []
    out.append("# Branch sites and code blocks\n")
    out.append("<!-- generated by scripts/docs-sites.py from models/mm_tables.h, "
               "models/slub_internal.h and models/*.c; do not edit: run "
               "`python3 scripts/docs-sites.py > docs/reference/sites.md` -->\n")
    out.append(
        "Every branch site and code block the models charge, as `numasim report`, "
        "`annotate`, `compare` and the `branches` table of the results database "
        "([schema](schema.md)) name them. A **site** is one conditional branch of the "
        "kernel: the kernel function it is in, its condition as the source writes it "
        "(`...` where the source line goes on), the `likely()`/`unlikely()` hint and "
        "which outcome falls through in the compiled code (the layout decides which "
        "outcome is a taken branch). \"Tested in the model\" is the model function and "
        "line that evaluate it (`br()`) and charge it; the model functions carry the "
        "kernel's names ([layout](layout.md)). A **block** is a stretch of straight-line "
        "code charged as one unit: its work row (the instruction counts, "
        "[cost model](../design/cost-model.md) \"Blocks\"), the memory accesses it makes "
        "in order (`D` a load the next step waits for, `L` an independent load, `S` a "
        "store) and the branch that ends it.\n")
    out.append(
        "Variants: PRE and POST are the two sides of a commit "
        "(pre-682a3385 / 682a3385 for the page allocator, v5.9 / c270cf30 for SLUB); a "
        "site of one variant only is never executed in the other. Kernel versions: the "
        "page allocator and reclaim sites are v4.6 (`mm/page_alloc.c`, `mm/mmzone.c`, "
        "`mm/mempolicy.c`, `mm/vmstat.c`, `kernel/cpuset.c`, `mm/vmscan.c`), the SLUB "
        "sites v5.9 `mm/slub.c`.\n")
    n = (len(mm_sites), len(vm_sites), len(slub_sites), len(mm_blocks), len(slub_blocks))
    out.append("Contents: [page allocator sites](#page-allocator-sites) (%d), "
               "[reclaim sites](#reclaim-sites) (%d), [SLUB sites](#slub-sites) (%d), "
               "[page allocator blocks](#page-allocator-blocks) (%d), "
               "[SLUB blocks](#slub-blocks) (%d).\n" % n)
    sites_section(out, "Page allocator sites",
                  "`MM_SITES` of models/mm_tables.h: the allocation path (A..), the free path "
                  "(F..) and the helpers, v4.6 with both forms of the zonelist iterator.",
                  mm_sites, mm_refs, "S_", False)
    sites_section(out, "Reclaim sites",
                  "`VM_SITES` of models/mm_tables.h: v4.6 reclaim (kswapd, direct reclaim, "
                  "`zone_reclaim`, the LRU lists), present when the world has the reclaim "
                  "model ([reclaim model](../design/reclaim-model.md)).",
                  vm_sites, vm_refs, "VS_", False)
    sites_section(out, "SLUB sites",
                  "`SLUB_SITES` of models/slub_internal.h: v5.9 SLUB and c270cf30; the layout "
                  "is given for gcc and clang ([SLUB model](../design/slub-model.md)).",
                  slub_sites, slub_refs, "S_", True)
    blocks_section(out, "Page allocator blocks",
                   "`MM_BLOCKS` of models/mm_tables.h.", mm_blocks, mm_brefs, mm_desc)
    blocks_section(out, "SLUB blocks",
                   "`SLUB_BLOCKS` of models/slub_internal.h. The `!n` block of `__slab_free` "
                   "is charged apart (`enum slub_block`).", slub_blocks, slub_brefs, slub_desc)
    sys.stdout.write("\n".join(out))


main()
