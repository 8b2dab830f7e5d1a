/**
 * The response-time charts in Chromium: on the status page (no script) and on the dashboard's
 * Monitors screen, drawn from checks stored as ingest stores them; both pass axe-core, and their
 * text alternatives name each region. The status page's CSP runs no script, browser or not.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { CheckResultsRepo } from "../../src/persistence/CheckResultsRepo.js"
import { ResponseTimes } from "../../src/services/monitoring/ResponseTimes.js"
import { expectAccessible, screenshot } from "../support/Browser.js"
import { useBrowserStack } from "../support/BrowserStack.js"
import { checkResult, slotFrom } from "../support/CheckResults.js"
import { ApiClient } from "../support/TestServer.js"

const artifacts = "test/artifacts/response-times"
const hour = 3_600_000

const suite = useBrowserStack()

/** A check of the monitor's first slot (60 s, the default interval) at or after `at`: ingest admits only those. */
const run = (monitorId: string, region: string, at: number, durationMs: number) =>
  checkResult(monitorId, region, slotFrom(monitorId, at), true, {
    durationMs,
    timings: { dnsMs: 3, connectMs: 8, tlsMs: 15, firstByteMs: durationMs - 30 }
  })

describe("response-time charts in a browser", () => {
  it("the status page and the Monitors screen draw a line per region, accessibly", async () => {
    // Checks of the last 24 hours, fed before the page is first read (it reads them once a minute).
    const monitorId = await suite.stack.run(
      Effect.gen(function*() {
        const client = yield* ApiClient
        const component = yield* client.components.create({ payload: { name: "Checkout API" } })
        const monitor = yield* client.monitors.create({
          payload: {
            componentId: component.id,
            type: "http",
            url: "https://example.com/health",
            regions: ["eu-west", "us-east", "ap-south"]
          }
        })
        const hourStart = Math.floor(Date.now() / hour) * hour
        // Stored as ingest stores results: ingest itself admits none that old (docs/monitor-fleet.md).
        const repo = yield* CheckResultsRepo
        for (let i = 0; i < 24; i++) {
          const at = hourStart - i * hour
          yield* repo.storeResults([
            run(monitor.id, "eu-west", at, 90 + (i % 5) * 10),
            run(monitor.id, "us-east", at, 240 + (i % 3) * 30),
            ...(i % 4 === 0 ? [] : [run(monitor.id, "ap-south", at, 520 + i * 5)])
          ])
        }
        // What the ingest role's fiber does every 10 s.
        yield* (yield* ResponseTimes).fold()
        return monitor.id
      }).pipe(Effect.provide([CheckResultsRepo.layer, ResponseTimes.layer]))
    )

    const page = await suite.browser.context.newPage()
    await page.goto(`${suite.stack.baseUrl}/`)
    const chart = page.getByRole("img", { name: "Response times of Checkout API, last 24 hours" })
    await chart.waitFor({ timeout: 5000 })
    expect(await page.locator("figure.response-times polyline").count()).toBeGreaterThanOrEqual(3)
    const figures = page.locator("figure.response-times table")
    for (const region of ["ap-south", "eu-west", "us-east"]) {
      expect(await figures.getByRole("rowheader", { name: region }).count()).toBe(1)
    }
    await expectAccessible(page)
    await screenshot(page, "status-page", artifacts)
    await page.setViewportSize({ width: 390, height: 844 })
    await expectAccessible(page)
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await page.close()

    const admin = await suite.openScreen("monitors")
    // The chart is in the monitor's detail pane.
    await admin.getByRole("button", { name: "Details of Checkout API https://example.com/health" }).click()
    const adminChart = admin.getByRole("img", {
      name: "Response times of https://example.com/health, last 24 hours"
    })
    await adminChart.waitFor({ timeout: 10_000 })
    expect(await admin.locator(`figure.response-times polyline`).count()).toBeGreaterThanOrEqual(3)
    await expectAccessible(admin)
    // Another period: daily points, from the same rollups.
    await admin.getByRole("combobox", { name: "Period of the response times of https://example.com/health" })
      .selectOption("30d")
    await admin.getByRole("img", { name: "Response times of https://example.com/health, last 30 days" }).waitFor({
      timeout: 10_000
    })
    await screenshot(admin, "monitors-screen", artifacts)
    expect(monitorId).toBeDefined()
  })
})
