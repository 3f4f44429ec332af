"""A Griffe extension (loaded by mkdocstrings, see mkdocs.yml): the docstrings' Sphinx roles as links.

The docstrings cross-reference with reST roles (``:func:`normalize_labels```, ``:class:`~spe.exceptions.SpeWarning```,
``:meth:`Evaluation.suggest```), which Markdown would show as written. Each becomes the name in code, linked to the
object's entry in the API reference when the site documents it: the name is resolved from the docstring's own scope
(its module's imports, its class's members, as Python would), and the link is an optional cross-reference, so a
name the site does not document (a private helper, numpy) stays plain code without a warning.

Sphinx's forms are read: ``~`` shows the last component only, ``!`` links nothing, ``title <target>`` shows the
title.
"""

import re
from importlib import import_module

from griffe import Extension

ROLE = re.compile(r":(?:py:)?(?:mod|func|class|data|meth|attr|exc|obj|const):`([^`]+)`")
TITLED = re.compile(r"(?s)(.*?)\s*<([^<>]+)>")


def _identifier(obj, target):
    """The full path of ``target`` seen from ``obj``'s docstring, or None when it cannot be resolved."""
    head, _, rest = target.partition(".")
    root = obj.package
    if head == root.name:
        path = target
    else:
        try:
            path = obj.resolve(head) + (f".{rest}" if rest else "")
        except Exception:  # NameResolutionError, or an alias that cannot be followed
            return None
    if path.startswith(root.name + "."):
        return _documented(root, path)
    return path


def _documented(root, path):
    """The path under which the site documents ``path``: through re-exports (``from .api import evaluate``) and
    the package's names imported on first use (PEP 562: ``spe.evaluate`` is ``spe.api.evaluate``)."""
    try:
        found = root.get_member(path.split(".", 1)[1])
    except Exception:
        found = None
    if found is not None:
        return found.target_path if found.is_alias else path
    try:  # a name griffe cannot see statically: ask the imported package where it lives
        value = import_module(path.rsplit(".", 1)[0])
        value = getattr(value, path.rsplit(".", 1)[1])
        return f"{value.__module__}.{value.__qualname__}"
    except Exception:
        return path


def _replace(obj, match):
    text = match[1].strip()
    titled = TITLED.fullmatch(text)
    title, target = (titled[1], titled[2]) if titled else (None, text)
    link = not target.startswith("!")
    target = target.lstrip("!")
    short = target.startswith("~")
    target = target.lstrip("~")
    shown = title or (target.rsplit(".", 1)[-1] if short else target)
    identifier = _identifier(obj, target) if link else None
    if identifier is None:
        return f"`{shown}`"
    return f'<autoref identifier="{identifier}" optional>`{shown}`</autoref>'


class SphinxRoles(Extension):
    """Rewrite every docstring's Sphinx roles once the object tree is complete (names then resolve)."""

    def on_object(self, *, obj, loader, **kwargs):
        if obj.docstring is not None and ":" in obj.docstring.value:
            obj.docstring.value = ROLE.sub(lambda m: _replace(obj, m), obj.docstring.value)

    def on_package(self, *, pkg, loader, **kwargs):  # the package's own docstring (on_object skips it)
        self.on_object(obj=pkg, loader=loader)
