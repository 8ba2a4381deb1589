"""The landing page, a new board at its own URL, and the name asked once."""

from boards import add_list, settled
from conftest import Page


def test_landing_new_board_and_name_asked_once(server, page_a: Page):
    d = page_a.driver
    page_a.goto(server.base + "?fresh")
    d.execute_script("localStorage.clear()")
    page_a.goto(server.base)
    page_a.wait(lambda: page_a.js("return !document.getElementById('landing').hidden"), 5, "the landing page")
    boards = page_a.js("return [...document.querySelectorAll('[data-board]')].map(a => a.dataset.board)")
    assert boards == ["food", "home", "numbers", "cities"]
    page_a.js("document.getElementById('new-board-button').click()")
    page_a.wait(lambda: page_a.js("return document.getElementById('identity-dialog').open"), 5, "the name dialog")
    page_a.js(
        "document.getElementById('name-input').value = 'Dora';"
        "document.querySelectorAll('#color-swatches input')[2].checked = true;"
        "document.getElementById('identity-form').requestSubmit();"
    )
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 10, "the new board")
    url = d.current_url
    assert "#/b/" in url
    assert page_a.js("return document.getElementById('board-empty').hidden") is False
    assert "Dora" in page_a.js("return document.getElementById('peers').textContent")
    # Build it up: a list, then an item through the "Add item" dialog.
    list_id = add_list(page_a, "Groceries", "list")
    page_a.js("document.getElementById('add-item-button').click()")
    page_a.js(
        "document.getElementById('add-item-name').value = 'Milk';"
        "document.getElementById('add-item-emoji').value = '🥛';"
        "document.getElementById('add-item-form').requestSubmit();"
    )
    page_a.wait(lambda: len(page_a.order(list_id) or []) == 1, 5, "the new item")
    settled(page_a)
    assert page_a.js("return document.getElementById('board-empty').hidden") is True
    # The name can be changed later; the board rejoins under the new name.
    page_a.js("document.getElementById('identity-button').click()")
    page_a.wait(lambda: page_a.js("return document.getElementById('identity-dialog').open"), 5, "the name dialog")
    page_a.js("document.getElementById('name-input').value = 'Dora B'; document.getElementById('identity-form').requestSubmit();")
    page_a.wait(lambda: "Dora B" in page_a.js("return document.getElementById('peers').textContent"), 5, "the new name")
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 10, "the rejoin")
    assert page_a.order(list_id) and len(page_a.order(list_id)) == 1
    # The board's URL is shareable and the name is remembered: no dialog the second time.
    page_a.goto(server.base + "?again")
    page_a.goto(url)
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 10, "the board again")
    assert not page_a.js("return document.getElementById('identity-dialog').open")
    # A demo board from the landing page.
    page_a.goto(server.base + "?landing")
    page_a.js("document.querySelector('[data-board=cities]').click()")
    page_a.wait(lambda: page_a.js("return document.querySelectorAll('[data-item]').length") > 3, 10, "the cities board")
    assert page_a.js("return location.hash") == "#/b/cities"


def severe(page: Page) -> list[dict]:
    return [e for e in page.driver.get_log("browser") if e.get("level") == "SEVERE"]


def test_landing_page_logs_no_console_errors(server, page_a: Page):
    page_a.driver.get_log("browser")  # drops what earlier tests logged
    page_a.goto(server.base + "?clean")
    page_a.wait(lambda: page_a.js("return !document.getElementById('landing').hidden"), 5, "the landing page")
    # Typing a name exercises the input's pattern too.
    page_a.js("const i = document.getElementById('new-board-name'); i.value = 'team.plan-2_x'; i.checkValidity();")
    assert page_a.js("return document.getElementById('new-board-name').validity.valid") is True
    assert severe(page_a) == []


def message(page: Page) -> str:
    return page.js(
        "const e = document.getElementById('landing-error'); return e && !e.hidden ? e.textContent : '';"
    )


def test_a_bad_board_link_shows_a_clear_message_on_the_landing_page(server, page_a: Page):
    d = page_a.driver
    page_a.goto(server.base + "?setup")
    d.execute_script("localStorage.setItem('reorder.name', 'Ann'); localStorage.setItem('reorder.color', '#1971c2');")
    d.get_log("browser")
    for fragment in ("#/b/%E0%A4%A", "#/b/bad%20room", "#/b/" + "x" * 70):
        page_a.goto(server.base + "?bad" + fragment)
        page_a.wait(lambda: "is not a valid board name" in message(page_a), 5, f"the message for {fragment}")
        text = message(page_a)
        assert "1–64 letters, digits, - _ ." in text, text
        assert page_a.js("return !document.getElementById('landing').hidden") is True
        assert page_a.js("return document.getElementById('board').hidden") is True
    assert severe(page_a) == [], "no uncaught errors (e.g. URIError)"
    # A good link afterwards opens the board and the message goes.
    page_a.goto(server.base + "?good#/b/cities")
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 10, "the board")
    assert message(page_a) == ""
    # So does a dotted name of 64 characters, the longest allowed.
    name = "a." + "b" * 62
    page_a.goto(server.base + "?long#/b/" + name)
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 10, "the 64-character board")
    assert page_a.js("return document.getElementById('board-title').textContent") == name
