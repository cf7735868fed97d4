"""Parse a formula as written (lark's LALR parser on ``latex.lark``) and read names off its tree."""

from __future__ import annotations

import functools
import pathlib
import re
from collections import Counter

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput

# a token after which a plain `|` closes an absolute value (it ends an operand)
_OPERAND_END = {"NUMBER", "DIGIT", "LETTER", "GREEK", "ONE", "NAMEOP", "RPAR", "RBRACE",
                "RVERT", "RABS", "RANGLE", "RCEIL", "SUPOP", "PRIME", "END_MATRIX", "INFTY"}


class _AbsBars:
    """Postlexer: `|` opens an absolute value, or closes the innermost open one when it follows
    the end of an operand (`|a - b|`, `\\rho|z_i|`)."""

    always_accept = ("BAR",)

    def process(self, stream):
        depth, previous = 0, None
        for token in stream:
            if token.type == "BAR":
                closes = depth and previous in _OPERAND_END
                token = Token.new_borrow_pos("RABS" if closes else "LABS", token.value, token)
                depth += -1 if closes else 1
            previous = token.type
            yield token


class FormulaError(ValueError):
    """A formula outside the checker's reach; ``reason`` says where and why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@functools.cache
def _parser() -> Lark:
    grammar = pathlib.Path(__file__).with_name("latex.lark").read_text()
    return Lark(grammar, parser="lalr", lexer="contextual", postlex=_AbsBars(),
                maybe_placeholders=False, cache=True)


@functools.cache
def _parse(text: str) -> Tree | str:
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as error:
        pos = getattr(error, "pos_in_stream", None)
        if pos is None:
            pos = getattr(getattr(error, "token", None), "start_pos", None)
        rest = text[pos:] if pos is not None else ""
        what = re.match(r"\\[A-Za-z]+|\\.|.", rest.lstrip(), re.S)
        what = what.group(0) if what else "the end"
        return (f"unsupported construct {what!r}" if isinstance(error, UnexpectedCharacters)
                else f"cannot parse at {rest[:25]!r}")
    for sub in tree.iter_subtrees():
        sub.data = str(sub.data)  # lark keeps rule names as Tokens, slow to compare
    return tree


def parse(text: str) -> Tree:
    """The parse tree of one formula (cached); raises FormulaError."""
    tree = _parse(text)
    if isinstance(tree, str):
        raise FormulaError(tree)
    return tree


def tokens(node):
    if isinstance(node, Token):
        yield node
    else:
        for c in node.children:
            yield from tokens(c)


def inner(arg):
    """The expression of an argument (``{...}`` or a single token)."""
    if isinstance(arg, Tree) and arg.data in ("arg", "numerator", "subarg", "suparg"):
        kids = arg.children
        return kids[1] if len(kids) == 3 else kids[0]
    return arg


_GREEK = {r"\epsilon": r"\varepsilon", r"\varphi": r"\phi"}
_ACCENT = {r"\widehat": r"\hat", r"\widetilde": r"\tilde", r"\overline": r"\bar"}


_TEX: dict = {}  # id(node) -> (node, text): parse trees live as long as the parse cache


def tex(node) -> str:
    """A node's text, normalized: the spelling of names in the symbol table
    (``\\lambda_{\\mathrm{rad}}``, ``u_{\\varepsilon}``, ``\\tilde{g}``, ``\\mathbf 1``)."""
    hit = _TEX.get(id(node))
    if hit is None or hit[0] is not node:
        hit = _TEX[id(node)] = (node, _tex(node))
    return hit[1]


def _tex(node) -> str:
    if isinstance(node, Token):
        v = str(node).strip()
        return {"GREEK": lambda: _GREEK.get(v, v), "ONE": lambda: r"\mathbf 1",
                "NAMEOP": lambda: r"\mathrm{" + v[v.index("{") + 1:-1] + "}",
                "LPAR": lambda: v[-1], "RPAR": lambda: v[-1], "FRAC": lambda: r"\frac",
                "SUPOP": lambda: r"\star" if v == r"\ast" else v,
                "ACCENT": lambda: _ACCENT.get(v, v)}.get(node.type, lambda: v)()
    if node.data in ("sub", "sup"):
        return ("_{" if node.data == "sub" else "^{") + tex(node.children[1]) + "}"
    if node.data in ("arg", "numerator", "subarg", "suparg"):
        return tex(inner(node))
    if node.data == "accent":
        return tex(node.children[0]) + "{" + tex(node.children[1]) + "}"
    out = ""
    for part in map(tex, node.children):
        if out and part[:1].isalnum() and re.search(r"\\[A-Za-z]+$", out):
            out += " "
        out += part
    return out


NAME_TOKENS = {"LETTER", "GREEK", "ONE", "NAMEOP"}


def is_name(atom) -> bool:
    return (atom.type in NAME_TOKENS if isinstance(atom, Token)
            else atom.data == "accent")


def extension(post) -> str | None:
    """What a postfix adds to a name (a prime, ``_{\\mathrm{rad}}``, ``^\\star``), or None."""
    if isinstance(post, Token):  # PRIME
        return str(post)
    if post.data == "sub" or tex(post) == r"^{\star}":
        return tex(post)
    return None


def single_factor(node):
    """The factor a node consists of (through one-child wrappers), or None."""
    while isinstance(node, Tree) and node.data != "factor":
        if node.data == "juxt" and len(node.children) == 1:
            node = node.children[0]
        elif node.data in ("arg", "numerator", "subarg", "suparg", "sublist"):
            if len(node.children) not in (1, 3):
                return None
            node = inner(node) if node.data != "sublist" else node.children[0]
        else:
            return None
    if isinstance(node, Token):
        return Tree("factor", [node]) if node.type in NAME_TOKENS | {"NUMBER", "DIGIT"} else None
    return node


def factor_name(node) -> str | None:
    """The full name of a factor (``\\gamma_{\\max}``, ``P_{a}``, ``z'``), or None."""
    node = single_factor(node)
    if node is None or not is_name(node.children[0]):
        return None
    exts = [extension(p) for p in node.children[1:]]
    return None if None in exts else tex(node.children[0]) + "".join(exts)


def names_in(tree) -> Counter:
    """Every name a formula may be using, with how many factors name it: each named factor
    with and without its extensions (``\\gamma_{\\max}``: ``\\gamma`` and ``\\gamma_{\\max}``)."""
    out: Counter = Counter()
    for sub in tree.iter_subtrees():
        if sub.data == "factor" and is_name(sub.children[0]):
            name, seen = tex(sub.children[0]), {tex(sub.children[0])}
            for p in sub.children[1:]:
                if extension(p) is None:
                    break
                name += extension(p)
                seen |= {name, name.replace("'", "")}
            out.update(seen)
    return out
