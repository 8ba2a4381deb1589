"""A board of 500 items: a 20-step drag works (test), and how smooth it is (perf measurement)."""

import json

import pytest

from boards import first_list, settled
from conftest import Page

# Builds a room over a plain WebSocket from the page: one list and `count` items, paced under the
# server's default op rate limit (200/s, burst 400) and waiting for every acknowledgement.
BUILD = """
const [room, count, done] = arguments;
const ws = new WebSocket(`ws://${location.host}/ws/${room}`);
const sent = new Set(); let acked = 0; let n = 0;
const fail = (why) => { try { ws.close(); } catch (e) {} done('error: ' + why); };
function batch() {
  for (let i = 0; i < 100 && n < count; i++, n++) {
    const id = 'perf:' + (n + 2);
    sent.add(id);
    ws.send(JSON.stringify({type: 'op', id, op: {kind: 'insert', list: 'big', item: 'it' + n,
      fields: {title: 'Item ' + (n + 1), emoji: ['🍎','🍐','🍊','🍋','🍌','🍉'][n % 6]}}}));
  }
}
ws.onopen = () => ws.send(JSON.stringify({type: 'hello', room, client: 'perf', name: 'builder', color: '#333333'}));
ws.onmessage = (event) => {
  const m = JSON.parse(event.data);
  if (m.type === 'welcome') {
    ws.send(JSON.stringify({type: 'op', id: 'perf:1', op: {kind: 'createList', list: 'big', title: 'Big', layout: 'list'}}));
  } else if (m.type === 'applied' && m.id === 'perf:1') {
    batch();
  } else if (m.type === 'applied' && sent.has(m.id)) {
    sent.delete(m.id); acked++;
    if (acked === count) { ws.close(); done('ok'); }
    else if (sent.size === 0) setTimeout(batch, 600);
  } else if (m.type === 'rejected' || m.type === 'error') {
    fail(JSON.stringify(m));
  }
};
ws.onerror = () => fail('websocket error');
"""


def build_big_board(server, page_a: Page) -> dict:
    page_a.goto(server.base + "?build")
    built = page_a.driver.execute_async_script(BUILD, "big", 500)
    assert built == "ok", built
    page_a.open(server, "big")
    page_a.wait(lambda: page_a.js("return document.querySelectorAll('[data-item]').length") == 500, 15, "500 items")
    return first_list(page_a, "list", min_items=500)


FRAME = "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));"


def test_a_20_step_drag_in_a_500_item_list_moves_the_item(server, page_a: Page):
    col = build_big_board(server, page_a)
    ids = page_a.order(col["id"])
    one_drag(page_a, col["id"], ids, FRAME)
    order = page_a.order(col["id"])
    assert order[6] == ids[1] and len(order) == 500 and sorted(order) == sorted(ids)


@pytest.mark.perf
def test_measure_long_tasks_during_500_item_drags(server, page_a: Page):
    """Measurement (make bench-web): long tasks during five 20-step drags; target: none over 50 ms.

    Long tasks are wall-clock, so on a shared machine this is a benchmark, never part of `make test`.
    """
    col = build_big_board(server, page_a)
    runs = []
    for _ in range(5):
        ids = page_a.order(col["id"])
        runs.append(one_drag(page_a, col["id"], ids, FRAME))
    worst = sorted(max(run, default=0) for run in runs)
    print(json.dumps({"bench": "web-500-item-drag", "runs": len(runs), "long_tasks_ms": runs,
                      "median_worst_long_task_ms": worst[len(worst) // 2], "target_ms": 50}))


def one_drag(page_a: Page, list_id: str, ids: list, frame: str) -> list:
    page_a.js(
        "window.__long = []; window.__obs = new PerformanceObserver(list => {"
        " for (const e of list.getEntries()) window.__long.push(e.duration); });"
        "window.__obs.observe({type: 'longtask'});"
    )
    page_a.driver.execute_async_script(frame)
    a = page_a.item(ids[1])
    target = page_a.item(ids[6])  # well inside the list: no auto-scroll
    page_a.mouse("mousePressed", a["cx"], a["cy"])
    steps = 20
    for i in range(1, steps + 1):
        page_a.mouse("mouseMoved", a["cx"], a["cy"] + (target["cy"] + 2 - a["cy"]) * i / steps)
        page_a.driver.execute_async_script(frame)
    page_a.mouse("mouseReleased", target["cx"], target["cy"] + 2)
    page_a.driver.execute_async_script(frame)
    try:
        page_a.wait(lambda: page_a.order(list_id)[6] == ids[1], 5, "the move")
    except Exception:
        raise AssertionError(
            f"the dragged item did not land: first items {page_a.order(list_id)[:8]}, dragged {ids[1]} "
            f"from {a} to {target}, now at {page_a.item(ids[1])}, lifted: {page_a.lifted()}, "
            f"announcement: {page_a.announcement()!r}"
        )
    settled(page_a)
    page_a.driver.execute_async_script(frame)
    return page_a.js("window.__obs.disconnect(); return window.__long;")
