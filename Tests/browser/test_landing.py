"""The landing page, a new board at its own URL, and the name asked once."""

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
