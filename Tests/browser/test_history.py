"""The history panel: “History” shows the board as it was at each kept step (read-only), names
each step with who and when, loads older steps on demand, and “Restore this version” (editors
only) sends the difference as new ops that every page sees land. Also the client module's pure
history helpers, run in Chromium."""

from __future__ import annotations

import re

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from boards import first_list, settled
from conftest import Page, shot
from test_client_server_api import api, api_server

TIME = r", \d\d:\d\d$"


def keys(page: Page, *sequence: str) -> None:
    chain = ActionChains(page.driver)
    for k in sequence:
        chain.send_keys(k)
    chain.perform()


def title(page: Page, item: str) -> str:
    return page.js("return document.querySelector(`#board-lists [data-item='${arguments[0]}'] .item-title`).textContent", item)


def keyboard_move(page: Page, item: str, downs: int) -> None:
    """Lifts `item` with Space, moves it `downs` places down, drops it: one move op."""
    page.js("document.querySelector(`#board-lists [data-item='${arguments[0]}']`).focus()", item)
    keys(page, Keys.SPACE, *([Keys.ARROW_DOWN] * downs), Keys.SPACE)
    page.wait(lambda: "Dropped" in page.announcement(), 3, "the drop")


def open_history(page: Page) -> None:
    page.js("document.getElementById('history-button').click()")
    page.wait(lambda: page.js("return document.getElementById('history-dialog').open"), 5, "the history dialog")
    page.wait(lambda: page.js("return !document.getElementById('history-range').disabled"), 10, "the history to load")
    page.wait(lambda: page.js("return document.activeElement && document.activeElement.id") == "history-range", 5, "the scrubber to have focus")


def step_text(page: Page) -> str:
    return page.js("return document.getElementById('history-step').textContent")


def step_seq(page: Page) -> int:
    return int(page.js("return document.getElementById('history-step').dataset.seq"))


def history_order(page: Page, list_id: str) -> list[str] | None:
    return page.js(
        "const u = document.querySelector(`#history-board [data-list='${arguments[0]}']`);"
        "return u ? [...u.children].map(c => c.dataset.item) : null;",
        list_id,
    )


def wait_history_order(page: Page, list_id: str, expected: list[str]) -> None:
    try:
        page.wait(lambda: history_order(page, list_id) == expected, 5, f"the history board's {list_id} == {expected}")
    except Exception:
        raise AssertionError(f"the history board shows {history_order(page, list_id)}, expected {expected}")


def restore_shown(page: Page) -> bool:
    return page.js("const b = document.getElementById('history-restore'); return !b.hidden && b.offsetParent !== null")


def test_history_scrubs_back_with_the_keyboard_names_each_step_and_restores_a_version(server, page_a: Page, page_b: Page):
    page_a.open(server, "cities")
    page_b.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    # A makes two moves: the first item two places down, then the (new) first item one down.
    keyboard_move(page_a, ids[0], 2)
    after_first = [ids[1], ids[2], ids[0]] + ids[3:]
    page_a.wait_order(col["id"], after_first)
    settled(page_a)
    keyboard_move(page_a, ids[1], 1)
    after_second = [ids[2], ids[1], ids[0]] + ids[3:]
    page_a.wait_order(col["id"], after_second)
    settled(page_a)
    page_b.wait_order(col["id"], after_second)

    open_history(page_b)
    # The newest step is A's second move, named with who and when; the panel shows the board then.
    text = step_text(page_b)
    assert re.fullmatch(rf"Ann moved {re.escape(title(page_b, ids[1]))} before {re.escape(title(page_b, ids[0]))}{TIME}", text), text
    assert page_b.js("return document.getElementById('history-range').getAttribute('aria-valuetext')").startswith(text)
    wait_history_order(page_b, col["id"], after_second)
    newest = step_seq(page_b)
    shot(page_b, "history-newest")

    # ← one step back: A's first move, and the board as it was after it.
    keys(page_b, Keys.ARROW_LEFT)
    page_b.wait(lambda: step_seq(page_b) == newest - 1, 5, "the step before")
    text = step_text(page_b)
    assert re.fullmatch(rf"Ann moved {re.escape(title(page_b, ids[0]))} before {re.escape(title(page_b, ids[3]))}{TIME}", text), text
    wait_history_order(page_b, col["id"], after_first)
    # ← again: the last step of the demo seed (no actor, no time: “Someone”), the board before A's moves.
    keys(page_b, Keys.ARROW_LEFT)
    page_b.wait(lambda: step_seq(page_b) == newest - 2, 5, "the seed's last step")
    assert step_text(page_b).startswith("Someone added "), step_text(page_b)
    wait_history_order(page_b, col["id"], ids)
    # → forward, End to the newest, Home to the oldest (the seed creates the list: no items yet).
    keys(page_b, Keys.ARROW_RIGHT)
    page_b.wait(lambda: step_seq(page_b) == newest - 1, 5, "→")
    keys(page_b, Keys.END)
    page_b.wait(lambda: step_seq(page_b) == newest, 5, "End")
    keys(page_b, Keys.HOME)
    page_b.wait(lambda: step_seq(page_b) == 1, 5, "Home")
    assert step_text(page_b).startswith("Someone added the list "), step_text(page_b)
    wait_history_order(page_b, col["id"], [])
    # The live board did not change while B looked.
    assert page_b.order(col["id"]) == after_second == page_a.order(col["id"])

    # Back to the step before A's moves, and restore it: both pages show it, through new ops.
    for _ in range(newest - 3):
        keys(page_b, Keys.ARROW_RIGHT)
    page_b.wait(lambda: step_seq(page_b) == newest - 2, 5, "the step before A's moves")
    assert restore_shown(page_b)
    page_b.js("document.getElementById('history-restore').click()")
    page_b.wait(lambda: not page_b.js("return document.getElementById('history-dialog').open"), 5, "the panel to close")
    page_b.wait_order(col["id"], ids)
    page_a.wait_order(col["id"], ids)
    page_b.wait(lambda: "Restored the board as it was" in page_b.announcement(), 3, "the announcement")
    settled(page_b)
    assert page_b.js("return document.activeElement.id") == "history-button", "focus returns to History"
    # The restore is history too: B's ops are the newest steps.
    open_history(page_b)
    assert step_seq(page_b) > newest and step_text(page_b).startswith("Bob moved "), step_text(page_b)
    wait_history_order(page_b, col["id"], ids)
    keys(page_b, Keys.ESCAPE)
    page_b.wait(lambda: not page_b.js("return document.getElementById('history-dialog').open"), 5, "Escape to close")


def test_older_steps_load_on_demand(server, page_a: Page):
    # numbers: 101 seed ops (the list, then 100 items), more than a page of 50.
    page_a.open(server, "numbers")
    open_history(page_a)
    assert page_a.js("return document.getElementById('history-dialog').dataset.steps") == "50"
    assert page_a.js("return !document.getElementById('history-older').hidden"), "Load older is offered"
    newest = step_seq(page_a)
    assert newest == 101 and step_text(page_a) == "Someone added 100 to Numbers", step_text(page_a)
    # Home reaches the oldest step loaded, which asks for the page before it; the step stays.
    keys(page_a, Keys.HOME)
    page_a.wait(lambda: page_a.js("return document.getElementById('history-dialog').dataset.steps") == "100", 10, "the second page")
    assert step_seq(page_a) == 52
    keys(page_a, Keys.PAGE_DOWN)
    page_a.wait(lambda: step_seq(page_a) == 42, 5, "Page Down: ten steps older")
    keys(page_a, Keys.HOME)
    page_a.wait(lambda: page_a.js("return document.getElementById('history-dialog').dataset.steps") == "101", 10, "the last page")
    keys(page_a, Keys.HOME)
    page_a.wait(lambda: step_seq(page_a) == 1, 5, "the first step")
    assert step_text(page_a) == "Someone added the list Numbers"
    assert page_a.js("return document.getElementById('history-older').hidden"), "nothing older to load"
    keys(page_a, Keys.PAGE_UP, Keys.ARROW_UP)
    page_a.wait(lambda: step_seq(page_a) == 12, 5, "Page Up and ↑")
    col = page_a.js("return document.querySelector('#history-board [data-list]').dataset.list")
    assert len(history_order(page_a, col)) == 11


def test_a_viewer_scrubs_the_history_but_gets_no_restore(auth_server, page_a: Page, page_b: Page):
    server, tokens = auth_server()
    page_a.open_link(tokens.link(server, "cities", "editor", "ann"))
    page_b.open_link(tokens.link(server, "cities", "viewer", "bob"))
    col = first_list(page_a, "list")
    ids = col["items"]
    keyboard_move(page_a, ids[0], 1)
    page_b.wait_order(col["id"], [ids[1], ids[0]] + ids[2:])
    settled(page_a)
    open_history(page_b)
    assert re.fullmatch(rf"Ann moved {re.escape(title(page_b, ids[0]))} before {re.escape(title(page_b, ids[2]))}{TIME}", step_text(page_b)), step_text(page_b)
    assert not restore_shown(page_b), "a viewer gets no Restore"
    assert page_b.js("return document.getElementById('history-restore').hidden") is True
    keys(page_b, Keys.ARROW_LEFT)
    wait_history_order(page_b, col["id"], ids)
    # Even clicked anyway, nothing is sent: the page says why and stays on the step.
    page_b.js("document.getElementById('history-restore').click()")
    page_b.wait(lambda: page_b.announcement() == "View only: this board cannot be changed from this link.", 3, "the refusal")
    assert page_b.js("return document.body.dataset.pending") in ("0", None)
    assert page_b.js("return document.getElementById('history-dialog').open")
    assert page_b.order(col["id"]) == [ids[1], ids[0]] + ids[2:]
    shot(page_b, "history-viewer")
    keys(page_b, Keys.ESCAPE)
    # The editor has it.
    open_history(page_a)
    assert restore_shown(page_a)


def test_a_write_through_the_api_is_named_as_the_api(make_server, page_a: Page):
    server = api_server(make_server)
    status, answer = api(server, "POST", "/api/v1/boards/cities/ops", {"ops": [
        {"id": "sync-1", "op": {"kind": "insert", "list": "cities", "item": "soup", "fields": {"title": "Soup"}}},
        {"id": "sync-2", "op": {"kind": "move", "item": "soup", "list": "cities"}},
        {"id": "sync-3", "op": {"kind": "delete", "item": "soup"}},
    ]})
    assert status == 200 and [r["type"] for r in answer["results"]] == ["applied"] * 3, answer
    page_a.open(server, "cities")
    open_history(page_a)
    assert re.fullmatch(rf"API deleted Soup{TIME}", step_text(page_a)), step_text(page_a)
    keys(page_a, Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    page_a.wait(lambda: re.fullmatch(rf"API added Soup to Cities{TIME}", step_text(page_a)) is not None, 5, "the insert's name")
    assert "soup" in history_order(page_a, "cities")
    # Restoring the version with Soup brings it back (a restore of the deleted item, not a copy).
    page_a.js("document.getElementById('history-restore').click()")
    page_a.wait(lambda: "soup" in page_a.order("cities"), 5, "Soup back on the live board")
    settled(page_a)


RESTORE_SCRIPT = """
const done = arguments[arguments.length - 1];
import("/js/reorder-client/index.js").then(({ restoreIntents, boardAt, HistoryTimeline }) => {
  const board = (lists, assignments = []) => ({
    lists: lists.map(([id, items]) => ({ id, title: id.toUpperCase(), layout: "list", items: items.slice() })),
    items: new Map(lists.flatMap(([, items]) => items.map((i) => [i, { id: i, fields: { title: i } }]))),
    assignments: new Map(assignments.map((a) => [a.id, a])), totals: new Map(), graveyard: new Map(),
  });
  let n = 0;
  const newId = (kind, was) => `${kind}-again-${was}-${++n}`;
  const out = {};
  out.same = restoreIntents(board([["a", ["p", "q"]]]), board([["a", ["p", "q"]]]), { newId });
  out.oneMove = restoreIntents(board([["a", ["p", "q", "r", "s"]]]), board([["a", ["q", "r", "p", "s"]]]), { newId });
  out.across = restoreIntents(board([["a", ["p", "q"]], ["b", ["r"]]]), board([["a", ["q"]], ["b", ["p", "r"]]]), { newId });
  const deleted = board([["a", ["p", "r"]]]);
  deleted.graveyard.set("q", { list: "a", after: "p", index: 1, fields: { title: "q" }, assignments: [] });
  out.restored = restoreIntents(deleted, board([["a", ["p", "q", "r"]]]), { newId });
  out.listGone = restoreIntents(board([["a", ["p"]]]), board([["a", ["p"]], ["b", ["x"]]]), { newId });
  out.extraList = restoreIntents(board([["a", ["p"]], ["c", ["z"]]]), board([["a", ["p", "z"]]]), { newId });
  out.assignments = restoreIntents(
    board([["f", ["pizza", "pasta"]], ["people", ["john"]]], [{ id: "_a1", item: "pizza", target: "john" }]),
    board([["f", ["pizza", "pasta"]], ["people", ["john"]]], [{ id: "_a7", item: "pasta", target: "john" }]), { newId });
  const page = { next: null, base: { seq: 0, board: board([["a", []]]) }, entries: [
    { seq: 2, at: null, actor: null, op: { kind: "move", item: "q", list: "a", index: 1, after: "p" } },
    { seq: 1, at: null, actor: null, op: { kind: "insert", item: "q", list: "a", index: 0, after: null, fields: { title: "q" } } },
  ] };
  page.base.board.lists[0].items.push("p");
  page.base.board.items.set("p", { id: "p", fields: { title: "p" } });
  out.steps = [0, 1, 2].map((s) => boardAt(page, s).lists[0].items);
  const timeline = new HistoryTimeline();
  out.added = timeline.add(page);
  out.timeline = [-1, 0, 1].map((i) => timeline.boardAt(i).lists[0].items);
  done(out);
}, (e) => done({ error: String(e) }));
"""


def test_restore_intents_and_replay_are_minimal_and_deterministic(server, page_a: Page):
    page_a.goto(server.base + "?setup")
    out = page_a.driver.execute_async_script(RESTORE_SCRIPT)
    assert "error" not in out, out
    assert out["same"] == [], "nothing to do when the boards agree"
    assert out["oneMove"] == [{"kind": "move", "item": "p", "list": "a", "after": "r"}]
    assert out["across"] == [{"kind": "move", "item": "p", "list": "b", "before": "r"}]
    assert out["restored"] == [{"kind": "restore", "item": "q"}], "a known grave is restored in place"
    assert out["listGone"] == [
        {"kind": "createList", "list": "list-again-b-1", "title": "B", "layout": "list", "after": "a"},
        {"kind": "insert", "list": "list-again-b-1", "item": "item-again-x-2", "fields": {"title": "x"}},
    ], "a deleted list comes back under a new id, its items as new items"
    assert out["extraList"] == [
        {"kind": "move", "item": "z", "list": "a", "after": "p"},
        {"kind": "deleteList", "list": "c"},
    ], "an item the version keeps leaves a list before the list goes"
    assert out["assignments"] == [
        {"kind": "unassign", "assignment": "_a1"},
        {"kind": "assign", "item": "pasta", "target": "john"},
    ]
    assert out["steps"] == [["p"], ["q", "p"], ["p", "q"]]
    assert out["added"] == 2 and out["timeline"] == out["steps"]


HISTORY_SCRIPT = """
const done = arguments[arguments.length - 1];
const client = window.reorder.client;
let range = null;
try { client.history({ limit: 500 }); } catch (e) { range = e.name; }
Promise.all([client.history({ limit: 3 }), client.history({ before: 10, limit: 2 }), client.history({ before: 1 })]).then(
  ([newest, older, none]) => done({
    newest: newest.entries.map((e) => e.seq), newestNext: newest.next, newestBase: newest.base.seq,
    older: older.entries.map((e) => e.seq), olderNext: older.next, olderBase: older.base.seq,
    olderItems: older.base.board.lists[0].items.length, none: none.entries.length, noneNext: none.next, range,
  }),
  (e) => done({ error: String(e) }));
"""


def test_client_history_pages_come_back_in_request_order(server, page_a: Page):
    page_a.open(server, "numbers", debug=True)
    out = page_a.driver.execute_async_script(HISTORY_SCRIPT)
    assert out == {
        "newest": [101, 100, 99], "newestNext": 99, "newestBase": 98,
        "older": [9, 8], "olderNext": 8, "olderBase": 7, "olderItems": 6,
        "none": 0, "noneNext": None, "range": "RangeError",
    }, out
