"""YAML documents as PyYAML's safe loader builds them, without its generic constructor.

libyaml (``yaml.CSafeLoader``) parses a document into nodes in C; turning the
nodes into dicts, lists and strings then runs the ``SafeConstructor``'s generic
machinery in Python (a tag lookup, a generator per mapping and a state check
per node): two thirds of the time on a 0.6 MB ``kubectl get pods -o yaml``,
which made Kubernetes listings the slowest shape of a support bundle.

:func:`load_documents` builds plain documents (mappings, sequences, scalars of
the core tags, aliases, no merge keys) directly from the nodes, and the
scalars that are not strings with the constructor's own methods, so the
objects are equal to ``yaml.load_all``'s. Anything else (a merge key ``<<``,
a recursive alias, an explicit or unknown tag, a mapping as a key, nesting too
deep for this walk) is loaded again by PyYAML itself, whose result or error
is then the answer: the fast path never decides what a document means.

libyaml's composer also calls back into Python for every node to resolve its
tag (``Resolver.resolve``: two list concatenations and a lookup per scalar, and
two path-resolver hooks that return at once when there are no path resolvers,
as in the safe loader). :class:`_Loader` answers the same from a table built
once: a sixth of the load of a ``kubectl`` listing.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

LOADER: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_CORE = "tag:yaml.org,2002:"
_STR = _CORE + "str"
_MAP = _CORE + "map"
_SEQ = _CORE + "seq"
_NULL = _CORE + "null"
_SCALAR_TAGS = frozenset(_CORE + t for t in ("bool", "int", "float", "timestamp", "binary"))
"""Core scalar tags built by the constructor's own method (rare next to strings)."""


def _implicit_table(loader: type[Any]) -> tuple[dict[str, tuple[Any, ...]], tuple[Any, ...]]:
    """first character -> the implicit resolvers ``Resolver.resolve`` tries, in its order
    (those of the character, then the wildcard ones); and those for any other character."""
    resolvers = loader.yaml_implicit_resolvers
    wildcard = tuple(resolvers.get(None, []))
    table = {
        first: tuple(found) + wildcard for first, found in resolvers.items() if first is not None
    }
    return table, wildcard


def _resolvers_now(base: type[Any]) -> tuple[Any, ...]:
    """What the table is built from: rebuilt when anything adds a resolver later
    (``yaml.add_implicit_resolver`` changes the loader class in place)."""
    return (
        tuple((first, tuple(found)) for first, found in base.yaml_implicit_resolvers.items()),
        bool(base.yaml_path_resolvers),
    )


def _fast_loader(base: type[Any]) -> type[Any]:
    """``base`` with tag resolution as ``Resolver.resolve`` does it without path resolvers."""
    if base.yaml_path_resolvers:
        return base  # never for the safe loaders; the generic path then stays exact
    table, wildcard = _implicit_table(base)
    default_scalar = base.DEFAULT_SCALAR_TAG
    default_sequence = base.DEFAULT_SEQUENCE_TAG
    default_mapping = base.DEFAULT_MAPPING_TAG

    class Loader(base):  # type: ignore[misc]
        def resolve(self, kind: type[Node], value: Any, implicit: Any) -> str:
            if kind is ScalarNode:
                if implicit[0]:
                    for tag, regexp in table.get(value[:1], wildcard):
                        if regexp.match(value):
                            return str(tag)
                return str(default_scalar)
            return str(default_sequence if kind is SequenceNode else default_mapping)

        def descend_resolver(self, current_node: Any, current_index: Any) -> None:
            return None

        def ascend_resolver(self) -> None:
            return None

    return Loader


_Loader = _fast_loader(LOADER)
_Loader_from = _resolvers_now(LOADER)


class _Unusual(Exception):
    """A document the direct build does not cover: PyYAML loads it instead."""


def loader_class() -> type[Any]:
    """The loader :func:`load_documents` uses: ``LOADER`` with the table-driven ``resolve``
    (made again when something added a resolver to ``LOADER`` since)."""
    global _Loader, _Loader_from
    if _resolvers_now(LOADER) != _Loader_from:
        _Loader, _Loader_from = _fast_loader(LOADER), _resolvers_now(LOADER)
    return _Loader


def build_node(loader: Any, node: Node) -> Any:
    """What ``loader``'s constructor makes of ``node`` (a document, or one part of one):
    built directly when plain, else by PyYAML's constructor itself."""
    try:
        return _Builder(loader).build(node)
    except (_Unusual, RecursionError):
        return loader.construct_document(node)


def load_documents(data: bytes) -> list[Any]:
    """``list(yaml.load_all(data, Loader=LOADER))``, equal objects, faster on plain documents.

    Raises what ``yaml.load_all`` raises on the same text.
    """
    loader = loader_class()(data)
    try:
        documents = []
        while loader.check_node():
            documents.append(_Builder(loader).build(loader.get_node()))
        return documents
    except (_Unusual, RecursionError):
        pass
    finally:
        loader.dispose()
    return list(yaml.load_all(data, Loader=LOADER))


class _Builder:
    """Builds one document; aliases share one object, as with the constructor."""

    __slots__ = ("built", "loader", "open")

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.built: dict[int, Any] = {}
        self.open: set[int] = set()

    def build(self, node: Node) -> Any:
        cls = node.__class__
        tag = node.tag
        if cls is ScalarNode:
            if tag == _STR:
                return node.value
            if tag == _NULL:
                return None
            if tag in _SCALAR_TAGS:
                return self.loader.yaml_constructors[tag](self.loader, node)
            raise _Unusual
        key = id(node)
        if key in self.built:
            return self.built[key]
        if key in self.open:
            raise _Unusual  # a recursive alias: the constructor's generators handle those
        self.open.add(key)
        if cls is SequenceNode and tag == _SEQ:
            result: Any = [self.build(item) for item in node.value]
        elif cls is MappingNode and tag == _MAP:
            result = {}
            for key_node, value_node in node.value:
                if key_node.__class__ is not ScalarNode or key_node.tag == _CORE + "merge":
                    raise _Unusual
                result[self.build(key_node)] = self.build(value_node)
        else:
            raise _Unusual
        self.open.discard(key)
        self.built[key] = result
        return result
