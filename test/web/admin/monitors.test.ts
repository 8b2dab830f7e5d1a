/**
 * The Monitors screen in a real browser against the full stack: what to do first with no
 * monitor; the list worst first with each monitor's heartbeat bar, its runs named in words; the
 * detail pane beside the list at 1280 px and in its place at 390 px, opened and closed with focus
 * kept; its actions; a refresh that reads the bars again; axe-core in the light and dark palettes
 * at both widths; nothing wider than a 320 px screen.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"

import { jobIdOf, MissedCheck } from "../../../src/domain/CheckJob.js"
import { CheckResultsRepo } from "../../../src/persistence/CheckResultsRepo.js"
import { ResultIngest } from "../../../src/services/monitoring/ResultIngest.js"
import { expectAccessible, expectFitsViewport, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"
import { checkResult, slotOf } from "../../support/CheckResults.js"
import { ApiClient } from "../../support/TestServer.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

const minute = 60_000
const checkoutUrl = "https://checkout.example.test/health"
const checkoutName = `Checkout (${checkoutUrl})`

/**
 * Checkout's monitor (eu-west and us-east, failure threshold 1, degraded above 500 ms) with 15
 * runs a region behind it: 13 earlier slots stored as ingest stores them (a failure, a slow
 * success and a miss among them; ingest itself admits no run from before the monitor), then the
 * last slot through ingest, failed in both regions: down. And Search's monitor, never checked.
 */
const seedMonitors = () =>
  suite.stack.run(
    Effect.gen(function*() {
      const client = yield* ApiClient
      const checkout = yield* client.components.create({ payload: { name: "Checkout" } })
      const search = yield* client.components.create({ payload: { name: "Search" } })
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: checkout.id,
          type: "http",
          url: checkoutUrl,
          failureThreshold: 1,
          regions: ["eu-west", "us-east"],
          degradedAboveMs: 500
        }
      })
      yield* client.monitors.create({
        payload: { componentId: search.id, type: "http", url: "https://search.example.test/health" }
      })
      const last = slotOf(monitor.id, Date.now() - 5_000)
      const repo = yield* CheckResultsRepo
      for (let back = 14; back >= 1; back--) {
        const at = last - back * minute
        yield* repo.storeResults([
          checkResult(monitor.id, "eu-west", at, back !== 4),
          ...(back === 6 ? [] : [checkResult(monitor.id, "us-east", at, true, { durationMs: back === 2 ? 900 : 40 })])
        ])
        if (back === 6) {
          yield* repo.insertMisses([
            new MissedCheck({
              jobId: jobIdOf(monitor.id, at),
              monitorId: monitor.id,
              region: "us-east",
              probe: "us-east-1",
              scheduledAt: at,
              recordedAt: at + minute + 1_000,
              reason: "late"
            })
          ])
        }
      }
      yield* (yield* ResultIngest).ingest([
        checkResult(monitor.id, "eu-west", last, false),
        checkResult(monitor.id, "us-east", last, false)
      ])
      return { monitorId: monitor.id, last }
    }).pipe(Effect.provide([CheckResultsRepo.layer, ResultIngest.layer]))
  )

/** What `seedMonitors` made, for the tests after it. */
let seeded: { readonly monitorId: string; readonly last: number } | undefined

const checkoutLine = (page: Page) => page.locator(".monitor-line").filter({ hasText: checkoutUrl })
const detailsButton = (page: Page) => page.getByRole("button", { name: `Details of Checkout ${checkoutUrl}` })
const detailPane = (page: Page) => page.getByRole("region", { name: `Checkout ${checkoutUrl}` })

/** The screen's status line (the shell's live banner is a status region too, and comes first). */
const expectStatusLine = (page: Page, message: string) =>
  expect.poll(() => page.locator("p.status-message").textContent()).toBe(message)

const expectAccessibleInBothPalettes = async (page: Page) => {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme })
    await expectAccessible(page)
  }
  await page.emulateMedia({ colorScheme: "light" })
}

describe("dashboard monitors screen", () => {
  it("says what to do first when there is no monitor", async () => {
    const page = await openScreen("monitors")
    const list = page.getByRole("region", { name: "All monitors" })
    await list.getByText("No monitors yet.").waitFor()
    expect(await list.textContent()).toContain("First add a component")
    expect(await list.getByRole("link", { name: "Components" }).getAttribute("href")).toBe("#/components")
    // The form's link stays on the screen: it moves to the form rather than to another address.
    await list.getByRole("link", { name: "New monitor form" }).click()
    expect(new URL(page.url()).hash).toBe("#/monitors")
    await page.getByRole("heading", { name: "New monitor", level: 2 }).waitFor()
    await expectAccessibleInBothPalettes(page)
    await page.close()
  })

  it("lists monitors worst first with heartbeat bars whose runs are named in words", async () => {
    seeded = await seedMonitors()
    const page = await openScreen("monitors")
    const line = checkoutLine(page)
    await line.getByText("Last 30 runs:").waitFor()

    // Worst first: the down monitor before the one without data; states in words.
    const lines = page.locator(".monitor-line")
    expect(await lines.count()).toBe(2)
    expect(await lines.nth(0).locator(".monitor-state").textContent()).toBe("Down")
    expect(await lines.nth(1).locator(".monitor-state").textContent()).toBe("No data")
    expect(await lines.nth(1).textContent()).toContain("No runs yet.")
    expect(await page.locator(".monitor-counts").textContent()).toContain("2 monitors: 1 down, 1 no data")

    // 28 ok (one of them slow), 3 failed, 1 missed, of which the newest 30.
    expect(await line.textContent()).toContain("Last 30 runs: 26 ok, 1 of them slow, 3 failed, 1 missed (89.6% up)")
    const runs = line.getByRole("list", { name: `Last 30 runs of ${checkoutName}, oldest first` })
    const items = runs.getByRole("listitem")
    expect(await items.count()).toBe(30)
    const texts = await items.allTextContents()
    expect(texts.filter((text) => text.includes("eu-west: OK in 13 ms, HTTP 200")).length).toBeGreaterThan(0)
    expect(texts.filter((text) => text.includes(": Failed after 13 ms: expected status 200, got 503"))).toHaveLength(
      3
    )
    expect(texts.filter((text) => text.includes("us-east: Slow: 900 ms, above 500 ms, HTTP 200"))).toHaveLength(1)
    expect(texts.filter((text) => text.includes("us-east: Missed: its probe took it too late to run"))).toHaveLength(1)
    // The newest runs are last (oldest left): both regions failed at the last slot.
    expect(texts.slice(-2).every((text) => text.includes("Failed"))).toBe(true)

    // The bars say it by colour and height, each with its tooltip; the same 30 runs.
    const bars = line.locator(".heartbeat-bar .beat")
    expect(await bars.count()).toBe(30)
    expect(await line.locator(".heartbeat-bar .beat-failed").count()).toBe(3)
    expect(await line.locator(".heartbeat-bar .beat-slow").count()).toBe(1)
    expect(await line.locator(".heartbeat-bar .beat-missed").count()).toBe(1)
    expect(await line.locator(".heartbeat-bar .beat-failed").last().getAttribute("title")).toContain(
      "expected status 200, got 503"
    )
    const [okHeight, failedHeight] = await Promise.all(
      [".beat-ok", ".beat-failed"].map((kind) =>
        line.locator(`.heartbeat-bar ${kind}`).first().evaluate((bar) => bar.getBoundingClientRect().height)
      )
    )
    expect(failedHeight).toBeGreaterThan(okHeight!)
    await screenshot(page, "monitors-list")
    await page.close()
  })

  it("opens and closes the detail pane beside the list at 1280 px and in its place at 390 px", async () => {
    const page = await openScreen("monitors")
    await checkoutLine(page).getByText("Last 30 runs:").waitFor()

    // Desktop: the pane beside the list, focus on its heading, back to the line's button on close.
    const button = detailsButton(page)
    expect((await button.boundingBox())!.height).toBeGreaterThanOrEqual(44)
    await button.click()
    const pane = detailPane(page)
    await pane.waitFor()
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("monitor-detail-title")
    expect(await button.getAttribute("aria-current")).toBe("true")
    expect(await button.isVisible()).toBe(true)
    const [listBox, paneBox] = await Promise.all([page.locator(".monitors-main").boundingBox(), pane.boundingBox()])
    expect(paneBox!.x).toBeGreaterThan(listBox!.x + listBox!.width - 1)

    // What each region last found, the last error, the runs as a list, the chart.
    const regions = pane.locator(".region-states")
    expect(await regions.textContent()).toContain("eu-west")
    expect(await regions.textContent()).toContain("1 failure in a row")
    expect(await pane.textContent()).toContain("Reporting: eu-west, us-east")
    await pane.getByText("expected status 200, got 503").first().waitFor()
    // The runs one by one are folded under the bar.
    await pane.getByText("Each run, newest first (30)").click()
    const recent = pane.getByRole("list", { name: `Recent runs of ${checkoutName}, newest first` })
    expect(await recent.getByRole("listitem").count()).toBe(30)
    expect(await recent.getByRole("listitem").first().textContent()).toContain("Failed")
    await pane.getByRole("combobox", { name: `Period of the response times of ${checkoutUrl}` }).waitFor()
    await expectAccessibleInBothPalettes(page)
    await screenshot(page, "monitors-detail")
    await page.emulateMedia({ colorScheme: "dark" })
    await screenshot(page, "monitors-detail-dark")
    await page.emulateMedia({ colorScheme: "light" })

    // The open detail is in the address, so a link (the overview's, the search's) or a reload opens it.
    expect(new URL(page.url()).hash).toBe(`#/monitors?id=${seeded!.monitorId}`)
    await page.reload()
    await detailPane(page).waitFor()

    await pane.getByRole("button", { name: `Close the details of ${checkoutName}` }).click()
    await expect.poll(() => pane.count()).toBe(0)
    expect(new URL(page.url()).hash).toBe("#/monitors")
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toContain(checkoutUrl)
    await expectAccessibleInBothPalettes(page)

    // Phone: the pane replaces the list, with a way back.
    await page.setViewportSize({ width: 390, height: 844 })
    await expectAccessibleInBothPalettes(page)
    await detailsButton(page).click()
    await pane.waitFor()
    expect(await detailsButton(page).isVisible()).toBe(false)
    const back = pane.getByRole("button", { name: "Back to all monitors" })
    expect((await back.boundingBox())!.height).toBeGreaterThanOrEqual(44)
    for (const action of ["Edit", "Pause", "Delete"]) {
      expect((await pane.getByRole("button", { name: action }).boundingBox())!.height).toBeGreaterThanOrEqual(44)
    }
    await expectFitsViewport(page)
    await expectAccessibleInBothPalettes(page)
    await screenshot(page, "monitors-detail-phone")
    await back.click()
    await expect.poll(() => pane.count()).toBe(0)
    await expect.poll(() => detailsButton(page).isVisible()).toBe(true)
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toContain(checkoutUrl)

    // The smallest screen: no sideways scrolling, the list or the pane.
    await page.setViewportSize({ width: 320, height: 700 })
    await expectFitsViewport(page)
    await detailsButton(page).click()
    await pane.waitFor()
    await expectFitsViewport(page)
    await page.close()
  })

  it("asks before another monitor's detail replaces an edit with unsaved changes", async () => {
    const page = await openScreen("monitors")
    await checkoutLine(page).getByText("Last 30 runs:").waitFor()
    await detailsButton(page).click()
    const pane = detailPane(page)
    await pane.getByRole("button", { name: "Edit" }).click()
    await pane.getByLabel("Failures before down").fill("7")
    const asked: Array<string> = []
    // Declined: the detail, its address and what was typed stay.
    page.once("dialog", (dialog) => {
      asked.push(dialog.message())
      void dialog.dismiss()
    })
    await page.getByRole("button", { name: "Details of Search https://search.example.test/health" }).click()
    await expect.poll(() => asked.length).toBe(1)
    expect(asked[0]).toContain("unsaved changes")
    expect(new URL(page.url()).hash).toBe(`#/monitors?id=${seeded!.monitorId}`)
    expect(await pane.getByLabel("Failures before down").inputValue()).toBe("7")
    // Accepted: the other monitor's detail.
    page.once("dialog", (dialog) => void dialog.accept())
    await page.getByRole("button", { name: "Details of Search https://search.example.test/health" }).click()
    await page.getByRole("region", { name: "Search https://search.example.test/health" }).waitFor()
    await page.close()
  })

  it("pauses, resumes and deletes from the pane, the delete naming the monitor", async () => {
    const screen = await openScreen("monitors")
    await checkoutLine(screen).getByText("Last 30 runs:").waitFor()
    await detailsButton(screen).click()
    const pane = detailPane(screen)

    await pane.getByRole("button", { name: "Pause" }).click()
    await expectStatusLine(screen, `The monitor of ${checkoutUrl} is paused.`)
    await expect.poll(() => pane.locator(".monitor-state").textContent()).toBe("Paused")
    await expect.poll(() => checkoutLine(screen).locator(".monitor-state").textContent()).toBe("Paused")
    await pane.getByRole("button", { name: "Resume" }).click()
    await expectStatusLine(screen, `The monitor of ${checkoutUrl} is checked again.`)
    expect((await api((client) => client.monitors.list({ query: {} }))).every((monitor) => !monitor.paused)).toBe(
      true
    )

    // Search's monitor: deleting asks once more, naming it; the pane closes and focus goes to the list.
    await screen.getByRole("button", { name: "Details of Search https://search.example.test/health" }).click()
    const search = screen.getByRole("region", { name: "Search https://search.example.test/health" })
    await search.waitFor()
    await search.getByRole("button", { name: "Delete Search (https://search.example.test/health)" }).click()
    await search.getByRole("button", { name: "Delete the monitor of https://search.example.test/health" }).click()
    await expectStatusLine(screen, "The monitor of https://search.example.test/health was deleted.")
    await expect.poll(() => screen.locator(".monitor-line").count()).toBe(1)
    await expect.poll(() => screen.locator("#monitor-detail").count()).toBe(0)
    await expect.poll(() => screen.evaluate(() => document.activeElement?.id)).toBe("monitor-list-title")
    expect((await api((client) => client.monitors.list({ query: {} }))).map((monitor) => monitor.url)).toEqual([
      checkoutUrl
    ])
    await screen.close()
  })

  it("reads the list and its bars again every minute", async () => {
    const page = await suite.browser.context.newPage()
    // The page's timers run on a clock the test moves: its minute's refresh without waiting a minute.
    await page.clock.install()
    await page.goto(`${suite.stack.baseUrl}/admin#/monitors`)
    const line = checkoutLine(page)
    await line.getByText("Last 30 runs:").waitFor()
    const before = await line.getByRole("listitem").allTextContents()

    // A run the page has not read: a success in both regions at a slot after the seeded ones, through ingest.
    const { monitorId, last } = seeded!
    const next = Math.max(slotOf(monitorId, Date.now()), last + minute)
    await suite.stack.run(
      Effect.gen(function*() {
        yield* (yield* ResultIngest).ingest([
          checkResult(monitorId, "eu-west", next, true),
          checkResult(monitorId, "us-east", next, true)
        ])
      }).pipe(Effect.provide(ResultIngest.layer))
    )
    await page.clock.fastForward(60_000)
    await expect.poll(() => line.locator(".monitor-state").textContent()).toBe("Up")
    // The bars are read right after the list.
    const newest = async () => (await line.getByRole("listitem").allTextContents()).slice(-2)
    await expect.poll(async () => (await newest()).every((text) => text.includes("OK in"))).toBe(true)
    expect(await newest()).not.toEqual(before.slice(-2))
    await page.close()
  })

  it("creates a push monitor: its URL is shown once and takes pushes, and a new URL replaces it", async () => {
    await api((client) => client.components.create({ payload: { name: "Nightly backup" } }))
    const page = await openScreen("monitors")
    const form = page.getByRole("region", { name: "New monitor" })
    await form.getByLabel("Component").selectOption({ label: "Nightly backup" })
    await form.getByLabel("Check").selectOption("push")
    // No target, time-out, regions or quorum for a push monitor; a grace instead.
    for (const absent of ["URL", "Time-out (milliseconds)", "Regions", "Quorum"]) {
      expect(await form.getByLabel(absent, { exact: true }).count(), absent).toBe(0)
    }
    await form.getByLabel("Interval (seconds)").fill("60")
    await form.getByLabel("Grace (seconds)").fill("15")
    await form.getByRole("button", { name: "Create monitor" }).click()
    const shown = form.getByRole("textbox", { name: "Push URL" })
    await shown.waitFor()
    const url = await shown.inputValue()
    expect(url).toMatch(new RegExp(`^${suite.stack.baseUrl}/api/v1/push/[A-Za-z0-9_-]{32}$`))
    await expectAccessible(page)
    expect((await fetch(`${url}?status=up&msg=OK&ping=`)).status).toBe(200)
    await form.getByRole("button", { name: "Done" }).click()
    await expect.poll(() => shown.count()).toBe(0)

    const pushLine = page.locator(".monitor-line").filter({ hasText: "/api/v1/push/********" })
    await expect.poll(() => pushLine.locator(".monitor-state").textContent()).toBe("Up")
    await pushLine.getByRole("button", { name: /^Details of/ }).click()
    const pane = page.locator("#monitor-detail")
    await pane.getByText("grace 15 s").waitFor()
    await pane.getByRole("button", { name: /^New push URL/ }).click()
    await pane.getByRole("button", { name: "Replace the push URL (the old one stops working)" }).click()
    const replaced = pane.getByRole("textbox", { name: "Push URL" })
    await replaced.waitFor()
    const newUrl = await replaced.inputValue()
    expect(newUrl).not.toBe(url)
    expect((await fetch(url)).status).toBe(404)
    expect((await fetch(newUrl)).status).toBe(200)
    await expectAccessible(page)
    await page.close()
  })
})
