/**
 * Component groups on the public status page in a real browser: each public group in order with
 * the worst status of its public components and its bar, its components behind a `details` that
 * opens without script; ungrouped components as before; a component created a moment ago shows
 * today's uptime and the days before it as such.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Locator, Page } from "playwright-core"

import { expectAccessible, launchBrowser, screenshot } from "../support/Browser.js"
import { useBrowserStack } from "../support/BrowserStack.js"
import { barCellDetail } from "../support/UptimeDays.js"

const artifacts = "test/artifacts/status-page"
const suite = useBrowserStack()
const { api } = suite

/** Reloads the public page until it shows `text` (the snapshot is rebuilt just after a change). */
const publicPageShowing = async (page: Page, text: string) => {
  await expect.poll(async () => {
    await page.goto(`${suite.stack.baseUrl}/`)
    return (await page.locator("main").textContent())?.includes(text)
  }, { timeout: 5000 }).toBe(true)
}

/** What the last cell of `bar` (today) says, once its day label is checked. */
const today = async (bar: Locator) =>
  barCellDetail(await bar.getByRole("listitem").last().textContent(), 89, suite.stack.startedAt)

describe("component groups on the public page", () => {
  it("shows groups in order with their worst status and bar, expandable to their components", async () => {
    const platform = await api((client) => client.componentGroups.create({ payload: { name: "Platform" } }))
    const internal = await api((client) =>
      client.componentGroups.create({ payload: { name: "Internal", isPublic: false } })
    )
    const edge = await api((client) => client.componentGroups.create({ payload: { name: "Edge", displayOrder: -1 } }))
    await api((client) => client.components.create({ payload: { name: "API", groupId: platform.id } }))
    await api((client) =>
      client.components.create({ payload: { name: "Jobs", groupId: platform.id, status: "partial_outage" } })
    )
    // Private: neither shown nor counted in its group's status.
    await api((client) =>
      client.components.create({
        payload: { name: "Billing backend", groupId: platform.id, status: "major_outage", isPublic: false }
      })
    )
    await api((client) => client.components.create({ payload: { name: "CDN", groupId: edge.id } }))
    await api((client) => client.components.create({ payload: { name: "Wiki", groupId: internal.id } }))
    await api((client) => client.components.create({ payload: { name: "Website" } }))

    const page = await suite.browser.context.newPage()
    await publicPageShowing(page, "Website")
    const components = page.getByRole("region", { name: "Components" })
    // Groups first, in their order, then the ungrouped components (a private group's among them).
    expect(await components.getByRole("heading", { level: 3 }).allTextContents()).toEqual([
      "Edge",
      "Platform",
      "Wiki",
      "Website"
    ])
    const group = components.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Platform" }) })
      .first()
    expect(await group.locator(".row .st").first().textContent()).toContain("Partial outage")
    const groupBar = group.getByRole("list", {
      name: "Daily uptime of Platform, the lowest of its components each day, oldest first"
    })
    expect(await groupBar.getByRole("listitem").count()).toBe(90)
    // Created a moment ago: today counts (the worst of its components, Jobs at 30 % down) and the days before are told apart.
    expect(await today(groupBar)).toBe("70 % uptime (its lowest component)")
    expect(await groupBar.getByRole("listitem").first().textContent()).toMatch(
      /: before its components existed$/
    )

    // Collapsed: its components are there but hidden until the summary is pressed.
    const api_ = group.getByRole("heading", { name: "API", level: 4 })
    expect(await api_.isVisible()).toBe(false)
    await expectAccessible(page)
    await group.getByText("2 components").click()
    await api_.waitFor()
    expect(await group.getByRole("heading", { name: "Jobs", level: 4 }).isVisible()).toBe(true)
    expect(await page.getByText("Billing backend").count()).toBe(0)
    const apiBar = group.getByRole("list", { name: "Daily uptime of API, oldest first" })
    expect(await today(apiBar)).toBe("100 % uptime")
    expect(await apiBar.getByRole("listitem").first().textContent()).toMatch(/: before this component existed$/)
    expect(await group.textContent()).toContain("100 % uptime since")
    await expectAccessible(page)
    await screenshot(page, "groups", artifacts)

    // The ungrouped component as before, with the same distinction of days.
    const website = components.getByRole("list", { name: "Daily uptime of Website, oldest first" })
    expect(await today(website)).not.toContain("no data")
    await page.close()
  })

  it("opens a group without JavaScript, and drops a group whose components are all private", async () => {
    const tools = await api((client) => client.componentGroups.create({ payload: { name: "Tools" } }))
    const hidden = await api((client) => client.componentGroups.create({ payload: { name: "Back office" } }))
    await api((client) => client.components.create({ payload: { name: "Status CLI", groupId: tools.id } }))
    await api((client) =>
      client.components.create({ payload: { name: "Ledger", groupId: hidden.id, isPublic: false } })
    )
    const noScript = await launchBrowser({ javaScriptEnabled: false })
    try {
      const page = await noScript.context.newPage()
      await publicPageShowing(page, "Tools")
      expect(await page.getByRole("heading", { name: "Back office" }).count()).toBe(0)
      const group = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Tools" }) }).first()
      await group.getByText("1 component").click()
      await group.getByRole("heading", { name: "Status CLI", level: 4 }).waitFor()
      expect(noScript.pageErrors).toEqual([])
    } finally {
      await noScript.close()
    }
  })
})
