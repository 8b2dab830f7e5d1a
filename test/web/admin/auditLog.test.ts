/**
 * The audit log in the dashboard, in a real browser against the full stack: its entries newest
 * first with who, from where, what and the changes, a page at a time, filtered; and the
 * incidents screen saying who last changed an incident.
 */
import { describe, expect, it } from "@effect/vitest"

import {
  expectAccessible,
  expectFitsViewport,
  itemCard,
  openIncidentInDashboard,
  screenshot
} from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

describe("dashboard audit log", () => {
  it("lists entries newest first, a page at a time, and filters them", async () => {
    await api((client) => client.team.invite({ payload: { email: "someone@example.com", role: "viewer" } }))
    // More than a page (50) of later entries.
    for (let i = 1; i <= 50; i++) {
      await api((client) => client.components.create({ payload: { name: `Component ${i}` } }))
    }

    const page = await openScreen("audit-log")
    await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor()
    const entries = page.getByRole("list", { name: "Audit log entries" }).locator(":scope > li")
    await expect.poll(() => entries.count()).toBe(50)
    // Newest first: the browser's sign-in, then the last component.
    const created = entries.filter({ hasText: "components.create" })
    expect(await created.first().textContent()).toContain("Component 50")
    const invite = entries.filter({ hasText: "team.invite" })
    expect(await invite.count()).toBe(0)

    await page.getByRole("button", { name: "Load more" }).click()
    await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/^\d+ more entr(y|ies) loaded\.$/)
    await expect.poll(() => invite.count()).toBe(1)
    const text = await invite.textContent()
    expect(text).toContain("test suite (API key)")
    expect(text).toContain("invitation someone@example.com")
    expect(text).toContain("email: none → someone@example.com")
    expect(text).toContain("role: none → viewer")
    // The last page has no next one.
    expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0)
    await expectAccessible(page)
    await screenshot(page, "audit-log")

    // Filters: one operation; then an actor type; then a date range before anything happened.
    const filters = page.getByRole("form", { name: "Filters" })
    await filters.getByLabel("Operation").fill("team.invite")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => entries.count()).toBe(1)
    expect(await entries.first().textContent()).toContain("someone@example.com")

    await filters.getByLabel("Operation").fill("")
    await filters.getByLabel("Actor type").selectOption("user")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(async () => (await entries.allTextContents()).every((entry) => entry.includes("(user)")))
      .toBe(true)
    expect(await entries.count()).toBeGreaterThan(0)

    await filters.getByLabel("Before").fill("2001-01-01T00:00")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => page.getByRole("main").textContent()).toContain("No entries match these filters.")

    await filters.getByRole("button", { name: "Clear filters" }).click()
    await expect.poll(() => entries.count()).toBe(50)
    await page.setViewportSize({ width: 390, height: 844 })
    await expectFitsViewport(page)
    await screenshot(page, "audit-log-phone")
  })

  it("the incident's detail says who last changed it", async () => {
    await api((client) => client.components.create({ payload: { name: "Checkout" } }))
    const page = await openScreen("incidents")
    await page.getByRole("heading", { name: "Incidents", level: 1 }).waitFor()
    await openIncidentInDashboard(page, { title: "Payments fail", message: "Card payments fail.", components: [] })

    const row = itemCard(page, "Payments fail")
    await row.getByRole("button", { name: "Timeline" }).click()
    await expect.poll(() => row.textContent()).toMatch(/Last changed by ops@example\.com, \w/)

    // A change made elsewhere, by a key, shows once the incident is read again.
    const incident = (await api((client) => client.incidents.list({ query: {} }))).find((i) =>
      i.title === "Payments fail"
    )!
    await api((client) =>
      client.incidents.addUpdate({
        params: { id: incident.id },
        payload: { status: "identified", message: "The provider is down." }
      })
    )
    await page.reload()
    await row.getByRole("button", { name: "Timeline" }).click()
    await expect.poll(() => row.textContent()).toContain("Last changed by test suite (API key), ")
  })
})
