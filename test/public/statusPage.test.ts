/**
 * The public status page in a real browser (Debian's Chromium through playwright-core) against
 * the full stack on a loopback port, with a real SMTP server catching the mail: what an operator
 * does in the dashboard shows on the public page, a visitor subscribes and confirms from the
 * mail, the page works without JavaScript, is accessible at desktop and phone width, and stays
 * under 100 kB.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"

import {
  expectAccessible,
  expectStatusMessage,
  launchBrowser,
  openAdminScreen,
  openIncidentInDashboard,
  postIncidentUpdateInDashboard,
  screenshot
} from "../support/Browser.js"
import { useBrowserStackWithSmtp } from "../support/BrowserStack.js"
import { barCellDetail } from "../support/UptimeDays.js"

const artifacts = "test/artifacts/status-page"

const suite = useBrowserStackWithSmtp()

const { api } = suite

const openAdmin = (screen: string) => openAdminScreen(suite.browser, suite.stack.baseUrl, screen)

/** Reloads the public page until it shows `text` (the snapshot is rebuilt just after a change). */
const publicPageShowing = async (page: Page, path: string, text: string) => {
  await expect.poll(async () => {
    await page.goto(`${suite.stack.baseUrl}${path}`)
    return (await page.locator("main").textContent())?.includes(text)
  }, { timeout: 5000 }).toBe(true)
}

describe("public status page in a browser", () => {
  it("shows what the operator does in the dashboard: a component, an incident with its update, maintenance", async () => {
    const admin = await openAdmin("components")
    const newComponent = admin.getByRole("form", { name: "New component" })
    await newComponent.getByLabel("Name").fill("Website")
    await newComponent.getByRole("button", { name: "Create component" }).click()
    await expectStatusMessage(admin, "Website was created.")

    await admin.goto(`${suite.stack.baseUrl}/admin#/incidents`)
    await openIncidentInDashboard(admin, {
      title: "Website errors",
      message: "Some pages fail to load.",
      components: ["Website"]
    })
    await postIncidentUpdateInDashboard(admin, "Website errors", "monitoring", "A fix is live; we are watching.")

    await admin.goto(`${suite.stack.baseUrl}/admin#/maintenance`)
    const schedule = admin.getByRole("form", { name: "Schedule maintenance" })
    await schedule.getByLabel("Title").fill("Network upgrade")
    await schedule.getByLabel("Starts").fill("2031-05-01T22:00")
    await schedule.getByLabel("Ends").fill("2031-05-02T01:00")
    await schedule.getByLabel("Website").check()
    await schedule.getByRole("button", { name: "Schedule" }).click()
    await expectStatusMessage(admin, "Network upgrade was scheduled.")
    await admin.close()

    const page = await suite.browser.context.newPage()
    await publicPageShowing(page, "/", "Network upgrade")
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("All systems operational")
    const incidents = page.getByRole("region", { name: "Active incidents" })
    await expect.poll(() => incidents.getByRole("heading", { name: "Website errors" }).isVisible()).toBe(true)
    // The latest update, not the first message.
    expect(await incidents.textContent()).toContain("A fix is live; we are watching.")
    expect(await incidents.textContent()).toContain("Monitoring")
    const maintenance = page.getByRole("region", { name: "Maintenance" })
    expect(await maintenance.textContent()).toContain("Website")
    const website = page.getByRole("region", { name: "Components" }).getByRole("listitem").filter({
      has: page.getByRole("heading", { name: "Website" })
    }).first()
    expect(await website.textContent()).toContain("Operational")
    expect(
      await website.getByRole("list", { name: "Daily uptime of Website, oldest first" }).getByRole("listitem").count()
    ).toBe(90)
    await screenshot(page, "status", artifacts)

    await incidents.getByRole("link", { name: "Website errors" }).click()
    await page.getByRole("heading", { name: "Website errors", level: 1 }).waitFor()
    const timeline = await page.locator("ol.timeline").textContent()
    expect(timeline).toContain("A fix is live; we are watching.")
    expect(timeline).toContain("Some pages fail to load.")
    await expectAccessible(page)
    await screenshot(page, "incident", artifacts)
    await page.close()
  })

  it("subscribes from the public page and confirms through the link in the mail", async () => {
    const page = await suite.browser.context.newPage()
    await page.goto(`${suite.stack.baseUrl}/`)
    await page.getByLabel("E-mail address").fill("not-an-address")
    await page.getByRole("button", { name: "Subscribe" }).click()
    await expect.poll(() => page.getByLabel("E-mail address").getAttribute("aria-invalid")).toBe("true")
    expect(await page.locator("#email-error").textContent()).toContain("Enter an e-mail address")
    await expectAccessible(page)

    const before = suite.smtp.messages.length
    await page.getByLabel("E-mail address").fill("reader@example.com")
    await page.getByRole("button", { name: "Subscribe" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toContain("a confirmation link is on its way")
    const mails = await Effect.runPromise(suite.smtp.waitFor(before + 1))
    const mail = mails.at(-1)!
    expect(mail.envelopeTo).toEqual(["reader@example.com"])
    const link = /https?:\/\/[^\s"<>]+\/subscribe\/verify\/[\w-]+/.exec(mail.parsed.text ?? "")
    expect(link).not.toBeNull()
    // PUBLIC_URL is not this test server's address: follow the link's path here.
    const landing = `${suite.stack.baseUrl}${new URL(link![0]).pathname}`
    await page.goto(landing)
    // Following the link confirms nothing yet: the visitor presses the button.
    await page.getByRole("heading", { name: "Confirm your subscription", level: 1 }).waitFor()
    await expectAccessible(page)
    expect(
      (await api((client) => client.subscribers.list({ query: {} }))).find((s) => s.email === "reader@example.com")
    )
      .toMatchObject({ verified: false })
    await page.getByRole("button", { name: "Confirm subscription" }).click()
    await page.getByRole("heading", { name: "Subscription confirmed", level: 1 }).waitFor()
    expect(await page.getByRole("status").textContent()).toContain("reader@example.com will now receive")
    expect(
      (await api((client) => client.subscribers.list({ query: {} }))).find((s) => s.email === "reader@example.com")
    )
      .toMatchObject({ verified: true })
    await screenshot(page, "subscription-confirmed", artifacts)

    // The same link again: used.
    await page.goto(landing)
    await page.getByRole("heading", { name: "Link not valid", level: 1 }).waitFor()
    await page.close()
  })

  it("works with JavaScript disabled: reading, following links and subscribing", async () => {
    await api((client) =>
      client.incidents.create({ payload: { title: "Checkout errors", message: "Some payments fail." } })
    )
    const noScript = await launchBrowser({ javaScriptEnabled: false })
    try {
      const page = await noScript.context.newPage()
      await publicPageShowing(page, "/", "Checkout errors")
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("All systems operational")
      expect(await page.getByRole("heading", { name: "Checkout errors" }).isVisible()).toBe(true)
      await page.getByLabel("E-mail address").fill("noscript@example.com")
      await page.getByRole("button", { name: "Subscribe" }).click()
      await page.waitForURL(`${suite.stack.baseUrl}/subscribe`)
      expect(await page.getByRole("status").textContent()).toContain("a confirmation link is on its way")
      await page.getByRole("link", { name: "Incident history" }).click()
      await page.getByRole("heading", { name: "Incident history", level: 1 }).waitFor()
      await page.getByRole("link", { name: "Checkout errors" }).click()
      await page.getByRole("heading", { name: "Checkout errors", level: 1 }).waitFor()
      await screenshot(page, "incident-no-script", artifacts)
      expect(noScript.pageErrors).toEqual([])
    } finally {
      await noScript.close()
    }
  })

  it("has no serious accessibility violation and no sideways scrolling, at desktop and phone width", async () => {
    // A component, for its uptime bar.
    await api((client) => client.components.create({ payload: { name: "Search index" } }))
    const page = await suite.browser.context.newPage()
    await publicPageShowing(page, "/", "Search index")
    for (const [width, height] of [[1280, 900], [390, 844]] as const) {
      await page.setViewportSize({ width, height })
      for (const path of ["/", "/history", "/unsubscribe?email=a%40example.com&token=t"]) {
        await page.goto(`${suite.stack.baseUrl}${path}`)
        await expectAccessible(page)
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
      }
      await page.goto(`${suite.stack.baseUrl}/`)
      await screenshot(page, `status-${width}`, artifacts)
      // A day's details show when its cell is pointed at or tapped, inside the screen, at either end of the bar too.
      const cells = page.locator("ol.bar").first().getByRole("listitem")
      for (const index of [0, 45, 89]) {
        const cell = cells.nth(index)
        const tooltip = cell.locator("span")
        expect((await tooltip.boundingBox())!.width).toBeLessThanOrEqual(1)
        await cell.click()
        const box = (await tooltip.boundingBox())!
        expect(box.width).toBeGreaterThan(50)
        expect(box.x).toBeGreaterThanOrEqual(0)
        expect(box.x + box.width).toBeLessThanOrEqual(width)
        // The day as the page writes it (1 Sept 2026), not a shape of month names.
        expect(barCellDetail(await tooltip.textContent(), index, suite.stack.startedAt)).toMatch(
          /^(no data|before this component existed|[\d.]+ % uptime)/
        )
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
      }
      await screenshot(page, `status-${width}-day-details`, artifacts)
      await page.mouse.move(0, 0)
    }
    await page.close()
  })

  it("weighs under 100 kB transferred with 25 components, and keeps readable text on a light brand colour", async () => {
    const org = await api((client) => client.organization.get())
    await api((client) => client.organization.update({ params: { id: org.id }, payload: { brandColor: "#f5f5a0" } }))
    // Whatever the tests before made: at least 25 public components, the last one made here.
    const existing = (await api((client) => client.components.list({ query: {} }))).filter((c) => c.isPublic).length
    const added = Math.max(1, 25 - existing)
    for (let i = 1; i <= added; i++) {
      await api((client) =>
        client.components.create({
          payload: { name: `Service ${String(i).padStart(2, "0")}`, description: "A public service" }
        })
      )
    }
    const page = await suite.browser.context.newPage()
    await publicPageShowing(page, "/", `Service ${String(added).padStart(2, "0")}`)
    const weight = await page.evaluate(() => {
      const entries = performance.getEntriesByType("navigation").concat(
        performance.getEntriesByType("resource")
      ) as Array<PerformanceResourceTiming>
      return {
        transferred: entries.reduce((sum, entry) => sum + entry.transferSize, 0),
        decoded: entries.reduce((sum, entry) => sum + entry.decodedBodySize, 0)
      }
    })
    console.log(
      `status page with ${
        existing + added
      } components: ${weight.decoded} bytes of HTML, ${weight.transferred} bytes transferred`
    )
    // Page weight is what travels: the HTML gzipped (no script, the stylesheet inline, the icon a data: URL).
    expect(weight.transferred).toBeGreaterThan(0)
    expect(weight.transferred).toBeLessThan(100_000)
    const header = await page.evaluate(() => {
      const style = getComputedStyle(document.querySelector("header.brand")!)
      return { background: style.backgroundColor, color: style.color }
    })
    expect(header).toEqual({ background: "rgb(245, 245, 160)", color: "rgb(0, 0, 0)" })
    await expectAccessible(page)
    await page.close()
  })
})
