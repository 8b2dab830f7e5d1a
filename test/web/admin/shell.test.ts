/**
 * The dashboard's shell in a real browser against the full stack: the sidebar by group with the
 * count of open incidents beside Incidents (kept current when the screen changes and as incidents
 * change, hidden when it cannot be read), the Menu that folds it away on phones, nothing wider
 * than a 320 px screen on any screen, and axe-core on every screen at phone and desktop width in
 * the light and dark palettes, with no violation of any impact.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Page } from "playwright-core"

import { adminEmail, adminPassword } from "../../support/Auth.js"
import { accessibilityViolations, expectAccessible, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

const openIncident = (title: string) =>
  api((client) => client.incidents.create({ payload: { title, message: "Looking." } }))

/** Each group of the sidebar: its name and the text of its links. */
const sidebar = (page: Page) =>
  page.getByRole("navigation", { name: "Main" }).locator(".nav-group").evaluateAll((groups) =>
    groups.map((group) => [
      group.querySelector(".nav-group-label")?.textContent,
      [...group.querySelectorAll("a")].map((link) => link.textContent)
    ])
  )

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? null)

/** The elements reaching past the right edge when the page scrolls sideways; none when it does not. */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth
    if (document.documentElement.scrollWidth <= width) return []
    return [...document.querySelectorAll("body *")]
      .filter((element) => element.getBoundingClientRect().right > width)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}: ${element.textContent?.slice(0, 40)}`)
  })

describe("dashboard shell", () => {
  it("lists the screens by group in a sidebar, with the open incidents beside Incidents", async () => {
    const first = await openIncident("Queue stuck")
    const page = await suite.browser.context.newPage()
    await page.goto(`${suite.stack.baseUrl}/admin#/overview`)
    await page.getByLabel("E-mail").fill(adminEmail)
    await page.getByLabel("Password").fill(adminPassword)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()

    const nav = page.getByRole("navigation", { name: "Main" })
    await expect.poll(() => sidebar(page)).toEqual([
      ["Now", ["Overview", "Incidents 1 open", "Maintenance"]],
      ["Setup", ["Components", "Component groups", "Pages", "Monitors", "Probes", "Incident templates"]],
      ["Notify", ["Webhooks", "Subscribers"]],
      ["Team", ["Team", "Audit log"]],
      ["Settings", ["Settings"]]
    ])
    // Each group is a list named by its heading; the count is part of the link's name.
    expect(await nav.getByRole("list", { name: "Notify" }).getByRole("link").count()).toBe(2)
    await nav.getByRole("link", { name: "Incidents 1 open", exact: true }).waitFor()
    expect(await nav.getByRole("link", { name: "Overview" }).getAttribute("aria-current")).toBe("page")
    expect(await nav.getByRole("button", { name: "Menu" }).isVisible()).toBe(false)
    expect(await page.getByRole("banner").getByRole("link", { name: "Your account" }).isVisible()).toBe(true)
    await screenshot(page, "shell")

    // A screen change reads the count afresh.
    await openIncident("Search slow")
    await nav.getByRole("link", { name: /^Incidents/ }).click()
    await page.getByRole("heading", { name: "Incidents", level: 1 }).waitFor()
    await nav.getByRole("link", { name: "Incidents 2 open", exact: true }).waitFor()
    expect(await nav.getByRole("link", { name: /^Incidents/ }).getAttribute("aria-current")).toBe("page")
    expect(await nav.getByRole("link", { name: "Overview" }).getAttribute("aria-current")).toBeNull()

    // And so does a change made elsewhere, on the same screen: the live stream says incidents changed.
    await api((client) => client.incidents.resolve({ params: { id: first.id }, payload: null }))
    await nav.getByRole("link", { name: "Incidents 1 open", exact: true }).waitFor({ timeout: 2_000 })

    // A count that cannot be read is not shown (429: too many requests).
    await page.route("**/api/v1/admin/overview", (route) => route.fulfill({ status: 429, body: "" }))
    await nav.getByRole("link", { name: "Maintenance" }).click()
    await page.getByRole("heading", { name: "Maintenance", level: 1 }).waitFor()
    await nav.getByRole("link", { name: "Incidents", exact: true }).waitFor()
    await page.unroute("**/api/v1/admin/overview")
    await page.close()
  })

  it("folds the navigation behind Menu on a phone", async () => {
    const page = await openScreen("overview")
    await page.setViewportSize({ width: 390, height: 844 })
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
    const nav = page.getByRole("navigation", { name: "Main" })
    const menu = nav.getByRole("button", { name: "Menu" })
    const overview = nav.getByRole("link", { name: "Overview" })
    // The current screen's title stays in view in the header, and so do the open incidents.
    expect(await page.getByRole("banner").getByText("Overview", { exact: true }).isVisible()).toBe(true)
    await openIncident("Phone count")
    const count = page.getByRole("banner").getByRole("link", { name: /^Incidents \d+ open$/ })
    await count.waitFor()
    expect((await count.boundingBox())!.height).toBeGreaterThanOrEqual(44)
    await page.setViewportSize({ width: 1280, height: 844 })
    expect(await count.isVisible()).toBe(false)
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await menu.getAttribute("aria-expanded")).toBe("false")
    expect(await page.locator(`#${await menu.getAttribute("aria-controls")}`).isVisible()).toBe(false)
    expect((await menu.boundingBox())!.height).toBeGreaterThanOrEqual(44)

    // Opened, focus is on its first link; Escape folds it and focus returns to the button.
    await menu.click()
    expect(await menu.getAttribute("aria-expanded")).toBe("true")
    await expect.poll(() => focusedText(page)).toBe("Overview")
    expect((await overview.boundingBox())!.height).toBeGreaterThanOrEqual(44)
    await expectAccessible(page)
    await screenshot(page, "shell-menu-phone")
    await page.keyboard.press("Escape")
    await expect.poll(() => menu.getAttribute("aria-expanded")).toBe("false")
    expect(await overview.isVisible()).toBe(false)
    await expect.poll(() => page.evaluate(() => document.activeElement?.classList.contains("menu-button"))).toBe(true)

    // The button folds it too, and choosing a screen opens it and folds the menu.
    await menu.click()
    await menu.click()
    expect(await menu.getAttribute("aria-expanded")).toBe("false")
    await menu.click()
    await nav.getByRole("link", { name: /^Incidents/ }).click()
    await page.getByRole("heading", { name: "Incidents", level: 1 }).waitFor()
    await expect.poll(() => menu.getAttribute("aria-expanded")).toBe("false")
    expect(await page.getByRole("banner").getByText("Incidents", { exact: true }).isVisible()).toBe(true)
    await expect.poll(() => page.evaluate(() => document.activeElement?.classList.contains("menu-button"))).toBe(true)
    await page.close()
  })

  /** Every screen the navigation lists (as the owner sees it), and Your account: path and heading. */
  const everyScreen = async (page: Page) => [
    ...await page.getByRole("navigation", { name: "Main" }).locator(".nav-group a").evaluateAll((links) =>
      links.map((link) =>
        [
          link.getAttribute("href")!.slice("#/".length),
          link.childNodes[0]!.textContent!.trim()
        ] as const
      )
    ),
    ["account", "Your account"] as const
  ]

  const openOn = async (page: Page, screen: string, title: string) => {
    await page.goto(`${suite.stack.baseUrl}/admin#/${screen}`)
    await page.getByRole("heading", { name: title, level: 1 }).waitFor()
    await expect.poll(() => page.locator("[aria-busy=true]").count()).toBe(0)
  }

  it("does not scroll sideways at 320 px on any screen, the menu open or not", async () => {
    await openIncident("Cache cold")
    const page = await openScreen("overview")
    const screens = await everyScreen(page)
    expect(screens.length).toBeGreaterThanOrEqual(15)
    await page.setViewportSize({ width: 320, height: 640 })
    const menu = page.getByRole("button", { name: "Menu" })
    for (const [screen, title] of screens) {
      await openOn(page, screen, title)
      expect(await sidewaysOverflow(page), screen).toEqual([])
    }
    await menu.click()
    expect(await sidewaysOverflow(page)).toEqual([])
    await menu.click()
    await screenshot(page, "shell-320")
    await page.close()
  })

  // One test per colour scheme: each runs axe on every screen at two widths (17–18 s alone,
  // about twice that while the rest of the suite runs beside it).
  for (const colorScheme of ["light", "dark"] as const) {
    it(`has no accessibility violation on any screen at phone and desktop width, ${colorScheme}`, async () => {
      const page = await openScreen("overview")
      const screens = await everyScreen(page)
      await page.emulateMedia({ colorScheme })
      const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)
      expect(background).toBe(colorScheme === "dark" ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)")
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 844 })
        for (const [screen, title] of screens) {
          await openOn(page, screen, title)
          expect(await accessibilityViolations(page), `${screen} at ${width} px, ${colorScheme}`).toEqual([])
        }
        // On a phone, the open menu too.
        if (width === 390) {
          await page.getByRole("button", { name: "Menu" }).click()
          await expectAccessible(page)
          await page.keyboard.press("Escape")
        }
        await screenshot(page, `shell-${colorScheme}-${width}`)
      }
      await page.close()
    }, 120_000)
  }
})
