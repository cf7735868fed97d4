"""One citation style: author-year in the text (sphinxcontrib-bibtex's ``author_year``) and in
the bibliography's list, where pybtex's styles print "[BKH16]": the pybtex label style
``lnbook_author_year`` and the formatting style ``lnbook`` (unsrt, sorted by author and year,
titles as written), selected in ``_config.yml``; tests/site/test_html.py checks the list.
"""

from __future__ import annotations

from collections import Counter
from string import ascii_lowercase

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.template import field, sentence


class AuthorYearLabelStyle(BaseLabelStyle):
    """Labels "Surname, 2016", "A and B, 2016", "A et al., 2016"; a, b, ... for duplicates."""

    def format_labels(self, sorted_entries):
        labels = []
        for entry in sorted_entries:
            persons = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [Text(*p.rich_last_names).render_as("text").strip() for p in persons]
            who = (entry.fields.get("organization", entry.key) if not names else
                   f"{names[0]} et al." if len(names) > 2 else " and ".join(names))
            labels.append(f"{who}, {entry.fields.get('year', 'n.d.')}")
        counts, seen = Counter(labels), Counter[str]()
        for label in labels:
            seen[label] += 1
            yield label + ascii_lowercase[seen[label] - 1] if counts[label] > 1 else label


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
