"""Share links with room tokens: editors and viewers, refused and expiring links.

The tests marked "auth server" run against `reorder serve --auth-secret-file` with tokens from
`reorder token`; the others drive the page's own handling with crafted frames (the `wire`
fixture) for what a real server gives only after a long wait (a token running out).
"""

import time

from selenium.webdriver.common.keys import Keys

from boards import first_list
from conftest import Page, shot

EDIT_CONTROLS = ["undo-button", "redo-button", "move-button", "edit-button", "add-item-button", "add-list-button"]


def badge_shown(page: Page) -> bool:
    return page.js("const b = document.getElementById('role-badge'); return !b.hidden && b.offsetParent !== null && b.textContent")  == "View only"


def hidden_controls(page: Page) -> list[str]:
    return page.js(
        "return arguments[0].filter(id => { const b = document.getElementById(id);"
        " return b.hidden && b.getAttribute('aria-disabled') === 'true'; });",
        EDIT_CONTROLS,
    )


def notice(page: Page) -> str | None:
    return page.js("const n = document.getElementById('access-notice'); return n.hidden ? null : document.getElementById('access-title').textContent")


def ops_sent(page: Page) -> list:
    return page.js("return window.__wire.sentOfType('op').map(s => s.msg)")


def ghost(page: Page):
    return page.js(
        "const g = document.querySelector('[data-ghost]'); if (!g || g.hidden) return null;"
        "const r = g.getBoundingClientRect(); return {x: r.left, y: r.top, name: g.textContent, item: g.dataset.ghostItem};"
    )


def try_everything(page: Page, col: dict) -> None:
    """Every way the board offers to change it: a mouse drag, a touch long press and drag, a
    touch swipe, a keyboard lift and move, M, undo, and the buttons (hidden, clicked anyway)."""
    ids = col["items"]
    a, c = page.item(ids[0]), page.item(ids[3])
    page.mouse("mousePressed", a["cx"], a["cy"])
    page.mouse_path(a["cx"], a["cy"], c["cx"], c["cy"] + 2, 8)
    assert not page.lifted(), "a viewer's mouse lifts nothing"
    page.mouse("mouseReleased", c["cx"], c["cy"] + 2)
    b = page.item(ids[1])
    page.touch("touchStart", b["cx"], b["cy"])
    time.sleep(0.45)  # past the 300 ms long press
    page.touch("touchMove", b["cx"], b["cy"] + 60)
    assert not page.lifted(), "a viewer's long press lifts nothing"
    page.touch("touchEnd")
    page.touch("touchStart", b["cx"], b["cy"], advance_ms=0)
    for i in range(1, 6):
        page.touch("touchMove", b["cx"] + 40 * i, b["cy"], advance_ms=16)
    page.touch("touchEnd", advance_ms=16)
    page.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[0])
    active = page.driver.switch_to.active_element
    active.send_keys(Keys.SPACE)
    assert not page.js("return !!document.querySelector('.kbd-lifted')"), "Space lifts nothing"
    active.send_keys(Keys.ARROW_DOWN, Keys.SPACE, "m", Keys.DELETE)
    active.send_keys(Keys.CONTROL, "z")
    assert not page.js("return document.getElementById('move-dialog').open"), "M opens no dialog"
    for button in EDIT_CONTROLS:
        page.js("document.getElementById(arguments[0]).click()", button)
    page.js("document.querySelectorAll('.item-remove, .item-move, .chip-remove').forEach(b => b.click())")
    assert not page.js(
        "return ['move-dialog', 'add-item-dialog', 'add-list-dialog'].some(id => document.getElementById(id).open)"
    ), "no editing dialog opens"
    assert not page.js("return document.body.classList.contains('editing')"), "no edit mode"


# Auth server ------------------------------------------------------------------------------------


def test_editor_and_viewer_links_the_viewer_follows_live_and_changes_nothing(auth_server, page_a: Page, page_b: Page, wire):
    server, tokens = auth_server()
    editor = tokens.link(server, "cities", "editor", "ann")
    viewer = tokens.link(server, "cities", "viewer", "bob")
    wire(page_b)
    page_a.open_link(editor)
    page_b.open_link(viewer)
    # The tokens left the address bars for sessionStorage, and went to the server in hello.
    for page, link in ((page_a, editor), (page_b, viewer)):
        token = link.split("?token=")[1]
        assert "token" not in page.js("return location.href"), page.js("return location.href")
        assert page.js("return location.hash") == "#/b/cities"
        assert page.js("return sessionStorage.getItem('reorder.token.cities')") == token
    hello = page_b.js("return window.__wire.sentOfType('hello')[0].msg")
    assert hello["token"] == viewer.split("?token=")[1]
    assert page_b.js("return window.__wire.welcomes[0].role") == "viewer"
    page_a.wait(lambda: page_a.js("return document.body.dataset.access") == "editor", 5, "A to be an editor")
    assert not badge_shown(page_a) and hidden_controls(page_a) == []
    page_b.wait(lambda: badge_shown(page_b), 5, "the View only badge in B")
    assert hidden_controls(page_b) == EDIT_CONTROLS
    assert page_b.js("return [...document.querySelectorAll('[data-item]')].every(e => e.getAttribute('aria-roledescription') === 'item')")
    shot(page_b, "viewer-badge")

    # The viewer sees the editor's ghost and moves.
    col = first_list(page_a, "list")
    ids = col["items"]
    page_b.wait(lambda: page_b.js("return document.querySelectorAll('[data-peer]').length") == 1, 5, "B to see A online")
    a, c = page_a.item(ids[0]), page_a.item(ids[3])
    page_a.mouse("mousePressed", a["cx"], a["cy"])
    page_a.mouse_path(a["cx"], a["cy"], a["cx"] + 6, a["cy"] + 12, 3)
    page_a.wait(page_a.lifted, 3, "A's lift")
    page_b.wait(lambda: ghost(page_b) is not None, 5, "A's ghost in B")
    assert "Ann" in ghost(page_b)["name"] and ghost(page_b)["item"] == ids[0]
    page_a.mouse_path(a["cx"] + 6, a["cy"] + 12, c["cx"], c["cy"] + 2, 8)
    page_a.mouse("mouseReleased", c["cx"], c["cy"] + 2)
    expected = ids[1:4] + [ids[0]] + ids[4:]
    page_a.wait_order(col["id"], expected)
    page_b.wait_order(col["id"], expected)
    page_b.wait(lambda: ghost(page_b) is None, 5, "the ghost to go")

    # The viewer cannot change anything, and sends no op trying.
    try_everything(page_b, {"id": col["id"], "items": expected})
    assert ops_sent(page_b) == []
    assert page_b.order(col["id"]) == expected and page_a.order(col["id"]) == expected

    # A page opened later for the room in the same tab reuses the stored token.
    page_b.goto(server.base + "?again#/b/cities")
    page_b.wait(lambda: page_b.js("return document.body.dataset.connection") == "open", 15, "B to reconnect")
    page_b.wait(lambda: badge_shown(page_b), 5, "the badge after a reload")
    assert page_b.js("return window.__wire.sentOfType('hello').at(-1).msg.token") == viewer.split("?token=")[1]


def test_an_expired_link_says_so_and_does_not_reconnect(auth_server, page_a: Page, wire):
    server, tokens = auth_server()
    wire(page_a)
    page_a.open_link(server.base + "#/b/cities?token=" + tokens.expired("cities", "editor", "ann"), connect=False)
    page_a.wait(lambda: notice(page_a) is not None, 10, "the refusal")
    assert notice(page_a) == "This link has expired"
    assert "token" not in page_a.js("return location.href")
    assert page_a.js("return document.body.dataset.connection") == "closed"
    time.sleep(3)  # several reconnects' worth of backoff (0.25 s, 0.5 s, 1 s …)
    assert page_a.js("return window.__wire.sockets.length") == 1, "no reconnect after a 4401"
    assert notice(page_a) == "This link has expired"
    shot(page_a, "link-expired")


def test_a_link_for_another_board_says_so_and_does_not_reconnect(auth_server, page_a: Page, wire):
    server, tokens = auth_server()
    wire(page_a)
    page_a.open_link(server.base + "#/b/cities?token=" + tokens.mint("home", "editor", "ann"), connect=False)
    page_a.wait(lambda: notice(page_a) is not None, 10, "the refusal")
    assert notice(page_a) == "This link is not for this board"
    time.sleep(3)
    assert page_a.js("return window.__wire.sockets.length") == 1, "no reconnect after a 4403"


def test_a_forged_link_is_not_valid(auth_server, page_a: Page, wire):
    server, tokens = auth_server()
    _, other = auth_server()
    wire(page_a)
    page_a.open_link(server.base + "#/b/cities?token=" + other.mint("cities", "editor", "ann"), connect=False)
    page_a.wait(lambda: notice(page_a) is not None, 10, "the refusal")
    assert notice(page_a) == "This link is not valid"
    time.sleep(3)
    assert page_a.js("return window.__wire.sockets.length") == 1, "no reconnect after a 4401"


def test_an_expiring_link_shows_when_and_a_newer_link_refreshes_it_with_its_role(auth_server, page_a: Page, wire):
    server, tokens = auth_server()
    wire(page_a)
    # Shorter than the 60 s warning: the server warns at once.
    page_a.open_link(tokens.link(server, "cities", "editor", "ann", "30s"))
    page_a.wait(lambda: page_a.js("return document.getElementById('link-status').hidden") is False, 10, "the expiry notice")
    text = page_a.js("return document.getElementById('link-status').textContent")
    assert text.startswith("Link expires in ") and text.endswith(" s"), text
    assert not badge_shown(page_a)
    # Another share link for the room, opened in this tab: the page offers its token as a refresh.
    fresh = tokens.link(server, "cities", "viewer", "ann", "1h")
    page_a.js("location.hash = arguments[0]", "#" + fresh.split("#", 1)[1])
    page_a.wait(lambda: len(page_a.js("return window.__wire.sentOfType('refresh')")) == 1, 5, "the refresh")
    assert page_a.js("return window.__wire.sentOfType('refresh')[0].msg.token") == fresh.split("?token=")[1]
    page_a.wait(lambda: badge_shown(page_a), 5, "the viewer role of the new token")
    assert page_a.js("return document.getElementById('link-status').hidden")
    assert page_a.js("return window.__wire.sockets.length") == 1, "refreshed in place, no reconnect"
    assert "token" not in page_a.js("return location.href")


def test_a_refused_refresh_keeps_the_current_link_and_its_rights(auth_server, page_a: Page, wire):
    server, tokens = auth_server()
    wire(page_a)
    first = tokens.link(server, "cities", "editor", "ann", "30s")
    page_a.open_link(first)
    page_a.wait(lambda: page_a.js("return document.getElementById('link-status').hidden") is False, 10, "the expiry notice")
    # A link for another person cannot refresh this connection (a refresh keeps the `sub`).
    other = tokens.link(server, "cities", "viewer", "bob", "1h")
    page_a.js("location.hash = arguments[0]", "#" + other.split("#", 1)[1])
    page_a.wait(lambda: len(page_a.js("return window.__wire.sentOfType('refresh')")) == 1, 5, "the refresh")
    page_a.wait(
        lambda: "could not be used" in page_a.js("return document.getElementById('toasts').textContent"), 5, "the refusal's toast"
    )
    assert page_a.js("return sessionStorage.getItem('reorder.token.cities')") == first.split("?token=")[1]
    assert page_a.js("return document.body.dataset.access") == "editor" and not badge_shown(page_a)
    assert page_a.js("return document.body.dataset.connection") == "open" and notice(page_a) is None
    assert not page_a.js("return document.getElementById('link-status').hidden"), "still expiring"
    # Still an editor: a move is applied.
    col = first_list(page_a, "list")
    ids = col["items"]
    a, c = page_a.item(ids[0]), page_a.item(ids[2])
    page_a.mouse_drag(a["cx"], a["cy"], c["cx"], c["cy"] + 2, 8)
    page_a.wait_order(col["id"], ids[1:3] + [ids[0]] + ids[3:])
    page_a.wait(lambda: page_a.js("return document.body.dataset.pending") == "0", 5, "the move applied")


# Crafted frames ---------------------------------------------------------------------------------


def test_a_refreshed_role_applies_at_once(server, page_a: Page, wire):
    wire(page_a)
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    assert hidden_controls(page_a) == [] and not badge_shown(page_a)
    page_a.js("document.getElementById('edit-button').click()")
    assert page_a.js("return document.body.classList.contains('editing')")
    ids = col["items"]
    a = page_a.item(ids[0])
    page_a.mouse("mousePressed", a["cx"], a["cy"])
    page_a.mouse_path(a["cx"], a["cy"], a["cx"], a["cy"] + 30, 4)
    assert page_a.lifted()
    page_a.js("window.__wire.deliver({type: 'refreshed', role: 'viewer', expires_in_s: 3600})")
    assert badge_shown(page_a), "the badge at once"
    assert not page_a.lifted(), "the drag in progress is cancelled"
    assert not page_a.js("return document.body.classList.contains('editing')"), "edit mode ends"
    assert hidden_controls(page_a) == EDIT_CONTROLS
    page_a.mouse("mouseReleased", a["cx"], a["cy"] + 30)
    try_everything(page_a, col)
    assert ops_sent(page_a) == []
    assert page_a.order(col["id"]) == ids
    page_a.js("window.__wire.deliver({type: 'refreshed', role: 'editor', expires_in_s: 3600})")
    assert not badge_shown(page_a) and hidden_controls(page_a) == []
    a, c = page_a.item(ids[0]), page_a.item(ids[2])
    page_a.mouse_drag(a["cx"], a["cy"], c["cx"], c["cy"] + 2, 8)
    page_a.wait(lambda: len(ops_sent(page_a)) == 1, 5, "an editor's move")


def test_a_viewer_welcome_turns_every_control_off(server, page_a: Page, wire):
    wire(page_a, overrides={"role": "viewer"})
    page_a.open(server, "cities")
    page_a.wait(lambda: badge_shown(page_a), 5, "the badge")
    assert page_a.js("return [...document.querySelectorAll('[data-item]')].every(e => e.getAttribute('aria-roledescription') === 'item')")
    shot(page_a, "view-only")
    col = first_list(page_a, "list")
    try_everything(page_a, col)
    assert ops_sent(page_a) == []
    assert page_a.order(col["id"]) == col["items"]


def test_close_codes_say_what_happened_and_stop_reconnecting(server, page_a: Page, wire):
    cases = [
        (4401, "token expired", "This link has expired"),
        (4401, "unauthorized", "This link is not valid"),
        (4403, "forbidden", "This link is not for this board"),
    ]
    wire(page_a)
    for code, reason, title in cases:
        page_a.open(server, "cities")
        page_a.js("window.__wire.deliverClose(arguments[0], arguments[1])", code, reason)
        page_a.wait(lambda: notice(page_a) is not None, 5, "the notice")
        assert notice(page_a) == title, (code, reason)
        shot(page_a, f"link-refused-{code}")
        assert page_a.js("return document.body.classList.contains('read-only')")
        time.sleep(1.5)
        assert page_a.js("return window.__wire.sockets.length") == 1, f"no reconnect after {code}"
        page_a.leave()
    # Other closes still reconnect.
    page_a.open(server, "cities")
    page_a.js("window.__wire.deliverClose(4408, 'hello timeout')")
    page_a.wait(lambda: page_a.js("return window.__wire.sockets.length") == 2, 5, "a reconnect after 4408")
    assert notice(page_a) is None


def test_token_expiring_shows_a_countdown(server, page_a: Page, wire):
    wire(page_a)
    page_a.open(server, "cities")
    status = "return document.getElementById('link-status')"
    assert page_a.js(status + ".hidden")
    page_a.js("window.__wire.deliver({type: 'token_expiring', expires_in_s: 60})")
    assert page_a.js(status + ".textContent") == "Link expires in 1 min"
    page_a.wait(lambda: page_a.js(status + ".textContent") == "Link expires in 59 s", 5, "the countdown")
    shot(page_a, "link-expiring")
    # No newer token in this tab: nothing to refresh with.
    assert page_a.js("return window.__wire.sentOfType('refresh').length") == 0
    page_a.js("window.__wire.deliver({type: 'refreshed', role: 'editor', expires_in_s: 3600})")
    assert page_a.js(status + ".hidden")


def test_a_new_link_after_a_refusal_connects_again_with_its_token(server, page_a: Page, wire):
    wire(page_a)
    page_a.open(server, "cities")
    page_a.js("window.__wire.deliverClose(4401, 'token expired')")
    page_a.wait(lambda: notice(page_a) == "This link has expired", 5, "the notice")
    page_a.js("location.hash = '#/b/cities?token=a-new-link'")
    page_a.wait(lambda: page_a.js("return window.__wire.sockets.length") == 2, 5, "a new connection")
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 10, "online again")
    assert notice(page_a) is None
    assert page_a.js("return window.__wire.sentOfType('hello').at(-1).msg.token") == "a-new-link"
    assert page_a.js("return location.hash") == "#/b/cities"
    assert not page_a.js("return document.body.classList.contains('read-only')")
