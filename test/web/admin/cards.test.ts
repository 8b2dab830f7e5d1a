/**
 * The incidents and the maintenance windows as cards, phone first, in a real browser against the
 * full stack: at 390 px a card keeps its title whole (a table's first column squeezed it to a
 * word), reads title, status, facts, actions, then what an action opened, and its actions are at
 * least 44 px tall; at 320 px nothing scrolls sideways, a form opened in a card included; axe-core
 * finds nothing serious at 390 and 1280 px, light and dark.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { Locator, Page } from "playwright-core"

import { expectAccessible, expectFitsViewport, itemCard, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

const longTitle = "Card payments fail for customers paying in euros through the new checkout"

const box = async (locator: Locator) => {
  const found = await locator.boundingBox()
  if (found === null) throw new Error("not rendered")
  return found
}

/** Every button's height in the card: each must be a thumb's target. */
const buttonHeights = (card: Locator) =>
  card.getByRole("button").evaluateAll((buttons) => buttons.map((button) => button.getBoundingClientRect().height))

/** The card's parts top to bottom: title, status, first action. */
const expectReadingOrder = async (card: Locator, title: string) => {
  const heading = await box(card.getByRole("heading", { name: title, exact: true }))
  const status = await box(card.locator(".card-badges"))
  const actions = await box(card.locator(".card-actions"))
  expect(heading.y).toBeLessThan(status.y)
  expect(status.y).toBeLessThan(actions.y)
}

const axeInBothPalettes = async (page: Page) => {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme })
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 844 })
      await expectAccessible(page)
    }
  }
  await page.emulateMedia({ colorScheme: "light" })
}

describe("incidents and maintenance as cards", () => {
  it("shows each incident as a card at phone width, its title whole and its actions thumb-sized", async () => {
    const checkout = await api((client) => client.components.create({ payload: { name: "Checkout" } }))
    await api((client) =>
      client.incidents.create({
        payload: { title: longTitle, message: "We are looking into it.", componentIds: [checkout.id] }
      })
    )
    const resolved = await api((client) =>
      client.incidents.create({ payload: { title: "Search slow", message: "Searches time out." } })
    )
    await api((client) => client.incidents.resolve({ params: { id: resolved.id }, payload: null }))

    const page = await openScreen("incidents")
    await page.setViewportSize({ width: 390, height: 844 })
    const card = itemCard(page, longTitle)
    await card.getByRole("button", { name: "Post update" }).waitFor()
    // The list is a list of named cards, open incidents first.
    const list = page.getByRole("list", { name: "Incidents" })
    expect(await list.getByRole("article").evaluateAll((cards) => cards.map((c) => c.querySelector("h2")?.textContent)))
      .toEqual([longTitle, "Search slow"])

    expect((await box(card.getByRole("heading", { name: longTitle }))).width).toBeGreaterThan(200)
    await expectReadingOrder(card, longTitle)
    expect(await card.getByText("Status: Investigating").count()).toBe(1)
    for (const height of await buttonHeights(card)) expect(height).toBeGreaterThanOrEqual(44)
    // The box beside Resolve is a thumb's target too: its whole line.
    expect((await box(card.locator(".field.checkbox label"))).height).toBeGreaterThanOrEqual(44)
    await screenshot(page, "incident-cards-phone")

    // What an action opens comes under the actions, so the button pressed stays where it was.
    await card.getByRole("button", { name: "Post update" }).click()
    const form = card.getByRole("form", { name: `Update on ${longTitle}` })
    await form.getByLabel("Message").waitFor()
    expect((await box(form)).y).toBeGreaterThan((await box(card.locator(".card-actions"))).y)
    for (const height of await buttonHeights(card)) expect(height).toBeGreaterThanOrEqual(44)

    // The resolved one offers its postmortem, also thumb-sized.
    const done = itemCard(page, "Search slow")
    await done.getByText("Status: Resolved").waitFor()
    for (const height of await buttonHeights(done)) expect(height).toBeGreaterThanOrEqual(44)

    await page.setViewportSize({ width: 320, height: 640 })
    await expectFitsViewport(page)
    await screenshot(page, "incident-cards-320")

    await axeInBothPalettes(page)
    await screenshot(page, "incident-cards-desktop")
    await page.close()
  })

  it("shows each maintenance window as a card at phone width, a series with both of its cancels", async () => {
    await api((client) =>
      client.maintenance.create({
        payload: {
          title: "Database upgrade to the next major version with a read-only hour",
          scheduledStart: DateTime.makeUnsafe("2031-03-10T09:00:00Z"),
          scheduledEnd: DateTime.makeUnsafe("2031-03-10T11:00:00Z")
        }
      })
    )
    await api((client) =>
      client.maintenance.create({
        payload: {
          title: "Patch night",
          scheduledStart: DateTime.makeUnsafe("2031-04-01T22:00:00Z"),
          scheduledEnd: DateTime.makeUnsafe("2031-04-01T23:00:00Z"),
          recurrence: { frequency: "weekly", interval: 1 }
        }
      })
    )

    const page = await openScreen("maintenance")
    await page.setViewportSize({ width: 390, height: 844 })
    const upgrade = itemCard(page, "Database upgrade to the next major version with a read-only hour")
    const series = itemCard(page, "Patch night")
    await series.getByRole("button", { name: "Cancel this and all later occurrences of Patch night" }).waitFor()

    for (const card of [upgrade, series]) {
      expect((await box(card.getByRole("heading"))).width).toBeGreaterThan(200)
      for (const height of await buttonHeights(card)) expect(height).toBeGreaterThanOrEqual(44)
    }
    await expectReadingOrder(series, "Patch night")
    expect(await series.getByText("Status: Scheduled").count()).toBe(1)
    await screenshot(page, "maintenance-cards-phone")

    // Cancelling asks again in place, naming the window.
    await series.getByRole("button", { name: "Cancel this occurrence of Patch night" }).click()
    const confirm = series.getByRole("button", { name: "Cancel only this occurrence of Patch night" })
    await expect.poll(() => confirm.evaluate((button) => button === document.activeElement)).toBe(true)
    for (const height of await buttonHeights(series)) expect(height).toBeGreaterThanOrEqual(44)
    await series.getByRole("button", { name: "Cancel", exact: true }).click()

    await upgrade.getByRole("button", { name: "Edit" }).click()
    await upgrade.getByRole("form", { name: /^Edit Database upgrade/ }).getByLabel("Ends").waitFor()
    await page.setViewportSize({ width: 320, height: 640 })
    await expectFitsViewport(page)
    await screenshot(page, "maintenance-cards-320")

    await axeInBothPalettes(page)
    await page.close()
  })
})
