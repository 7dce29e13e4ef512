"""The viewer in a real headless browser (Debian's Chromium driven by Playwright), as a person uses it:
from the landing page to a failed episode and why it failed in at most three clicks, stepping through
an episode, an environment's page, the comparison of runs. Every page is screenshotted, and a console
error or an uncaught exception anywhere fails the test. Offline: nothing is fetched but the viewer."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from awm.model.registry import Registry
from awm.view import create_view_app
from tests.view.conftest import Runs, serving

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() or importlib.util.find_spec("playwright") is None,
    reason="browser tests need Debian's Chromium (apt-get install chromium) and playwright (pip install playwright)",
)
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def url(registry: Registry, runs: Runs) -> Iterator[str]:
    with serving(create_view_app(registry, runs.all)) as base:
        yield base


@pytest.fixture(scope="module")
def answers_url(registry: Registry, runs: Runs) -> Iterator[str]:
    with serving(create_view_app(registry, runs.all, show_answers=True)) as base:
        yield base


@dataclass
class Tab:
    page: object
    shots: Path
    errors: list[str] = field(default_factory=list)
    clicks: int = 0

    def click(self, selector: str) -> None:
        """A person's click (counted)."""
        self.page.locator(selector).first.click()
        self.clicks += 1

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        data = path.read_bytes()
        assert data.startswith(PNG) and len(data) > 2000, name
        return path


@pytest.fixture
def tab(browser, tmp_path: Path) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    t = Tab(page, tmp_path)
    page.on("console", lambda m: t.errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: t.errors.append(f"pageerror: {e}"))
    yield t
    context.close()
    assert not t.errors, t.errors


def test_landing_page_lists_runs_and_environments(tab: Tab, url: str) -> None:
    tab.page.goto(url)
    tab.page.wait_for_selector("a.run-link")
    assert tab.page.locator("a.run-link").all_inner_texts() == ["oracle", "random", "manual"]
    assert "8 failed" in tab.page.locator("tr[data-run=random]").inner_text()
    assert "1 unreadable line" in tab.page.locator("tr[data-run=manual]").inner_text()
    assert tab.page.locator("a.env-card").inner_text().startswith("mini_shop")
    tab.shot("landing")


def test_a_failed_episode_and_why_in_three_clicks(tab: Tab, url: str, registry: Registry, runs: Runs) -> None:
    page = tab.page
    page.goto(url)
    tab.click("a.run-link:text-is('random')")
    page.wait_for_selector("table.tasks a.trial.st-failed")
    tab.shot("run")
    href = page.locator("table.tasks a.trial.st-failed").first.get_attribute("href")
    tab.click("table.tasks a.trial.st-failed")
    page.wait_for_selector("#verdict.fail ul.reasons li")
    assert tab.clicks <= 3
    assert page.locator("#verdict h2").inner_text() == "Why it failed"
    # the reasons shown are the judge's, from a replay of the recorded actions
    m = re.match(r"#/runs/random/([^/]+)/([^/]+)/(\d+)$", href or "")
    assert m, href
    expected = _reasons(registry, runs, m.group(2), int(m.group(3)))
    assert page.locator("ul.reasons li").all_inner_texts() == expected and expected
    assert page.locator("#verdict").is_visible() and page.locator("#verdict").bounding_box()["y"] < 900  # no scrolling
    tab.shot("failed-episode")


def _reasons(registry: Registry, runs: Runs, task_id: str, trial: int) -> list[str]:
    from awm.view.replay import replay
    from awm.view.runs import discover

    ep = discover([runs.random])[0].load().episode("mini_shop", task_id, trial)
    return replay(registry, ep.env, ep.trajectory).reasons


def test_the_first_failure_button(tab: Tab, url: str) -> None:
    tab.page.goto(url + "#/runs/random")
    tab.click("#first-failure")
    tab.page.wait_for_selector("#verdict.fail ul.reasons li")
    tab.click("#next-failure")
    tab.page.wait_for_selector("#verdict.fail ul.reasons li")
    assert "trial" in tab.page.locator("nav.crumbs").inner_text()


def test_stepping_through_an_episode(tab: Tab, url: str) -> None:
    page = tab.page
    page.goto(url + "#/runs/manual/mini_shop/t03_cancel_alan/0")
    page.wait_for_selector("#step-detail h3")
    reasons = page.locator("ul.reasons li").all_inner_texts()
    assert reasons == ["collateral: update products {'id': 1}", "collateral: insert orders {'id': 2}"]
    assert page.locator("details.judge table.diff tbody tr").count() == 2  # the collateral rows, as a table
    # step 1: an insert and an update, as a diff table; every reward channel
    assert page.locator("#step-detail h3").inner_text() == "Step 1 of 3: place_order"
    diff = page.locator("#step-detail table.diff tbody tr")
    assert diff.count() == 2 and "orders" in diff.nth(0).inner_text() and "stock: 3 → 2" in diff.nth(1).inner_text()
    rewards = page.locator("#step-detail table.rewards").inner_text()
    for channel in ("outcome", "progress", "progress_delta", "collateral", "flags", "checks"):
        assert channel in rewards
    assert page.locator("#step-detail .check.fails").inner_text() == "✗ order_cancelled"
    tab.shot("step-1")
    # Φ over the steps: an SVG line with a point per step (and the start)
    chart = page.locator("svg#phi-chart")
    assert chart.locator("polyline.line").count() == 1 and chart.locator("circle.pt").count() == 4
    page.click("#next-step")
    assert page.locator("#step-detail h3").inner_text() == "Step 2 of 3: set_order_status"
    assert page.locator("#step-detail .check.holds").inner_text() == "✓ order_cancelled"
    page.keyboard.press("ArrowRight")
    assert page.locator("#step-detail h3").inner_text() == "Step 3 of 3: submit_answer"
    assert page.locator("#next-step").is_disabled()
    assert "Done." in page.locator("#step-detail pre.json").first.inner_text()
    page.locator("svg#phi-chart circle.pt[data-step='1']").click()
    assert page.locator("#step-detail h3").inner_text() == "Step 1 of 3: place_order"
    assert page.locator("#step-list button.current").inner_text().startswith("1")
    tab.shot("steps")


def test_a_truncated_template_instance(tab: Tab, url: str) -> None:
    tab.page.goto(url + "#/runs/manual/mini_shop/cancel_order.s3.0/0")
    tab.page.wait_for_selector("#verdict.fail")
    assert tab.page.locator("ul.reasons li").first.inner_text().startswith("no final answer")
    assert "template cancel_order" in tab.page.locator("main").inner_text()
    tab.shot("truncated-instance")


def test_environment_page(tab: Tab, url: str) -> None:
    page = tab.page
    page.goto(url + "#/envs/mini_shop")
    page.wait_for_selector("svg#relations")
    diagram = page.locator("svg#relations")
    assert sorted(diagram.locator("g.table-box").evaluate_all("gs => gs.map(g => g.dataset.table)")) == [
        "customers",
        "order_notes",
        "orders",
        "products",
    ]
    assert diagram.locator("path.edge").count() == 3  # orders -> customers, products; order_notes -> orders
    orders = page.locator(".table-card[data-table=orders]").inner_text()
    assert "customers.id" in orders and "PK" in orders and "FK" in orders
    assert (
        page.locator(".tool").count() == 5 and page.locator(".tool[data-tool=place_order] .rw").inner_text() == "write"
    )
    assert page.locator("table.env-tasks tbody tr").count() == 3
    assert page.locator("table.env-templates tbody tr").count() == 3
    assert page.locator("details.judge-detail").count() == 0 and page.locator("#answers-hidden").is_visible()
    assert "4599" not in page.locator("#tasks").inner_text()
    # seed rows, a page at a time
    page.select_option("#rows-select", "products")
    page.wait_for_selector("#rows-table td:text-is('Oak Floor Lamp')")
    assert page.locator("#rows-table tbody tr").count() == 3 and page.locator("#rows-next").is_disabled()
    tab.shot("environment")


def test_environment_page_with_answers(tab: Tab, answers_url: str) -> None:
    page = tab.page
    page.goto(answers_url + "#/envs/mini_shop")
    page.wait_for_selector("details.judge-detail")
    assert page.locator("#answers-flag").is_visible()
    assert page.locator("table.env-tasks details.judge-detail").count() == 3
    page.locator("tr[data-task=t01_lamp_price] details.judge-detail summary").click()
    assert "4599" in page.locator("tr[data-task=t01_lamp_price]").inner_text()
    tab.shot("environment-answers")


def test_compare_runs(tab: Tab, url: str) -> None:
    page = tab.page
    page.goto(url + "#/compare")
    page.wait_for_selector("#compare-go")
    tab.click("#compare-go")
    page.wait_for_selector("table.compare-grid tbody tr")
    grid = page.locator("table.compare-grid")
    assert grid.locator("thead th").all_inner_texts()[1].startswith("oracle")
    assert grid.locator("tbody tr").count() == 4 and grid.locator("tbody tr.differ").count() == 4
    first = grid.locator("tbody tr").first.locator("td")
    assert first.nth(1).inner_text().endswith("1/1") and first.nth(2).inner_text().endswith("0/2")
    assert "manual" in grid.locator("thead").inner_text()
    tab.shot("compare")
    page.click("#only-differ")
    assert grid.locator("tbody tr").count() == 4
    tab.click("table.compare-grid tbody tr >> nth=0 >> a.trial.st-failed")
    page.wait_for_selector("#verdict.fail")


def test_unknown_run_is_shown_as_an_error(tab: Tab, url: str) -> None:
    tab.page.goto(url + "#/runs/nope")
    box = tab.page.wait_for_selector(".error-box")
    assert "unknown run" in box.inner_text() and "no run 'nope'" in box.inner_text()
    tab.shot("unknown-run")
    # the browser logs the 404 response itself (which shows that errors are caught); nothing else may fail
    assert any("404" in e for e in tab.errors), tab.errors
    tab.errors[:] = [e for e in tab.errors if "404" not in e]


def test_unreadable_lines_are_shown(tab: Tab, url: str, runs: Runs) -> None:
    tab.page.goto(url + "#/runs/manual")
    problems = tab.page.wait_for_selector("#problems")
    assert f"{runs.trajectories}:3" in problems.inner_text()
    assert tab.page.locator("table.tasks tbody tr").count() == 2
