"""Where the user is in a tree that is built again: which nodes are unfolded, the node under the cursor and the line of
the screen it is on. Nodes are known by their place (the steps from the root that name them, never their line), so
the same entry is found in the new tree wherever new nodes pushed it; one that is gone leaves the cursor to its
nearest remaining neighbour."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from textual.widgets import Tree
from textual.widgets.tree import NodeID, TreeNode

T = TypeVar("T")

Place = tuple[tuple[str, ...], ...]
"""A node's steps from the root, each naming the node among its siblings (a package by its id, a module by its name)."""


@dataclass(frozen=True)
class Spot:
    unfolded: dict[Place, bool]
    """Whether each node that could unfold was unfolded: a new tree's nodes keep it, new ones their own default."""
    cursor: tuple[Place, ...]
    """The cursor's node, then where it goes when that one is gone, nearest first: the next siblings, the previous
    ones, then its parent (and the same around the parent)."""
    row: int
    """The cursor's line on screen (its line in the tree less the scroll), kept where the tree allows."""


class Places(Generic[T]):
    """Each node's place in one build of a tree, and each place's node."""

    def __init__(self) -> None:
        self._of: dict[NodeID, Place] = {}
        self._node: dict[Place, TreeNode[T]] = {}

    def clear(self) -> None:
        self._of.clear()
        self._node.clear()

    def add(self, node: TreeNode[T], place: Place) -> None:
        self._of[node.id] = place
        self._node[place] = node

    def drop(self, node: TreeNode[T]) -> None:
        place = self._of.pop(node.id, None)
        if place is not None:
            self._node.pop(place, None)

    def of(self, node: TreeNode[T]) -> Place:
        """The place of `node` (the root's is empty)."""
        return self._of.get(node.id, ())

    def node(self, place: Place) -> TreeNode[T] | None:
        return self._node.get(place)


def spot_of(tree: Tree[T], places: Places[T]) -> Spot | None:
    """Where the user is in `tree`, as built with `places`; None when the cursor is on no node."""
    node = tree.cursor_node
    if node is None or not places.of(node):
        return None
    unfolded = {places.of(n): n.is_expanded for n in _walk(tree.root) if n.allow_expand}
    return Spot(unfolded, tuple(places.of(n) for n in _nearest(node)), node.line - tree.scroll_offset.y)


def return_to(tree: Tree[T], places: Places[T], spot: Spot) -> TreeNode[T] | None:
    """Put the cursor back on the spot's node in the tree built again with `places` (or on its nearest remaining
    neighbour), on the same line of the screen as far as the scroll allows; the node, None when none remains. The
    tree's nodes are already unfolded as `spot.unfolded` says (its build asked)."""
    for place in spot.cursor:
        node = places.node(place)
        if node is not None:
            break
    else:
        return None
    parent = node.parent
    while parent is not None:  # a neighbour may be inside a node folded meanwhile
        if not parent.is_expanded:
            parent.expand()
        parent = parent.parent
    # a node's line is known once the tree has laid its lines out again, which reading `last_line` does
    if tree.last_line < 0 or node.line < 0:
        return None
    tree.move_cursor(node)
    # forced: a tree that has just grown taller than its window has no scrollbar yet, and would not scroll
    tree.scroll_to(y=max(0, node.line - spot.row), animate=False, force=True)
    # a tree grown wider gets a horizontal scrollbar at the next layout, over the window's last line: the cursor's
    # line, it may be, which is brought back into view once the scrollbar is there
    tree.call_after_refresh(_in_view, tree, node)
    return node


def _in_view(tree: Tree[T], node: TreeNode[T]) -> None:
    if tree.cursor_node is node:
        tree.scroll_to_node(node, animate=False)


def _nearest(node: TreeNode[T]) -> Iterator[TreeNode[T]]:
    """`node`, then its neighbours, nearest first (the next siblings, the previous ones), then the same around its
    parent, up to the top."""
    while node.parent is not None:
        yield node
        siblings = list(node.parent.children)
        at = next(i for i, sibling in enumerate(siblings) if sibling is node)
        yield from siblings[at + 1 :]
        yield from reversed(siblings[:at])
        node = node.parent


def _walk(node: TreeNode[T]) -> Iterator[TreeNode[T]]:
    for child in node.children:
        yield child
        yield from _walk(child)


__all__ = ["Place", "Places", "Spot", "return_to", "spot_of"]
