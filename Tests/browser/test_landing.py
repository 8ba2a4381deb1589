"""The landing page, a new board at its own URL, and the name asked once."""

from boards import add_list, settled
from conftest import Page


def test_landing_new_board_and_name_asked_once(server, page_a: Page):
    d = page_a.driver
    d.get(server.base + "?fresh")
    d.execute_script("localStorage.clear()")
    d.get(server.base)
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
    d.get(server.base + "?again")
    d.get(url)
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 10, "the board again")
    assert not page_a.js("return document.getElementById('identity-dialog').open")
    # A demo board from the landing page.
    d.get(server.base + "?landing")
    page_a.js("document.querySelector('[data-board=cities]').click()")
    page_a.wait(lambda: page_a.js("return document.querySelectorAll('[data-item]').length") > 3, 10, "the cities board")
    assert page_a.js("return location.hash") == "#/b/cities"
