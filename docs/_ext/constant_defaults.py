"""A griffe extension for the API pages: a parameter whose default is a module constant shows the value.

The source writes ``smooth_method: str = DEFAULT_CORPUS_SMOOTH`` so that one constant holds each
default; a reader of ``corpus_bleu``'s signature needs ``'exp'``. A default that names a constant
whose value is a literal (a string, a number, ``None``, ...) is shown as that literal; any other
default is left as written.
"""

from __future__ import annotations

import ast
from typing import Any, Iterator

import griffe


def literal_value(obj: griffe.Object | griffe.Alias, default: griffe.Expr | str | None) -> str | None:
    """The source text of the literal that the default ``default`` refers to, or None.

    A name of a constant (``DEFAULT_CORPUS_SMOOTH``), or an item of a constant dict or tuple
    (``DEFAULT_SAMPLES["bs"]``).

    >>> pkg = griffe.load("bleukit", search_paths=["src"])
    >>> default = pkg["bleu.corpus_bleu"].parameters["smooth_method"].default
    >>> str(default), literal_value(pkg, default)
    ('DEFAULT_CORPUS_SMOOTH', "'exp'")
    >>> default = pkg["analysis.significance.bootstrap_scores"].parameters["n_bootstrap"].default
    >>> str(default), literal_value(pkg, default)
    ("DEFAULT_SAMPLES['bs']", '1000')
    """
    if isinstance(default, griffe.ExprSubscript):
        container, key = literal_value(obj, default.left), _literal(str(default.slice))
        try:
            return repr(ast.literal_eval(container)[key]) if container is not None else None
        except (KeyError, IndexError, TypeError, ValueError, SyntaxError):
            return None
    for _ in range(5):  # a constant may name another constant
        if not isinstance(default, griffe.ExprName):
            return None
        try:
            target = obj.modules_collection.get_member(default.canonical_path)
            while target.is_alias:
                target = target.final_target
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
        if not target.is_attribute or target.value is None:
            return None
        if isinstance(target.value, griffe.ExprName):
            default = target.value
            continue
        text = str(target.value)
        return text if _literal(text) is not _NOT_LITERAL else None
    return None


_NOT_LITERAL = object()


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return _NOT_LITERAL


def _functions(obj: griffe.Object) -> Iterator[griffe.Function]:
    for member in obj.members.values():
        if member.is_alias:
            continue  # documented where it is defined
        if member.is_function:
            yield member
        elif member.is_class or member.is_module:
            yield from _functions(member)


class ConstantDefaults(griffe.Extension):
    """Show the values of constant defaults in every signature (functions, methods, dataclasses)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for function in _functions(pkg):
            for parameter in function.parameters:
                value = literal_value(function, parameter.default)
                if value is not None:
                    parameter.default = value
