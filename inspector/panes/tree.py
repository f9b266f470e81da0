"""The Tree tab: the wire's dissection (``inspector/dissect.py``) as a tree over
the bytes it covers, termshark's layout. Opening a node builds its children;
moving onto a node makes its exact bytes (and, for a JSON value of the body,
its document text) the linked cursor; a selection from another pane opens the
tree down to the deepest node holding that byte."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from ..dissect import Dissection, Key, Node, plural
from ..messages import Selection
from ..model import Loaded, display_value
from ..views.hexview import HexView
from . import Pane
from .search import MatchSteps, Search

#: How each kind of node is drawn.
STYLES = {"malformed": "bold #ffffff on #b00020", "range": "italic", "pending": "italic dim",
          "reference": "#ff79c6"}


@dataclass
class StructureReady(Message):
    """The worker read the body's JSON structure for ``dissection``."""

    dissection: Dissection


def _fit(text: str, width: int) -> str:
    """A node's text cut in the middle with … to ``width`` (when known), so its end
    (a size, a count) is never cut at the screen's edge."""
    if width < 24 or len(text) <= width:
        return text
    half = (width - 1) // 2
    return text[:half] + "…" + text[len(text) - (width - 1 - half):]


class DissectionTree(Tree[Node]):
    """Textual's tree, its nodes' children added when they are first opened."""

    DEFAULT_CSS = "DissectionTree { height: 1fr; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.guide_depth = 3
        self.dissection: Dissection | None = None
        self._filled: set[int] = set()

    def start(self, dissection: Dissection) -> None:
        """Show a new wire: the root and its parts, nothing deeper."""
        self.dissection = dissection
        self._filled = set()
        root = dissection.root()
        self.reset(Text(root.text), root)
        self.fill(self.root)
        self.root.expand()

    def fill(self, node: TreeNode[Node]) -> None:
        """Add ``node``'s children, once."""
        if node.id in self._filled or self.dissection is None or node.data is None:
            return
        self._filled.add(node.id)
        depth, up = 1, node
        while up.parent is not None:
            depth, up = depth + 1, up.parent
        room = self.size.width - depth * self.guide_depth - 3  # the guides and the open/close mark
        for child in self.dissection.children(node.data):
            label = Text(_fit(child.text, room), style=STYLES.get(child.kind, ""))
            node.add(label, child, allow_expand=child.expandable)

    def refill(self, node: TreeNode[Node]) -> None:
        """Build ``node``'s children again (the body once its structure is read)."""
        node.remove_children()
        self._filled.discard(node.id)
        self.fill(node)

    def is_filled(self, node: TreeNode[Node]) -> bool:
        return node.id in self._filled

    def child_with(self, node: TreeNode[Node], key: Key) -> TreeNode[Node] | None:
        self.fill(node)
        return next((c for c in node.children if c.data is not None and c.data.key == key), None)

    def show_node(self, node: TreeNode[Node]) -> None:
        """Put the cursor on ``node`` (its ancestors open), scrolled into view."""
        _ = self.last_line  # lay the lines out now: ``move_cursor`` reads the node's line
        self.move_cursor(node)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[Node]) -> None:
        self.fill(event.node)


class TreePane(MatchSteps, Pane):
    NAME = "tree"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.dissection: Dissection | None = None
        self._shown = False
        self._started = False  # the tree was built for the loaded model
        self._waiting: Selection | None = None  # a selection to show once the tree is built or read
        self._followed: TreeNode[Node] | None = None  # a node moved to by follow(): not announced back
        self._opened: list[TreeNode[Node]] = []  # nodes follow() opened, closed again by the next one
        self.search: Search | None = None

    def compose(self) -> ComposeResult:
        yield DissectionTree(id="dissection")
        yield HexView(id="tree-hex")
        yield Static("", id="tree-status")

    @property
    def tree(self) -> DissectionTree:  # type: ignore[override]  # shadows Textual's DOMNode.tree (a debug rendering)
        return self.query_one("#dissection", DissectionTree)

    @property
    def hex(self) -> HexView:
        return self.query_one("#tree-hex", HexView)

    @property
    def focus_target(self) -> Widget:
        return self.tree

    # --- building ---------------------------------------------------------------------

    def show(self, loaded: Loaded) -> None:
        self.dissection = None if loaded.pending else Dissection(loaded)
        self._started = False
        self._waiting = None
        self._opened = []
        self.search = None
        self.hex.set_loaded(loaded)
        if loaded.pending:
            self.tree.reset(Text("reading the wire… (decoding and verifying)"))
            return
        if self._shown:
            self._start()

    def _start(self) -> None:
        """Build the top of the tree, the first time the tab is shown for a model."""
        if self._started or self.dissection is None:
            return
        self._started = True
        self.tree.start(self.dissection)
        self._status(self.dissection.root())

    def on_show(self) -> None:
        self._shown = True
        self._start()
        if self._waiting is not None:
            waiting, self._waiting = self._waiting, None
            self.follow(waiting)

    def on_hide(self) -> None:
        self._shown = False

    def _read_structure(self) -> None:
        """Read the body's JSON structure in a worker when the document is large."""
        d = self.dissection
        if d is not None and not d.structure_ready:
            self._structure_worker(d)

    @work(thread=True, exclusive=True, group="tree", exit_on_error=False, description="read the JSON structure")
    def _structure_worker(self, dissection: Dissection) -> None:
        dissection.build_structure()
        self.post_message(StructureReady(dissection))

    def on_structure_ready(self, message: StructureReady) -> None:
        if message.dissection is not self.dissection:  # read for a model no longer loaded
            return
        body = self.tree.child_with(self.tree.root, ("body",))
        if body is not None and self.tree.is_filled(body):
            self.tree.refill(body)
        if self._waiting is not None:
            waiting, self._waiting = self._waiting, None
            self.follow(waiting)

    @on(Tree.NodeExpanded, "#dissection")
    def _expanded(self, event: Tree.NodeExpanded[Node]) -> None:
        if any(c.data is not None and c.data.kind == "pending" for c in event.node.children):
            self._read_structure()

    # --- the linked cursor --------------------------------------------------------------

    def follow(self, selection: Selection) -> None:
        """Open the tree down to the deepest node holding the selection's byte
        and put the cursor there (closing what the previous follow opened)."""
        d = self.dissection
        if d is None:
            return
        if not self._shown or not self._started:
            self._waiting = selection  # shown when the tab is
            return
        keys = d.path(selection.cursor)
        if ("body",) in keys and not d.structure_ready and keys[-1] == ("body",):
            self._waiting = selection
            self._read_structure()
        self._select_path(keys, selection.cursor)
        self.hex.select_span(selection.start, selection.end)
        self.hex.go_to_offset(selection.cursor)

    def _select_path(self, keys: list[Key], at: int | None = None) -> TreeNode[Node]:
        tree = self.tree
        node = tree.root
        path = [node]
        for key in keys[1:]:
            child = tree.child_with(node, key)
            if child is None:
                break
            path.append(child)
            node = child
        on_path = set(map(id, path))
        for opened in reversed(self._opened):
            if id(opened) not in on_path:
                opened.collapse()
        self._opened = [n for n in self._opened if id(n) in on_path]
        for ancestor in path[:-1]:
            if not ancestor.is_expanded:
                ancestor.expand()
                self._opened.append(ancestor)
        if tree.cursor_node is not node:
            self._followed = node
            tree.show_node(node)
        if node.data is not None:
            self._status(node.data, at)
        return node

    @on(Tree.NodeHighlighted, "#dissection")
    def _highlighted(self, event: Tree.NodeHighlighted[Node]) -> None:
        followed, self._followed = self._followed, None
        node = event.node.data
        if node is None or event.node is followed:
            return  # moved by a follow, which said where: only the user's moves are announced
        self._status(node)
        if not self.tree.has_focus:
            return
        self._opened = []  # the user moves from here: what was opened stays open
        self.hex.select_span(node.start, node.end)
        self.hex.go_to_offset(node.start)
        self.announce(node.start, node.end, node.doc)

    @on(HexView.Moved)
    def _hex_moved(self, event: HexView.Moved) -> None:
        """A byte chosen in the tab's own hex view selects its deepest node."""
        loaded = self.loaded
        if loaded is None or not event.by_user or self.dissection is None:
            return
        node = self._select_path(self.dissection.path(event.offset), event.offset)
        if node.data is not None:
            self.hex.select_span(node.data.start, node.data.end)
            self.announce(node.data.start, node.data.end, node.data.doc, at=event.offset)

    def _status(self, node: Node, at: int | None = None) -> None:
        size = node.end - node.start
        text = f"bytes {node.start:,}–{max(node.end - 1, node.start):,} of the wire ({plural(size, 'byte')})"
        if at is not None:
            text = f"byte {at:,} in the node's " + text
        if node.doc is not None:
            text += f" · document {node.doc[0]:,}–{max(node.doc[1] - 1, node.doc[0]):,}"
        text += " · Space opens and closes, shift+← goes to the parent"
        self.query_one("#tree-status", Static).update(Text(text, no_wrap=True, overflow="ellipsis"), layout=False)

    # --- search ---------------------------------------------------------------------------

    def action_search(self) -> None:
        """Find text (or bytes in hex) in the wire: each match opens the tree
        down to the deepest node holding it, and is the linked cursor."""
        if self.loaded is None:
            return

        def found(search: Search) -> None:
            self.search = search
            self.action_next_match()

        Search.ask(self, "tree", self.loaded.wire, found, hex_ok=True)

    def _show_match(self) -> None:
        search, d, loaded = self.search, self.dissection, self.loaded
        if search is None or d is None or loaded is None:
            return
        offset = search.current
        start, end, doc = loaded.span_at(offset)
        selection = Selection(loaded, start, end, self.NAME, doc, offset)
        self.follow(selection)  # opens the tree to the deepest node holding the match
        self.hex.select_span(offset, offset + search.length)
        self.announce(start, end, doc, at=offset)
        self.notify(f"match {search.position + 1} of {len(search.matches):,} at byte {offset:,}", timeout=3)

    def copy_value(self) -> str:
        """The selected node's text: its document bytes for a JSON value, else its wire bytes."""
        loaded, node = self.loaded, self.tree.cursor_node
        if loaded is None or node is None or node.data is None:
            return ""
        data = node.data
        if data.doc is not None and loaded.document is not None:
            return display_value(loaded.document[data.doc[0]:data.doc[1]])
        return display_value(loaded.wire[data.start:data.end])


__all__ = ["DissectionTree", "StructureReady", "TreePane"]
