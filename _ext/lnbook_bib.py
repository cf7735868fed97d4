"""One citation style for the book: author-year in the text and in the bibliography's list.

sphinxcontrib-bibtex cites in the text as "(Ba et al., 2016)" (``bibtex_reference_style:
author_year``), while pybtex's styles label the list "[BKH16]" or "[1]". This module registers
a pybtex label style ``lnbook_author_year`` that labels each entry "Ba et al., 2016" and a
formatting style ``lnbook`` (pybtex's ``unsrt`` with that label style, entries sorted by
author and year, titles printed as written rather than sentence-cased). ``_config.yml`` selects
it with ``bibtex_default_style: lnbook``; tests/site/test_html.py checks the rendered list.
"""

from __future__ import annotations

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.template import field, sentence


def _last(person) -> str:
    return Text(*person.rich_last_names).render_as("text").strip()


class AuthorYearLabelStyle(BaseLabelStyle):
    """Labels "Surname, 2016", "A and B, 2016", "A et al., 2016"; a, b, ... for duplicates."""

    def format_labels(self, sorted_entries):
        labels = []
        for entry in sorted_entries:
            persons = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [_last(p) for p in persons]
            if not names:
                who = entry.fields.get("organization", entry.key)
            elif len(names) == 1:
                who = names[0]
            elif len(names) == 2:
                who = f"{names[0]} and {names[1]}"
            else:
                who = f"{names[0]} et al."
            labels.append(f"{who}, {entry.fields.get('year', 'n.d.')}")
        counts = {label: labels.count(label) for label in labels}
        seen: dict[str, int] = {}
        for label in labels:
            if counts[label] > 1:
                seen[label] = seen.get(label, 0) + 1
                yield label + "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1]
            else:
                yield label


class BookStyle(UnsrtStyle):
    """pybtex's unsrt, author-year labels and order, titles exactly as the .bib writes them."""

    default_label_style = "lnbook_author_year"
    default_sorting_style = "author_year_title"

    def format_title(self, e, which_field, as_sentence=True):
        title = field(which_field)  # never change the title's case
        return sentence[title] if as_sentence else title


register_plugin("pybtex.style.labels", "lnbook_author_year", AuthorYearLabelStyle)
register_plugin("pybtex.style.formatting", "lnbook", BookStyle)


def setup(app):
    return {"parallel_read_safe": True, "parallel_write_safe": True}
