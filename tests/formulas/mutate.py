"""Mutants of a formula: the edits a checked formula must not survive.

Each mutant changes one token of the text as written: a ``+``/``-`` flipped (a unary minus
dropped, so ``^{-1/2}`` becomes ``^{1/2}``), a number changed (an integer n to n + 1, a decimal
in its last digit, a single digit of ``\\frac12`` or ``x^2`` to the next one: ``2^{-53}`` to
``2^{-54}``, ``\\frac1d`` to ``\\frac2d``, ``^2`` to ``^3``), an index letter in a subscript
changed (``z_i`` to ``z_j``), or a symbol swapped for the one the symbol table names as its
partner of the same kind (``q`` for ``\\mu``, ``y`` for ``v``, ``\\lambda_{\\mathrm{tan}}`` for
``\\lambda_{\\mathrm{rad}}``). Labels name the edit and its place in the text
(``sign - -> + at 12``), so that the policy can list a mutant that is equivalent.

Each mutant comes with its text and with its parse tree, built from the original's by
replacing the one node the edit changes (``tests/test_formulas.py`` checks that the tree is the
parse of the text), so that a mutant costs no new parse and its unchanged parts, already
checked, are not evaluated again.
"""

from __future__ import annotations

import functools

from lark import Token, Tree

from .evaluate import atom_name, is_name_atom, name_extension
from .parse import parse
from .symbols import SYMBOLS, canonical_name

INDEX_SWAP = {"i": "j", "j": "i", "k": "j", "l": "k"}


@functools.lru_cache(maxsize=1)
def partners() -> dict[str, str]:
    """Canonical name -> the LaTeX of its swap partner."""
    out = {}
    for key, sym in SYMBOLS.items():
        if sym.swap is not None and sym.swap.rstrip("'") in SYMBOLS:
            out[canonical_name(key)] = sym.swap
    return out


@functools.cache
def _partner_factor(text: str) -> Tree:
    """The factor node of a partner's name, as the parser reads it alone."""
    node = parse(text).children[0]
    while isinstance(node, Tree) and node.data in ("item_list", "juxt") and len(
            node.children) == 1:
        node = node.children[0]
    return node


def _tokens(node):
    if isinstance(node, Token):
        yield node
    else:
        for c in node.children:
            yield from _tokens(c)


def _end(tok: Token) -> int:
    # the token's text is exactly what it matched (end_pos does not survive pickling)
    return tok.start_pos + len(str(tok))


def _span(node):
    toks = list(_tokens(node))
    return toks[0].start_pos, _end(toks[-1])


def _bump(tok: Token) -> str:
    text = str(tok)
    if tok.type == "DIGIT":  # one token of \frac12 or x^2: it must stay one digit
        return str(int(text) + 1) if text != "9" else "8"
    if "." in text:
        last = int(text[-1])
        return text[:-1] + str(last + 1 if last < 9 else last - 1)
    return str(int(text) + 1)


def _replace(root: Tree, target, new):
    """A copy of ``root`` with the node ``target`` (by identity) replaced by ``new``; only the
    ancestors of ``target`` are copied, every other node is shared."""
    path = []

    def find(node):
        if node is target:
            return True
        if isinstance(node, Tree):
            for k, c in enumerate(node.children):
                path.append((node, k))
                if find(c):
                    return True
                path.pop()
        return False

    if not find(root):
        raise ValueError("node not in tree")
    for node, k in reversed(path):
        children = list(node.children)
        children[k] = new
        new = Tree(node.data, children)
    return new


def mutants(text: str) -> list[tuple[str, str, Tree]]:
    """``[(label, mutated text, mutated tree)]`` for one formula."""
    tree = parse(text)
    edits = []  # (start, end, replacement text, label, node to replace, new node)
    for sub in tree.iter_subtrees():
        if sub.data in ("add", "sub"):
            op = sub.children[1]
            flip = "-" if str(op) == "+" else "+"
            new = Tree("sub" if flip == "-" else "add", [
                sub.children[0], Token("MINUS" if flip == "-" else "PLUS", flip),
                sub.children[2]])
            edits.append((op.start_pos, _end(op), flip, f"sign {op} -> {flip}", sub, new))
        elif sub.data == "neg":
            op = sub.children[0]
            edits.append((op.start_pos, _end(op), "", "sign - dropped", sub,
                          sub.children[1]))
        elif sub.data == "sub_script":
            for tok in _tokens(sub.children[1]):
                if tok.type == "LETTER" and str(tok) in INDEX_SWAP:
                    new = INDEX_SWAP[str(tok)]
                    edits.append((tok.start_pos, _end(tok), new, f"subscript {tok} -> {new}",
                                  tok, Token("LETTER", new)))
        elif sub.data == "factor":
            edit = _swap(sub)
            if edit is not None:
                edits.append(edit)
    for tok in _tokens(tree):
        if tok.type in ("NUMBER", "DIGIT"):
            new = _bump(tok)
            edits.append((tok.start_pos, _end(tok), new, f"number {tok} -> {new}", tok,
                          Token(tok.type, new)))
    out = []
    seen = set()
    for start, end, new, label, target, node in sorted(edits, key=lambda e: e[:4]):
        mutated = text[:start] + new + text[end:]
        if mutated == text or mutated in seen:
            continue
        seen.add(mutated)
        out.append((f"{label} at {start}", mutated, _replace(tree, target, node)))
    return out


def _swap(factor):
    """Swap the symbol a factor names for its partner (the longest name the table knows)."""
    atom, posts = factor.children[0], factor.children[1:]
    if not is_name_atom(atom):
        return None
    name = atom_name(atom)
    table = partners()
    best = (name, atom, 0) if name in table else None
    for k, p in enumerate(posts):
        ext = name_extension(p)
        if ext is None:
            break
        name += ext
        if name in table:
            best = (name, p, k + 1)
    if best is None:
        return None
    key, last, used = best
    start, end = _span(atom)[0], _span(last)[1]
    new = table[key]
    partner = _partner_factor(new)
    node = Tree("factor", list(partner.children) + list(posts[used:]))
    # a command name must not glue onto a following letter (\mu q, not \muq)
    text = new + (" " if new[-1].isalpha() and new.startswith("\\") else "")
    return start, end, text, f"symbol {key} -> {new}", factor, node
