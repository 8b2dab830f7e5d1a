/**
 * Recurring maintenance in the dashboard, in a real browser against the full stack: the Repeat
 * fields of the schedule form, the "Repeats …" line of an occurrence, and cancelling one
 * occurrence (the series goes on) or it and all later ones (the series ends).
 */
import { describe, expect, it } from "@effect/vitest"

import { expectAccessible, expectStatusMessage, itemCard, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

describe("dashboard recurring maintenance", () => {
  it("schedules a repeating window, cancels one occurrence, then the rest of the series", async () => {
    const page = await openScreen("maintenance")
    const form = page.getByRole("form", { name: "Schedule maintenance" })
    await form.getByLabel("Title").fill("Patch night")
    await form.getByLabel("Starts").fill("2031-06-03T22:00")
    await form.getByLabel("Ends").fill("2031-06-03T23:30")
    // The series' fields appear only once the window repeats.
    expect(await form.getByLabel("Until").count()).toBe(0)
    await form.getByLabel("Repeat").selectOption("weekly")
    const every = form.getByLabel("Every how many weeks")
    await every.fill("0")
    await form.getByLabel("Number of occurrences").fill("4")
    await form.getByRole("button", { name: "Schedule" }).click()
    await expect.poll(() => every.getAttribute("aria-invalid")).toBe("true")

    await every.fill("2")
    await form.getByRole("button", { name: "Schedule" }).click()
    await expectStatusMessage(page, "Patch night was scheduled.")
    // The form is blank again, repeating never.
    expect(await form.getByLabel("Repeat").inputValue()).toBe("never")
    const first = (await api((client) => client.maintenance.list({ query: {} }))).find((window) =>
      window.title === "Patch night"
    )!
    expect(first.recurrence).toEqual({ frequency: "weekly", interval: 2, count: 4 })
    expect(first.seriesId).toBe(first.id)

    const rows = itemCard(page, "Patch night")
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().textContent()).toContain("Repeats every 2 weeks, 4 times")
    await expectAccessible(page)
    await screenshot(page, "maintenance-recurring")

    // Cancelling this occurrence only: the next one (two weeks on) takes its place.
    const scheduled = rows.filter({ hasText: "Scheduled" })
    await scheduled.getByRole("button", { name: "Cancel this occurrence" }).click()
    await scheduled.getByRole("button", { name: "Cancel only this occurrence of Patch night" }).click()
    await expectStatusMessage(page, "This occurrence of Patch night was cancelled.")
    await expect.poll(() => rows.count()).toBe(2)
    const series = async () =>
      (await api((client) => client.maintenance.list({ query: {} })))
        .filter((window) => window.seriesId === first.id)
        .toSorted((a, b) => a.scheduledStart.epochMilliseconds - b.scheduledStart.epochMilliseconds)
    const [cancelled, next] = await series()
    expect(cancelled!.status).toBe("cancelled")
    expect(next!.status).toBe("scheduled")
    expect(next!.scheduledStart.epochMilliseconds - first.scheduledStart.epochMilliseconds).toBeGreaterThanOrEqual(
      14 * 24 * 3600_000 - 3600_000
    )

    // This and all later: the series ends.
    const nextRow = rows.filter({ hasText: "Scheduled" })
    await nextRow.getByRole("button", { name: "Cancel this and all later" }).click()
    await nextRow.getByRole("button", { name: "Cancel Patch night from this occurrence on" }).click()
    await expectStatusMessage(page, "Patch night and its later occurrences were cancelled.")
    expect((await series()).map((window) => window.status)).toEqual(["cancelled", "cancelled"])
    await page.close()
  })
})
