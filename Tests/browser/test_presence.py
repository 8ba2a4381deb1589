"""Presence as the server states it: drag frames paced at its interval; who is online in large rooms."""

from boards import first_list
from conftest import Page, shot


# Sweeps a held mouse drag up and down between y0 and y1: `count` pointer moves, one every 4 ms or
# so, dispatched in the page (the mouse's pointerId is 1), so that many moves fall within every
# presence interval however slowly the test driver's own commands run.
SWEEP = """
const [x, y0, y1, count, done] = arguments;
let i = 0;
const step = () => {
  const t = (i % 40) / 20, y = y0 + (y1 - y0) * (t <= 1 ? t : 2 - t);
  document.dispatchEvent(new PointerEvent("pointermove", {bubbles: true, pointerId: 1, pointerType: "mouse",
    isPrimary: true, buttons: 1, clientX: x, clientY: y}));
  if (++i < count) setTimeout(step, 4); else done(i);
};
step();
"""


def drag_with(page: Page, moves: int) -> int:
    """Lifts the first item of the first list (real input), sweeps it over the next three items
    with `moves` pointer moves, then drops it where it started. Returns the moves made."""
    col = first_list(page, "list", min_items=4)
    ids = col["items"]
    a, d = page.item(ids[0]), page.item(ids[3])
    x, y0, y1 = a["cx"], a["cy"], d["cy"]
    page.mouse("mousePressed", x, y0)
    page.mouse_path(x, y0, x + 2, y0 + 8, 2)
    page.wait(page.lifted, 3, "the lift")
    made = page.driver.execute_async_script(SWEEP, x + 2, y0, y1, moves)
    page.mouse("mouseMoved", x, y0)
    page.mouse("mouseReleased", x, y0)
    page.wait(lambda: not page.lifted(), 3, "the drop")
    return made


def drag_frames(page: Page) -> list[dict]:
    """Every `drag` frame the page sent, with the time it was sent (ms, the page's clock), once the
    drop's `end` (which waits for its turn like every frame) has gone out."""
    script = "return window.__wire.sentOfType('drag').map(s => ({t: s.t, phase: s.msg.phase}))"
    page.wait(lambda: (page.js(script) or [{}])[-1].get("phase") == "end", 5, "the drop's end frame")
    return page.js(script)


def assert_paced(frames: list[dict], interval: float, moves: int) -> None:
    phases = [f["phase"] for f in frames]
    assert phases[0] == "start" and phases[-1] == "end", phases
    # The sweep lasted many intervals, so pacing shaped what went out: many frames, far fewer than
    # the pointer moves (a page that sent one per move, or paced at 33 ms, fails these checks).
    assert phases.count("move") >= 5, phases
    assert len(frames) < moves / 2, (len(frames), moves)
    gaps = [b["t"] - a["t"] for a, b in zip(frames, frames[1:])]
    short = [round(g, 1) for g in gaps if g < interval]
    assert not short, f"frames closer than {interval} ms: {short} (all gaps {[round(g) for g in gaps]})"


def test_drag_frames_follow_the_interval_the_welcome_states_and_its_changes(make_server, page_a: Page, wire):
    server = make_server("--presence-hz", "10", "--presence-max-hz", "10")
    # A server that does not state its interval yet gets it added to its welcome, as one pacing
    # at 10 Hz states it; a server that does state it is followed as it is.
    wire(page_a, defaults={"presence_interval_ms": 100})
    page_a.open(server, "cities")
    welcome = page_a.js("return window.__wire.welcomes[window.__wire.welcomes.length - 1]")
    assert welcome["presence_interval_ms"] == 100
    moves = drag_with(page_a, 300)
    assert_paced(drag_frames(page_a), 100, moves)

    # The room's interval changes: a `peers` frame says so, and the page follows the latest value;
    # a later `peers` frame without the member keeps it.
    page_a.js("window.__wire.sent.length = 0")
    page_a.js("window.__wire.deliver({type: 'peers', joined: [], left: [], count: 0, presence_interval_ms: 250})")
    page_a.js("window.__wire.deliver({type: 'peers', joined: [], left: [], count: 0})")
    moves = drag_with(page_a, 400)
    assert_paced(drag_frames(page_a), 250, moves)


def test_without_a_stated_interval_drag_frames_keep_the_default_of_33_ms(server, page_a: Page, wire):
    wire(page_a, drops=["presence_interval_ms"])
    page_a.open(server, "cities")
    assert "presence_interval_ms" not in page_a.js("return window.__wire.welcomes[window.__wire.welcomes.length - 1]")
    moves = drag_with(page_a, 200)
    assert_paced(drag_frames(page_a), 33, moves)


def peers_state(page: Page) -> dict:
    return page.js(
        "const u = document.getElementById('peers'); const more = u.querySelector('[data-peer-more]');"
        "return {known: [...u.querySelectorAll('[data-peer]')].map(e => [e.dataset.peer, e.textContent]),"
        " more: more ? {n: Number(more.dataset.peerMore), text: more.textContent, label: more.getAttribute('aria-label')} : null,"
        " label: u.getAttribute('aria-label')};"
    )


def test_peers_frames_add_and_remove_chips_and_show_the_total(server, page_a: Page, wire):
    # A welcome of a large room: the peers it lists are bounded, `peer_count` is the total.
    wire(page_a, overrides={"peers": [{"session": "s-w1", "name": "Wes", "color": "#2b8a3e"}], "peer_count": 40})
    page_a.open(server, "cities")
    page_a.wait(lambda: peers_state(page_a)["more"] is not None, 5, "the +N more chip")
    state = peers_state(page_a)
    assert state["known"] == [["s-w1", "Wes"]]
    assert state["more"] == {"n": 39, "text": "+39 more", "label": "39 more, 41 online"}
    assert state["label"] == "41 online"

    deliver = "window.__wire.deliver(arguments[0])"
    page_a.js(deliver, {
        "type": "peers",
        "joined": [{"session": "s-x1", "name": "Xena", "color": "#e8590c"}, {"session": "s-x2", "name": "Yuri", "color": "#1971c2"}],
        "left": ["s-w1"],
        "count": 250,
    })
    state = peers_state(page_a)
    assert state["known"] == [["s-x1", "Xena"], ["s-x2", "Yuri"]]
    assert state["more"]["n"] == 248 and state["more"]["label"] == "248 more, 251 online"
    assert state["label"] == "251 online"
    shot(page_a, "peers-more")

    # A peer beyond the bound becomes known when it drags (its drag carries name and colour).
    item = first_list(page_a, "list")["items"][0]
    page_a.js(deliver, {
        "type": "drags",
        "updates": [{"session": "s-x3", "name": "Zoe", "color": "#c2255c", "phase": "start", "item": item, "list": None, "index": 0}],
    })
    state = peers_state(page_a)
    assert [s for s, _ in state["known"]] == ["s-x1", "s-x2", "s-x3"]
    assert state["more"]["n"] == 247 and state["label"] == "251 online"
    assert page_a.js("return !!document.querySelector('[data-ghost=\"s-x3\"]')")

    # Leaving removes the chip and the ghost; a count that everyone known covers needs no chip.
    page_a.js(deliver, {"type": "peers", "joined": [], "left": ["s-x3", "s-x1"], "count": 1})
    state = peers_state(page_a)
    assert state["known"] == [["s-x2", "Yuri"]]
    assert state["more"] is None and state["label"] == "2 online"
    assert not page_a.js("return !!document.querySelector('[data-ghost=\"s-x3\"]')")

    # The notices of small rooms still work beside them, and keep the stated count exact.
    page_a.js(deliver, {"type": "peer", "event": "join", "session": "s-y1", "name": "Yves", "color": "#2b8a3e"})
    state = peers_state(page_a)
    assert [s for s, _ in state["known"]] == ["s-x2", "s-y1"] and state["label"] == "3 online" and state["more"] is None
    page_a.js(deliver, {"type": "peer", "event": "leave", "session": "s-x2", "name": "Yuri", "color": "#1971c2"})
    state = peers_state(page_a)
    assert [s for s, _ in state["known"]] == ["s-y1"] and state["label"] == "2 online" and state["more"] is None


def test_a_list_shows_an_avatar_stack_of_who_looks_at_it(server, fresh_page, page_b: Page):
    """A's pointer over a list sets A's presence state to that list; B sees A's avatar in that
    list's title (and in no other), and it goes when A's browser closes."""
    page_a = fresh_page("Ann", "#1971c2")
    page_a.open(server, "cities")
    page_b.open(server, "cities")
    col = first_list(page_a, "list")
    item = page_a.item(col["items"][0])
    page_b.wait(lambda: page_b.js("return document.querySelectorAll('[data-peer]').length") == 1, 5, "B to see A online")
    page_a.mouse("mouseMoved", item["cx"], item["cy"])
    stack = (
        "const s = document.querySelector(`[data-list-section='${arguments[0]}'] .list-viewers`);"
        " return s && !s.hidden ? [...s.querySelectorAll('.list-viewer')].map(a => a.title) : [];"
    )
    page_b.wait(lambda: len(page_b.js(stack, col["id"])) == 1, 5, "A's avatar on the list in B")
    assert "Ann" in page_b.js(stack, col["id"])[0]
    assert page_b.js("return document.querySelectorAll('.list-viewers:not([hidden]) .list-viewer').length") == 1
    shot(page_b, "list-viewers")
    page_a.close_browser()
    page_b.wait(lambda: page_b.js(stack, col["id"]) == [], 5, "A's avatar to go when A leaves")
