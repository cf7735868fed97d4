"""Parse a formula as written: lark (LALR) on the grammar in ``latex.lark``, cached per text."""

from __future__ import annotations

import atexit
import functools
import pathlib
import re

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput

GRAMMAR = pathlib.Path(__file__).with_name("latex.lark")

# a token after which a `|` closes an absolute value (it ends an operand)
_OPERAND_END = {
    "NUMBER", "DIGIT", "LETTER", "GREEK", "ONE", "NAMEOP", "RPAR", "RBRACE", "RVERT", "RABS",
    "RANGLE", "RCEIL", "SUPOP", "PRIME", "END_MATRIX", "END_CASES", "INFTY",
}


class _AbsBars:
    """Postlexer: a plain `|` opens an absolute value, or closes the innermost open one when it
    follows the end of an operand (`|a - b|`, `\\rho|z_i|`, `|u_i| \\le ...`)."""

    always_accept = ("BAR",)

    def process(self, stream):
        depth = 0
        previous = None
        for token in stream:
            if token.type == "BAR":
                if depth and previous in _OPERAND_END:
                    token = Token.new_borrow_pos("RABS", token.value, token)
                    depth -= 1
                else:
                    token = Token.new_borrow_pos("LABS", token.value, token)
                    depth += 1
            previous = token.type
            yield token


@functools.cache
def parser() -> Lark:
    """The LALR parser (cache=True: lark keeps its tables in the temporary directory)."""
    return Lark(GRAMMAR.read_text(), parser="lalr", lexer="contextual", postlex=_AbsBars(),
                maybe_placeholders=False, cache=True)


class FormulaSyntaxError(ValueError):
    """The text is outside the book's LaTeX subset; ``reason`` says where and what."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _plain(tree: Tree) -> Tree:
    """Rule names as plain strings (lark keeps them as Tokens, slow to compare)."""
    for sub in tree.iter_subtrees():
        sub.data = str(sub.data)
    return tree


# parse trees of earlier runs (cache.py), and those of this run, saved when it ends
_EARLIER: dict | None = None
_THIS_RUN: dict = {}


def _earlier() -> dict:
    global _EARLIER
    if _EARLIER is None:
        from . import cache

        _EARLIER = cache.load("trees", cache.code_key()) or {}
        atexit.register(_save)
    return _EARLIER


def _save():
    from . import cache

    if set(_THIS_RUN) != set(_EARLIER or ()):
        cache.store("trees", cache.code_key(), _THIS_RUN)


@functools.cache
def parse(text: str) -> Tree:
    """The parse tree of one formula (raises FormulaSyntaxError with a reason); cached per text,
    in memory and on disk."""
    hit = _earlier().get(text)
    if hit is None:
        try:
            hit = _plain(parser().parse(text))
        except FormulaSyntaxError as error:
            hit = error.reason
        except UnexpectedInput as error:
            hit = _reason(text, error)
        except LarkError as error:  # pragma: no cover - lark's own failures
            hit = f"parser error: {error}"
    _THIS_RUN[text] = hit
    if isinstance(hit, str):
        raise FormulaSyntaxError(hit)
    return hit


def _reason(text: str, error: UnexpectedInput) -> str:
    pos = getattr(error, "pos_in_stream", None)
    if pos is None and getattr(error, "token", None) is not None:
        pos = getattr(error.token, "start_pos", None)
    rest = text[pos:] if pos is not None else ""
    command = re.match(r"\\[A-Za-z]+|\\.|.", rest.lstrip(), re.S)
    what = command.group(0) if command else "the end"
    if isinstance(error, UnexpectedCharacters):
        return f"unsupported construct {what!r}"
    return f"cannot parse at {rest[:25]!r}"
