"""Presentation MathML made safe to embed: parse, keep only MathML Core, serialise again.

Report dicts carry MathML as text (printed by sympy).  The HTML renderer never trusts that text: a
symbol of a user-supplied density could be named ``<script>``.  :func:`safe_mathml` parses the
fragment as XML, keeps only the elements and attributes of MathML Core (W3C Recommendation 2023,
Sect. 3), whose content is text only, and serialises it with every text node escaped.  Anything else
(an unknown element, a ``href``, an event-handler attribute, a fragment that does not parse) makes it
fall back to the escaped plain-text form of the equation.

sympy prints HTML named entities (``&InvisibleTimes;``, ``&ExponentialE;``) that XML does not know;
they are replaced by their characters (HTML5 entity table) before parsing, leaving the five XML
entities alone.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ElementTree
from html.entities import html5

__all__ = ["math_block", "safe_mathml"]

_ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace mfrac msqrt mroot msub msup msubsup munder mover munderover "
    "mmultiscripts mprescripts none mtable mtr mtd mstyle mpadded mphantom merror semantics annotation".split()
)
_ATTRIBUTES = frozenset(
    "display displaystyle mathvariant scriptlevel fence separator stretchy symmetric largeop movablelimits "
    "accent accentunder lspace rspace minsize maxsize width height depth linethickness form columnalign "
    "rowalign columnspacing rowspacing dir".split()
)
_XML_ENTITIES = frozenset(("lt", "gt", "amp", "quot", "apos"))
_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_MATHML_NS = "http://www.w3.org/1998/Math/MathML"


def _replace_entity(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _XML_ENTITIES:
        return match.group(0)
    character = html5.get(name + ";")
    return character if character is not None else match.group(0)


def _clean(element: ElementTree.Element) -> bool:
    tag = element.tag.split("}", 1)[-1]
    if tag not in _ELEMENTS:
        return False
    element.tag = tag
    if any(name.split("}", 1)[-1] not in _ATTRIBUTES for name in element.attrib):
        return False
    return all(_clean(child) for child in element)


def safe_mathml(fragment: str, fallback: str = "", display: str = "block") -> str:
    """A ``<math>`` element holding ``fragment`` if it is pure MathML Core, else escaped ``fallback``.

    The result is safe to insert into HTML unescaped: it is either serialised by ElementTree from a
    tree of whitelisted elements and attributes (text escaped), or ``html.escape(fallback)`` inside
    a ``<code>`` element.
    """
    if display not in ("block", "inline"):
        raise ValueError(f"display={display!r} must be 'block' or 'inline'")
    text = _ENTITY.sub(_replace_entity, fragment or "")
    try:
        root = ElementTree.fromstring(f"<math>{text}</math>")
    except ElementTree.ParseError:
        return f"<code>{html.escape(fallback)}</code>"
    if not _clean(root) or not text.strip():
        return f"<code>{html.escape(fallback)}</code>"
    root.attrib.clear()
    root.set("display", display)
    body = ElementTree.tostring(root, encoding="unicode", method="xml")
    return body.replace("<math", f'<math xmlns="{_MATHML_NS}"', 1)


def math_block(expression: dict[str, str] | None, display: str = "block") -> str:
    """:func:`safe_mathml` of an ``{"text", "latex", "mathml"}`` dict (as made by proofs.result)."""
    if not expression:
        return ""
    return safe_mathml(expression.get("mathml", ""), expression.get("text", ""), display)
