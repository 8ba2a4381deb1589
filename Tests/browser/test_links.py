"""What the page does with its link: Share only where a link opens the board for anyone, the
name a token gives, the countdown to a token's expiry, and the protocol version (`hello.v`,
unknown messages and members, the refusals' close codes)."""

import time

from boards import first_list
from conftest import Page, shot

EDIT_CONTROLS = ["undo-button", "redo-button", "move-button", "edit-button", "add-item-button", "add-list-button"]
STATUS = "return document.getElementById('link-status')"


def share_shown(page: Page) -> bool:
    return page.js("const b = document.getElementById('share-button'); return !b.hidden && b.offsetParent !== null")


def notice(page: Page) -> str | None:
    return page.js("const n = document.getElementById('access-notice'); return n.hidden ? null : document.getElementById('access-title').textContent")


def own_chip(page: Page) -> str | None:
    return page.js("const c = document.querySelector('#peers .peer:not([data-peer]):not([data-peer-more])'); return c ? c.textContent : null")


def peer_names(page: Page) -> list[str]:
    return page.js("return [...document.querySelectorAll('#peers [data-peer]')].map(c => c.textContent)")


def editable(page: Page) -> bool:
    return page.js(
        "return !document.body.classList.contains('read-only') && arguments[0].every(id => !document.getElementById(id).hidden)",
        EDIT_CONTROLS,
    )


# Share ------------------------------------------------------------------------------------------


def test_share_copies_the_board_link_on_a_board_without_tokens_and_goes_with_a_refusal(server, page_a: Page, wire):
    wire(page_a)
    page_a.open(server, "cities", debug=True)
    assert share_shown(page_a)
    page_a.js("window.__copied = []; navigator.clipboard.writeText = (t) => { window.__copied.push(t); return Promise.resolve(); }")
    page_a.js("document.getElementById('share-button').click()")
    page_a.wait(lambda: page_a.js("return window.__copied.length") == 1, 5, "the copy")
    assert page_a.js("return window.__copied[0]") == server.base + "#/b/cities"
    # The board was deleted: nothing to share any more.
    page_a.js("window.__wire.deliverClose(4404, 'board deleted')")
    page_a.wait(lambda: notice(page_a) == "This board was deleted", 5, "the notice")
    assert not share_shown(page_a)


def test_share_is_not_offered_on_a_board_opened_with_a_token(auth_server, page_a: Page, page_b: Page):
    server, tokens = auth_server()
    # An editor's and a viewer's link: each token is its person's, never handed on.
    page_a.open_link(tokens.link(server, "cities", "editor", "ann"))
    page_b.open_link(tokens.link(server, "cities", "viewer", "bob"))
    page_a.wait(lambda: page_a.js("return document.body.dataset.access") == "editor", 5, "A to be an editor")
    page_b.wait(lambda: page_b.js("return document.body.dataset.access") == "viewer", 5, "B to be a viewer")
    assert not share_shown(page_a)
    assert not share_shown(page_b)
    # Clicked anyway, it copies nothing.
    page_a.js("window.__copied = []; navigator.clipboard.writeText = (t) => { window.__copied.push(t); return Promise.resolve(); }")
    page_a.js("document.getElementById('share-button').click()")
    time.sleep(0.3)
    assert page_a.js("return window.__copied") == []
    # Refused pages: a board opened without a token on this server, and an expired link.
    page_a.open_link(server.base + "#/b/home", connect=False)
    page_a.wait(lambda: notice(page_a) == "This link is not valid", 10, "the refusal")
    assert not share_shown(page_a)
    page_b.open_link(server.base + "#/b/home?token=" + tokens.expired("home", "editor", "bob"), connect=False)
    page_b.wait(lambda: notice(page_b) == "This link has expired", 10, "the refusal")
    assert not share_shown(page_b)


# A token's name ---------------------------------------------------------------------------------


def test_a_link_with_a_name_asks_for_none_and_shows_the_tokens_name(auth_server, page_a: Page, page_b: Page):
    server, tokens = auth_server()
    # A has never chosen a name in this browser: the link's name is enough.
    link = tokens.link(server, "cities", "editor", "zoe", "1h", "--name", "Zoe", "--color", "#2b8a3e")
    page_a.goto(server.base + "?setup")
    page_a.js("localStorage.clear(); sessionStorage.clear()")
    page_a.goto(link)
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 15, "A to connect")
    assert not page_a.js("return document.getElementById('identity-dialog').open"), "no “Who are you?”"
    page_a.wait(lambda: own_chip(page_a) == "Zoe (you)", 5, "A's own chip")
    assert page_a.js("return document.getElementById('identity-button').textContent") == "Zoe"
    assert page_a.js("return document.getElementById('identity-button').disabled")
    assert page_a.js("return localStorage.getItem('reorder.name')") is None, "the link's name is not kept as the browser's"
    # B chose “Bob” in this browser, but the link names Yan: Yan everywhere.
    page_b.open_link(tokens.link(server, "cities", "editor", "yan", "1h", "--name", "Yan"))
    page_b.wait(lambda: own_chip(page_b) == "Yan (you)", 5, "B's own chip")
    page_b.wait(lambda: peer_names(page_b) == ["Zoe"], 5, "B to see Zoe")
    page_a.wait(lambda: peer_names(page_a) == ["Yan"], 5, "A to see Yan")
    shot(page_b, "link-name")


def test_a_link_without_a_name_still_asks(auth_server, page_a: Page):
    server, tokens = auth_server()
    page_a.goto(server.base + "?setup")
    page_a.js("localStorage.clear(); sessionStorage.clear()")
    page_a.goto(tokens.link(server, "cities", "editor", "ann"))
    page_a.wait(lambda: page_a.js("return document.getElementById('identity-dialog').open"), 5, "“Who are you?”")
    page_a.js("document.getElementById('name-input').value = 'Ann'")
    page_a.js("document.getElementById('identity-save').click()")
    page_a.wait(lambda: own_chip(page_a) == "Ann (you)", 10, "A's own chip")


def test_a_named_link_opened_while_the_page_asks_for_a_name_closes_the_question(auth_server, page_a: Page):
    server, tokens = auth_server()
    page_a.goto(server.base + "?setup")
    page_a.js("localStorage.clear(); sessionStorage.clear()")
    page_a.goto(server.base + "#/b/cities")
    page_a.wait(lambda: page_a.js("return document.getElementById('identity-dialog').open"), 5, "“Who are you?”")
    link = tokens.link(server, "cities", "editor", "zoe", "1h", "--name", "Zoe")
    page_a.js("location.hash = arguments[0]", "#" + link.split("#", 1)[1])
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 15, "the board to connect")
    assert not page_a.js("return document.getElementById('identity-dialog').open")
    page_a.wait(lambda: own_chip(page_a) == "Zoe (you)", 5, "the link's name")


# Expiry -----------------------------------------------------------------------------------------


def test_a_short_link_counts_down_to_its_expiry_then_says_it_expired(auth_server, page_a: Page):
    server, tokens = auth_server()
    page_a.open_link(tokens.link(server, "cities", "editor", "ann", "4s"))
    seen: list[str] = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        text = page_a.js(STATUS + ".hidden ? '' : document.getElementById('link-status').textContent")
        if not seen or seen[-1] != text:
            seen.append(text)
        if text == "Link expired":
            break
        time.sleep(0.05)
    assert seen[-1] == "Link expired", seen
    countdown = [t for t in seen if t.startswith("Link expires in ")]
    assert countdown and all(t.endswith(" s") for t in countdown), seen
    assert "Link expires now" not in seen, seen
    assert page_a.js(STATUS + ".dataset.expired") == "true"
    assert page_a.js(STATUS + ".dataset.expiresIn") == "0"
    # The link's time is up: nothing is editable, whatever the server's leeway still allows.
    assert not editable(page_a)
    shot(page_a, "link-expired-status")


def test_the_countdown_follows_the_seconds_left_and_a_refresh_ends_the_expired_state(server, page_a: Page, wire):
    wire(page_a)
    page_a.open(server, "cities")
    assert page_a.js(STATUS + ".hidden")
    # More than a minute left: nothing shown yet.
    page_a.js("window.__wire.deliver({type: 'refreshed', role: 'editor', expires_in_s: 3600})")
    assert page_a.js(STATUS + ".hidden")
    page_a.js("window.__wire.deliver({type: 'token_expiring', expires_in_s: 2})")
    assert page_a.js(STATUS + ".textContent") == "Link expires in 2 s"
    page_a.wait(lambda: page_a.js(STATUS + ".textContent") == "Link expires in 1 s", 5, "1 s")
    page_a.wait(lambda: page_a.js(STATUS + ".textContent") == "Link expired", 5, "the expired state")
    page_a.wait(lambda: not editable(page_a), 5, "the page to be read-only")
    col = first_list(page_a, "list")
    a, c = page_a.item(col["items"][0]), page_a.item(col["items"][2])
    page_a.mouse_drag(a["cx"], a["cy"], c["cx"], c["cy"] + 2, 8)
    assert page_a.js("return window.__wire.sentOfType('op').length") == 0
    # A newer link accepted: editable again, no notice.
    page_a.js("window.__wire.deliver({type: 'refreshed', role: 'editor', expires_in_s: 3600})")
    assert page_a.js(STATUS + ".hidden")
    assert editable(page_a)


def test_a_replacement_welcome_keeps_the_countdown(server, page_a: Page, wire):
    # A second welcome on the connection (the board replaced through the API) repeats the
    # expires_in_s of the join; the token's exp has not moved.
    wire(page_a)
    page_a.open(server, "cities")
    page_a.js("window.__wire.deliver({type: 'token_expiring', expires_in_s: 30})")
    assert page_a.js(STATUS + ".textContent") == "Link expires in 30 s"
    page_a.js(
        "window.__wire.deliver({type: 'welcome', v: 1, epoch: 'e2', seq: 1, expires_in_s: 3600,"
        " board: {lists: [], assignments: [], totals: {}}})"
    )
    page_a.wait(lambda: page_a.js("return document.querySelectorAll('[data-item]').length") == 0, 5, "the new board")
    assert not page_a.js(STATUS + ".hidden")
    assert page_a.js(STATUS + ".textContent").startswith("Link expires in ")


def test_an_expired_link_stays_with_its_board(server, page_a: Page, wire):
    wire(page_a)
    page_a.open(server, "cities")
    page_a.js("window.__wire.deliver({type: 'token_expiring', expires_in_s: 1})")
    page_a.wait(lambda: page_a.js(STATUS + ".dataset.expired") == "true", 5, "the expired state")
    # Back to the landing page: no board, so nothing about a link.
    page_a.goto(server.base + "#/")
    page_a.wait(lambda: not page_a.js("return document.getElementById('landing').hidden"), 5, "the landing page")
    assert page_a.js(STATUS + ".hidden")
    assert page_a.js(STATUS + ".dataset.expired") is None
    assert page_a.js(STATUS + ".dataset.expiresIn") is None
    page_a.goto(server.base + "#/b/home")
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 15, "the other board")
    assert editable(page_a)


def test_a_new_link_long_before_expiry_reconnects_with_it(auth_server, page_a: Page, wire):
    # Outside the last minute a new link is not a refresh (which keeps the `sub`): the page
    # connects again with it, so a link for another person works.
    server, tokens = auth_server()
    wire(page_a)
    page_a.open_link(tokens.link(server, "cities", "editor", "ann", "1h"))
    page_a.wait(lambda: page_a.js("return document.body.dataset.access") == "editor", 5, "an editor")
    other = tokens.link(server, "cities", "viewer", "bob", "1h")
    page_a.js("location.hash = arguments[0]", "#" + other.split("#", 1)[1])
    page_a.wait(lambda: page_a.js("return window.__wire.sockets.length") == 2, 5, "a new connection")
    page_a.wait(lambda: page_a.js("return document.body.dataset.access") == "viewer", 10, "the new link's role")
    assert page_a.js("return window.__wire.sentOfType('refresh').length") == 0
    assert page_a.js("return window.__wire.sentOfType('hello').at(-1).msg.token") == other.split("?token=")[1]


# Protocol version -------------------------------------------------------------------------------


def test_hello_says_v1_and_unknown_messages_and_members_are_ignored(server, page_a: Page, wire):
    wire(page_a, defaults={"a_later_member": {"x": 1}})
    page_a.open(server, "cities")
    assert page_a.js("return window.__wire.sentOfType('hello')[0].msg.v") == 1
    assert page_a.js("return window.__wire.welcomes[0].v") == 1
    page_a.js("window.__wire.deliver({type: 'a_later_message', anything: [1, 2]})")
    page_a.js("window.__wire.deliver({type: 'peer', event: 'join', session: 's-eve', name: 'Eve', color: '#123456', mood: 'new'})")
    page_a.wait(lambda: peer_names(page_a) == ["Eve"], 5, "Eve's chip")
    col = first_list(page_a, "list")
    ids = col["items"]
    a, c = page_a.item(ids[0]), page_a.item(ids[2])
    page_a.mouse_drag(a["cx"], a["cy"], c["cx"], c["cy"] + 2, 8)
    page_a.wait_order(col["id"], ids[1:3] + [ids[0]] + ids[3:])
    page_a.wait(lambda: page_a.js("return document.body.dataset.pending") == "0", 5, "the move applied")
    assert notice(page_a) is None
    assert [e for e in page_a.driver.get_log("browser") if e["level"] == "SEVERE"] == []


def test_the_client_module_says_v1(server, page_a: Page, wire):
    wire(page_a)
    page_a.goto(f"{server.base}examples/list.html?room=cities&name=Ann")
    page_a.wait(lambda: page_a.js("return window.__wire.welcomes.length") == 1, 10, "the example's welcome")
    assert page_a.js("return window.__wire.sentOfType('hello')[0].msg.v") == 1


def test_refusal_close_codes_end_the_session_and_others_reconnect(server, page_a: Page, wire):
    wire(page_a)
    for code, reason, title in [
        (4400, "unsupported protocol version", "This page is out of date"),
        (4499, "a later refusal", "The server closed this board"),
    ]:
        page_a.open(server, "cities")
        page_a.js("window.__wire.deliverClose(arguments[0], arguments[1])", code, reason)
        page_a.wait(lambda: notice(page_a) is not None, 5, "the notice")
        assert notice(page_a) == title, code
        assert page_a.js("return document.body.classList.contains('read-only')")
        assert not share_shown(page_a)
        time.sleep(1.5)
        assert page_a.js("return window.__wire.sockets.length") == 1, f"no reconnect after {code}"
        page_a.leave()
    # A close code below 4400 that the page does not know: reconnect.
    page_a.open(server, "cities")
    page_a.js("window.__wire.deliverClose(4050, 'a later reconnect')")
    page_a.wait(lambda: page_a.js("return window.__wire.sockets.length") == 2, 5, "a reconnect after 4050")
    assert notice(page_a) is None
