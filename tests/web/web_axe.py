"""axe-core in the browser tests: one call says a page, as it is now, has no violation of
WCAG 2.0, 2.1 and 2.2, levels A and AA. And Chromium's own accessibility tree, read through
the DevTools protocol: what a screen reader is given.

axe-core's JavaScript is the copy that ``axe-playwright-python`` ships (pinned in
requirements.txt): nothing is fetched at test time. It is injected with Playwright's
``evaluate`` (the DevTools protocol, which the page's CSP does not govern: the site's policy is
never loosened), and any CSP report it caused would fail the test through the Player's
collected problems::

    from web_axe import assert_no_axe_violations

    assert_no_axe_violations(player, "game, own turn")
"""

from __future__ import annotations

import json
import re
from typing import Any

from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
from web_pages import Player

# axe-core's tags for the success criteria of WCAG 2.0, 2.1 and 2.2 at levels A and AA.
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa")

_AXE = Axe()
_rules: list[str] = []

# Every rule carrying one of those tags, the "experimental" ones included: a plain run by tag
# leaves those out, and one of them is label-content-name-mismatch (WCAG 2.5.3, level A).
RULES = f"""axe.getRules().filter((rule) => rule.tags.some((tag) => {json.dumps(WCAG_TAGS)}
  .includes(tag))).map((rule) => rule.ruleId)"""


def wcag_rules(player: Player) -> list[str]:
    """The ids of the rules that test WCAG 2.0/2.1/2.2 A and AA, read from axe itself."""
    if not _rules:
        _inject(player)
        _rules.extend(player.js(RULES))
        assert "label-content-name-mismatch" in _rules and "color-contrast" in _rules
        assert "target-size" in _rules  # WCAG 2.2 AA
    return _rules


def axe_version() -> str:
    """The axe-core version the library ships (the banner of its axe.min.js)."""
    head: str = _AXE.axe_script[:80]
    return head.split("axe v", 1)[1].split(maxsplit=1)[0]


def axe_violations(player: Player, context: str | None = None) -> list[dict[str, Any]]:
    """axe's violations on the page as it is now (or inside the CSS selector ``context``)."""
    options = {
        "runOnly": {"type": "rule", "values": wcag_rules(player)},
        "resultTypes": ["violations"],
    }
    _inject(player)
    results = player.page.evaluate(
        "([context, options]) => context === null ? axe.run(options) : axe.run(context, options)",
        [context, options],
    )
    violations: list[dict[str, Any]] = results["violations"]
    return violations


def _inject(player: Player) -> None:
    """axe-core into the page, once per document (the library's own ``run`` sends all
    550 KB of it again at every call: a fifth of a call's CPU)."""
    if not player.js("typeof window.axe === 'object'"):
        player.page.evaluate(_AXE.axe_script)


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"- {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:5]:
            lines.append(f"    {json.dumps(node['target'])}: {node['html'][:160]}")
            lines.extend(f"      {check['message']}" for check in node.get("any", [])[:1])
        if len(violation["nodes"]) > 5:
            lines.append(f"    … and {len(violation['nodes']) - 5} more")
    return "\n".join(lines)


def assert_no_axe_violations(player: Player, state: str, context: str | None = None) -> None:
    """Fail, listing every rule and node, if axe finds any WCAG 2.x A/AA violation."""
    violations = axe_violations(player, context)
    assert not violations, f"axe-core {axe_version()}, {state}:\n{describe(violations)}"


# Chromium's accessibility tree ----------------------------------------------------------------


def _ax_nodes(player: Player, selector: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The tree's node for the element ``selector``, and every node by id."""
    cdp = player.page.context.new_cdp_session(player.page)
    try:
        cdp.send("Accessibility.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        found = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert found, f"no element {selector}"
        backend = cdp.send("DOM.describeNode", {"nodeId": found})["node"]["backendNodeId"]
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {node["nodeId"]: node for node in nodes}
    target = next(node for node in nodes if node.get("backendDOMNodeId") == backend)
    return target, by_id


def ax_grid(player: Player, selector: str) -> list[list[tuple[str, str]]]:
    """The grid ``selector`` as a reader is given it: each row that is not ignored, its cells
    (role, name) that are not ignored, in order (ignored containers looked through)."""
    node, by_id = _ax_nodes(player, selector)

    def below(current: dict[str, Any], roles: tuple[str, ...]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for child in current.get("childIds", []):
            if child not in by_id:
                continue
            item = by_id[child]
            if not item.get("ignored") and item.get("role", {}).get("value") in roles:
                found.append(item)
            else:
                found.extend(below(item, roles))
        return found

    cells = ("gridcell", "cell", "columnheader", "rowheader")
    return [
        [(c["role"]["value"], c.get("name", {}).get("value", "")) for c in below(row, cells)]
        for row in below(node, ("row",))
    ]


def ax_row_names(player: Player, selector: str) -> list[str]:
    """The names the grid's rows (not ignored, in order) are given by the page (aria-label,
    aria-labelledby), "" for none: Chromium's tree otherwise names a row by its contents."""
    node, by_id = _ax_nodes(player, selector)
    names: list[str] = []

    def given(item: dict[str, Any]) -> bool:
        return any(
            source.get("attribute") in ("aria-label", "aria-labelledby")
            and "value" in source
            and not source.get("superseded")
            for source in item.get("name", {}).get("sources", [])
        )

    def walk(current: dict[str, Any]) -> None:
        for child in current.get("childIds", []):
            if child not in by_id:
                continue
            item = by_id[child]
            if not item.get("ignored") and item.get("role", {}).get("value") == "row":
                names.append(item.get("name", {}).get("value", "") if given(item) else "")
            else:
                walk(item)

    walk(node)
    return names


def ax_name(player: Player, selector: str) -> str:
    """The accessible name Chromium computed for the element (what a reader says of it)."""
    node, _ = _ax_nodes(player, selector)
    name: str = node.get("name", {}).get("value", "")
    return name


def ax_texts(player: Player, selector: str) -> list[str]:
    """The texts a screen reader reads inside the element, in order (Chromium's StaticText
    nodes that are not ignored: aria-hidden text is left out, visually hidden text is in)."""
    node, by_id = _ax_nodes(player, selector)
    texts: list[str] = []

    def walk(current: dict[str, Any]) -> None:
        # An ignored container may still hold read text; aria-hidden text is itself ignored.
        if current.get("role", {}).get("value") == "StaticText":
            if not current.get("ignored"):
                texts.append(current.get("name", {}).get("value", ""))
            return
        for child in current.get("childIds", []):
            if child in by_id:
                walk(by_id[child])

    walk(node)
    return texts


def ax_property(player: Player, selector: str, name: str) -> Any:
    """One of the node's properties in the tree ("live", "disabled", "focused"…), or None."""
    node, _ = _ax_nodes(player, selector)
    for prop in node.get("properties", []):
        if prop["name"] == name:
            return prop["value"].get("value")
    return None


# Colours (WCAG 1.4.11) ------------------------------------------------------------------------


def rgb(text: str) -> list[tuple[int, int, int]]:
    """Every opaque colour in a computed value ("rgb(1, 2, 3)", "rgba(…, 1)")."""
    found = re.findall(r"rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)", text)
    return [(int(r), int(g), int(b)) for r, g, b, a in found if a in ("", "1")]


def luminance(colour: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
