"""The mutation sweep: every checked formula, edited one token at a time, must fail.

Run ``python -m tests.formulas.sweep [PAGE ...] [--write]`` from the repository root (about 20
CPU-seconds). Each mutant changes one token of a checked formula as written: a ``+``/``-`` flipped
(a unary minus dropped), a number changed (an exponent, a factor, an entry: ``2^{-53}`` to
``2^{-54}``, ``\\frac1d`` to ``\\frac2d``, ``0.75`` to ``0.76``), an index in a subscript changed
(``z_i`` to ``z_j``), or a symbol swapped for the one the symbol table names as its partner of
the same kind (``q`` for ``\\mu``, ``\\lambda_{\\mathrm{tan}}`` for ``\\lambda_{\\mathrm{rad}}``).
A mutant is killed when the fast tier would fail on it: in its cell it is false, outside the
checker, or a definition that nothing uses. A mutant that survives is shown with the numbers
it compared, and evaluated again at six more random regimes: "equally true" when it holds there
too (the same value, a weaker bound, a hypothesis that generic values meet), "a gap" when it
fails there (the three regimes of the fast tier miss it). ``--write`` puts the numbers into
``book/_formulas.md``; ``tests/test_formulas.py`` checks that they count today's mutants.
"""

from __future__ import annotations

import argparse
import re
import sys

from . import check, source
from .latex import extension, is_name, parse, tex, tokens
from .symbols import REGIMES, SYMBOLS

EXTRA = tuple(range(3, 9))  # the random regimes of the evidence
COUNTS = source.ROOT / "book" / "_formulas.md"
_SWAP = {"i": "j", "j": "i", "k": "j", "l": "k"}


def _bump(tok) -> str:
    t = str(tok)
    if tok.type == "DIGIT":  # one digit of \frac12 or x^2: it stays one digit
        return str(int(t) + 1) if t != "9" else "8"
    return t[:-1] + str(int(t[-1]) + 1 if t[-1] != "9" else 8) if "." in t else str(int(t) + 1)


def _end(node) -> int:
    last = list(tokens(node))[-1]
    return last.start_pos + len(str(last))


def mutants(text: str) -> list[tuple[str, str, int]]:
    """``[(label, mutated text, where)]``: every one-token edit of a formula, once per result."""
    tree, edits = parse(text), []
    for sub in tree.iter_subtrees():
        if sub.data in ("add", "subtract"):
            op = sub.children[1]
            edits.append((op.start_pos, op.start_pos + 1, "-+"[str(op) == "-"], f"sign {op}"))
        elif sub.data == "neg":
            edits.append((sub.children[0].start_pos, sub.children[0].start_pos + 1, "",
                          "sign - dropped"))
        elif sub.data == "sub":
            edits += [(t.start_pos, t.start_pos + 1, _SWAP[str(t)], f"subscript {t}")
                      for t in tokens(sub.children[1]) if t.type == "LETTER" and str(t) in _SWAP]
        elif sub.data == "factor" and is_name(sub.children[0]):
            name, last, best = tex(sub.children[0]), sub.children[0], None
            best = (name, last) if name in SYMBOLS and SYMBOLS[name].swap else None
            for p in sub.children[1:]:  # the longest name the table knows
                if extension(p) is None:
                    break
                name, last = name + extension(p), p
                best = (name, last) if name in SYMBOLS and SYMBOLS[name].swap else best
            if best:
                new = SYMBOLS[best[0]].swap
                new += " " if new[0] == "\\" and new[-1].isalpha() else ""
                start = next(tokens(sub.children[0])).start_pos
                edits.append((start, _end(best[1]), new, f"symbol {best[0]}"))
    edits += [(t.start_pos, t.start_pos + len(str(t)), _bump(t), f"number {t}")
              for t in tokens(tree) if t.type in ("NUMBER", "DIGIT")]
    out, seen = [], {text}
    for start, end, new, label in sorted(edits):
        mutated = text[:start] + new + text[end:]
        if mutated not in seen:
            seen.add(mutated)
            out.append((f"{label} -> {new.strip() or '(none)'}", mutated, start))
    return out


def survives(text: str, entry: check.Entry) -> check.Verdict | None:
    """The mutant's verdict in its cell if the fast tier would pass it, else None."""
    verdict = check.classify(text, entry.envs)
    ok = verdict.status in ("checked", "definition") and not check.idle(verdict, entry.later,
                                                                         text)
    return verdict if ok else None


def checked_once(audit: check.PageAudit) -> list[tuple[int, check.Entry]]:
    """The checked formulas of a page, a formula written twice only once."""
    done: set = set()
    return [(k, e) for k, e in enumerate(audit.entries) if e.status == "checked" and not (
        e.formula.text in done or done.add(e.formula.text))]


def sweep(page: str) -> dict:
    """Every mutant of every checked formula of a page."""
    audit, extra = check.audit_page(page), None
    out = {"killed": 0, "total": 0, "survivors": []}
    for k, e in checked_once(audit):
        for label, text, where in mutants(e.formula.text):
            out["total"] += 1
            verdict = survives(text, e)
            if verdict is None:
                out["killed"] += 1
                continue
            extra = extra or check.audit_page(page, seeds=EXTRA).entries
            again = survives(text, extra[k])
            out["survivors"].append((e.formula, label, text, where, verdict, again))
    return out


def render_counts(audits: dict, sweeps: dict, gaps: int) -> str:
    """book/_formulas.md: each page's counts and sweep (``sweeps``: page -> (killed, total);
    ``gaps``: the survivors that fail at a random regime)."""
    c, rows = check.counts(audits), []
    for page, n in c["pages"].items():
        killed, total = sweeps.get(page, (0, 0))
        if n["checked"] + n["definition"] + n["listed"]:
            rows.append(f"| `{page.removeprefix('book/')}` | {n['checked']} | {n['definition']} "
                        f"| {n['listed']} | {f'{killed} of {total}' if total else ''} |")
    t = c["totals"]
    killed, total = (sum(v[i] for v in sweeps.values()) for i in (0, 1))
    regimes = "; ".join(f"$d = {r[0]}$, $\\varepsilon = {r[1]}$" for r in REGIMES.values())
    return "\n".join([
        "% Generated by `python -m tests.formulas.sweep --write`; tests/test_formulas.py checks "
        "it against the pages. Do not edit.", "",
        "| page | checked | definitions | not checked, the reason beside them | mutants killed |",
        "| --- | --- | --- | --- | --- |", *rows,
        f"| all pages | {t['checked']} | {t['definition']} | {t['listed']} | {killed} of {total} |",
        "", f"The sweep killed {killed} of {total} mutants ({100 * killed / max(total, 1):.1f} %)."
        f" Of the {total - killed} others, {gaps} hold at the three regimes only; the rest hold"
        " at six random regimes as well (its report shows each with its numbers). The three "
        f"regimes of the seeded inputs: {regimes}.", ""])


def sweeps_in(text: str) -> tuple[dict, int]:
    """(page -> killed, gaps), as book/_formulas.md shows them."""
    gaps = re.search(r"others, (\d+) hold", text)
    return ({"book/" + m.group(1): int(m.group(2)) for m in re.finditer(
        r"^\| `([^`]+)` \|.*\| (\d+) of \d+ \|$", text, re.M)}, int(gaps.group(1) if gaps else 0))


def main(argv) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="*", help="pages (default: every page of _toc.yml)")
    ap.add_argument("--write", action="store_true", help="rewrite book/_formulas.md (all pages)")
    args = ap.parse_args(argv)
    pages = [p.removeprefix(str(source.ROOT) + "/") for p in args.pages] or source.toc_pages()
    sweeps, gaps = {}, 0
    print("# The mutation sweep\n")
    for page in pages:
        s = sweeps[page] = sweep(page)
        print(f"## {page}: {s['killed']} of {s['total']} killed\n")
        for f, label, text, where, verdict, again in s["survivors"]:
            gaps += again is None
            how = "equally true: it holds at six random regimes as well" if again else \
                "A GAP: it holds at the three regimes only"
            print(f"- cell {f.cell}: {label} at {where}: `{' '.join(text.split())}`\n  {how}:")
            evidence = verdict.evidence + (again.evidence if again else [])
            near = [x for x in evidence if x[0][0] <= where <= x[0][1]] or evidence
            for _, seed, detail in near:  # the claim the edit is in
                detail = " ".join(detail.split())
                print(f"  - seed {seed}: {detail if len(detail) < 150 else detail[:150] + ' ...'}")
        print()
    killed, total = (sum(s[k] for s in sweeps.values()) for k in ("killed", "total"))
    print(f"All: {killed} of {total} killed ({100 * killed / max(total, 1):.1f} %), "
          f"{total - killed} survivors, {gaps} of them gaps.")
    if args.write and not args.pages:
        audits = {p: check.audit_page(p) for p in pages}
        for _ in range(2):  # the testing page includes the counts and counts their formulas
            COUNTS.write_text(render_counts(audits, {
                p: (s["killed"], s["total"]) for p, s in sweeps.items()}, gaps))
            audits["book/testing.md"] = check.audit_page("book/testing.md")
        print(f"wrote {COUNTS.relative_to(source.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
