/**
 * The dashboard during an outage, in a real browser against the full stack: posting an update
 * from the overview in at most three taps after signing in, at phone and desktop width, until
 * the public page shows it; a change made through the API showing on an open overview within
 * two seconds, without a reload; the banner when the live connection is lost and when it is
 * back; the keyboard shortcuts and the search; times in the operator's zone with the status
 * page's on hover.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import type { Locator, Page } from "playwright-core"

import { adminEmail, adminPassword } from "../../support/Auth.js"
import { expectAccessible, expectFitsViewport, screenshot, unexpectedPageErrors } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"
import { tcpProxy } from "../../support/TcpProxy.js"

const suite = useBrowserStack()
const { api } = suite

/** Opens the dashboard at `/admin`, signing in unless the browser's session is still valid; it lands on the Overview. */
const signIn = async (page: Page, origin = suite.stack.baseUrl) => {
  await page.goto(`${origin}/admin`)
  const form = page.getByRole("heading", { name: "Sign in to the status admin" })
  const overview = page.getByRole("heading", { name: "Overview", level: 1 })
  await expect.poll(async () => (await form.isVisible()) || (await overview.isVisible())).toBe(true)
  if (await form.isVisible()) {
    await page.getByLabel("E-mail").fill(adminEmail)
    await page.getByLabel("Password").fill(adminPassword)
    await page.getByRole("button", { name: "Sign in" }).click()
  }
  await overview.waitFor()
}

describe("the dashboard in an outage", () => {
  for (const [width, height] of [[390, 844], [1280, 900]] as const) {
    it(`posts an update from the overview in three taps at ${width} px, and the public page shows it`, async () => {
      const component = await api((client) => client.components.create({ payload: { name: `Payments ${width}` } }))
      const title = `Card payments failing ${width}`
      await api((client) =>
        client.incidents.create({
          payload: { title, message: "Looking into it.", componentIds: [component.id] }
        })
      )
      const page = await suite.browser.context.newPage()
      await page.setViewportSize({ width, height })
      await signIn(page)

      let taps = 0
      const tap = async (target: Locator) => {
        taps++
        await target.click()
      }
      const entry = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: title }) })
      await tap(entry.getByRole("button", { name: `Post update on ${title}` }))
      const form = entry.getByRole("form", { name: `Update on ${title}` })
      // Status, message and the components' statuses on one screen.
      await form.getByLabel("Message").fill("Found it: a certificate expired. Renewing.")
      await tap(form.getByRole("radio", { name: "Identified" }))
      expect(await form.getByLabel(`Set Payments ${width} to`).isVisible()).toBe(true)
      await expectAccessible(page)
      if (width === 390) await expectFitsViewport(page)
      await screenshot(page, `outage-update-${width}`)
      await tap(form.getByRole("button", { name: "Post update" }))
      await entry.getByText(`The update on ${title} was posted.`).waitFor()
      expect(taps).toBeLessThanOrEqual(3)

      const reader = await suite.browser.context.newPage()
      await reader.setViewportSize({ width, height })
      await reader.goto(`${suite.stack.baseUrl}/`)
      await reader.getByText("Found it: a certificate expired. Renewing.").first().waitFor()
      await reader.close()
      await api((client) => client.incidents.list({ query: {} })).then((incidents) =>
        Promise.all(
          incidents.filter((incident) => incident.title === title).map((incident) =>
            api((client) => client.incidents.resolve({ params: { id: incident.id }, payload: null }))
          )
        )
      )
      await page.close()
    })
  }

  it("shows a change made through the API on an open overview within two seconds, without a reload", async () => {
    const page = await suite.browser.context.newPage()
    await signIn(page)
    const before = await page.getByRole("heading", { name: /^Open incidents/, level: 2 }).textContent()
    // A reload would lose this mark.
    await page.evaluate(() => Object.assign(window, { notReloaded: true }))
    const startedAt = Date.now()
    await api((client) => client.incidents.create({ payload: { title: "Login slow", message: "Looking." } }))
    await page.getByRole("link", { name: "Login slow" }).waitFor({ timeout: 2_000 })
    expect(Date.now() - startedAt).toBeLessThan(2_000)
    expect(await page.getByRole("heading", { name: /^Open incidents/, level: 2 }).textContent()).not.toBe(before)
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
    await page.close()
  })

  it("says when the live connection is lost and when it is back, and reads again", async () => {
    // The browser reaches the service through a proxy the test cuts: the connection really drops.
    const scope = Effect.runSync(Scope.make())
    const proxy = await Effect.runPromise(Scope.provide(tcpProxy(Number(new URL(suite.stack.baseUrl).port)), scope))
    const viaProxy = new URL(suite.stack.baseUrl)
    viaProxy.port = String(proxy.port)
    const page = await suite.browser.context.newPage()
    await signIn(page, viaProxy.origin)
    await proxy.cut()
    await page.getByText("Connection lost").waitFor({ timeout: 10_000 })
    await expectAccessible(page)
    await screenshot(page, "live-lost")
    // Missed while away: shown once the connection is back.
    await api((client) => client.incidents.create({ payload: { title: "Missed while away", message: "Looking." } }))
    await proxy.restore()
    await page.getByText("Connection back").waitFor({ timeout: 15_000 })
    await page.getByRole("link", { name: "Missed while away" }).waitFor({ timeout: 5_000 })
    await page.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    // The browser's own lines about the requests the cut failed are expected here, and only they
    // (besides a 4xx the page shows in words, as everywhere: unexpectedPageErrors).
    expect(
      unexpectedPageErrors(suite.browser).filter((error) =>
        !/net::ERR_(CONNECTION_REFUSED|INCOMPLETE_CHUNKED_ENCODING|EMPTY_RESPONSE|CONNECTION_RESET)/.test(error)
      )
    ).toEqual([])
  })

  it("has shortcuts for search, a new incident and the shortcuts themselves, and a search over the lists", async () => {
    await api((client) => client.components.create({ payload: { name: "Checkout API" } }))
    const page = await suite.browser.context.newPage()
    await signIn(page)

    await page.keyboard.press("?")
    const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" })
    await dialog.waitFor()
    await expectAccessible(page)
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "hidden" })

    await page.keyboard.press("/")
    const search = page.getByRole("searchbox", { name: "Search components, monitors and incidents" })
    await expect.poll(() => search.evaluate((element) => element === document.activeElement)).toBe(true)
    await search.fill("checkout api")
    const results = page.getByRole("list", { name: "Search results" })
    await results.getByRole("link", { name: /Component Checkout API/ }).waitFor()
    await expectAccessible(page)
    await search.press("Enter")
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()

    await page.locator("body").press("n")
    await page.getByRole("heading", { name: "Incidents", level: 1 }).waitFor()
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("incident-title")
    // Typing in a field is not a shortcut.
    await page.keyboard.type("n/?")
    expect(await page.getByLabel("Title").first().inputValue()).toBe("n/?")
    await page.close()
  })

  it("writes times in the operator's zone, with the status page's zone on hover", async () => {
    await api((client) => client.organization.updateCurrent({ payload: { timezone: "Asia/Tokyo" } }))
    await api((client) => client.incidents.create({ payload: { title: "Tokyo time", message: "Looking." } }))
    const page = await suite.browser.context.newPage()
    await signIn(page)
    const opened = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: "Tokyo time" }) })
      .locator("time").first()
    await expect.poll(() => opened.getAttribute("title")).toContain("(status page: Asia/Tokyo)")
    // Shown as the browser's own zone and language write it.
    expect(
      await opened.evaluate((time) =>
        time.textContent ===
          new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(
            new Date(time.getAttribute("datetime")!)
          )
      )
    ).toBe(true)
    await api((client) => client.organization.updateCurrent({ payload: { timezone: "UTC" } }))
    await page.close()
  })
})
