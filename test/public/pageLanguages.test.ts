/**
 * A status page in each of its languages, in a real browser, at phone width (390×844, as a phone
 * lays it out) and desktop width (1280×900): the page, an incident, the history and a maintenance
 * window all carry `<html lang>` of the language asked for with `?lang=` (and its words), and
 * nothing on them reaches past the screen's right edge (no sideways scrolling, no element or line
 * of text wider than the screen or sticking out of it), however long the translation. Each language is also checked with axe
 * at phone width and photographed there (test/artifacts/status-page/languages/).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { DateTime } from "effect"
import { chromium, type Page } from "playwright-core"

import type { ComponentGroupId } from "../../src/domain/ComponentGroup.js"
import { messagesFor } from "../../src/i18n/Messages.js"
import { type Browser, chromiumPath, expectAccessible, screenshot, unexpectedPageErrors } from "../support/Browser.js"
import { useBrowserStack } from "../support/BrowserStack.js"

const artifacts = "test/artifacts/status-page/languages"
const languages = ["en", "de", "fr", "es", "pt-BR", "ja", "zh-CN"] as const

const suite = useBrowserStack()
const { api } = suite

/**
 * Chromium emulating a phone: `isMobile` is a context's setting, and the suite's browser is one
 * persistent desktop context, so the phone gets a browser of its own, its page errors kept like
 * the suite's.
 */
const launchPhone = async (): Promise<Browser> => {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // As launchBrowser's (Playwright adds its own for background networking, sync and first run).
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic"]
  })
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true
  })
  const pageErrors: Array<string> = []
  context.on("weberror", (error) => pageErrors.push(String(error.error())))
  context.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text())
  })
  return { context, pageErrors, close: () => browser.close() }
}

/**
 * What reaches past the right edge of a `width` pixels wide screen: the document scrolling
 * sideways, a phone zooming out to fit it (its layout viewport grown past `width`), each element
 * of the header, main and footer wider than the screen or ending past it, and each line of text
 * spilling out of its box past it (a word too long to wrap: its box still fits), each named by a
 * selector and its text. What an ancestor clips (visually hidden text, a scrolling block) reaches
 * nowhere.
 */
const overflowAt = (page: Page, width: number) =>
  page.evaluate((width) => {
    const selector = (element: Element) => {
      const steps: Array<string> = []
      for (let at: Element | null = element; at !== null && at !== document.body; at = at.parentElement) {
        const classes = [...at.classList].map((name) => `.${name}`).join("")
        const siblings = at.parentElement === null
          ? []
          : [...at.parentElement.children].filter((sibling) => sibling.tagName === at!.tagName)
        const nth = siblings.length > 1 ? `:nth-of-type(${siblings.indexOf(at) + 1})` : ""
        steps.unshift(`${at.tagName.toLowerCase()}${at.id === "" ? "" : `#${at.id}`}${classes}${nth}`)
      }
      return steps.join(" > ")
    }
    const clipped = (node: Node) => {
      for (let at = node.parentElement; at !== null; at = at.parentElement) {
        const style = getComputedStyle(at)
        if (style.overflowX !== "visible" || style.clip !== "auto") return true
      }
      return false
    }
    const offender = (element: Element, box: DOMRect, what: string) =>
      `${selector(element)}${what} (${Math.round(box.left)}–${Math.round(box.right)}px, ${
        Math.round(box.right - width)
      }px past the edge): "${(element.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 80)}"`

    const found: Array<string> = []
    if (window.innerWidth !== width) found.push(`the layout viewport is ${window.innerWidth}px wide, not ${width}px`)
    const scrollWidth = document.documentElement.scrollWidth
    if (scrollWidth > window.innerWidth) {
      found.push(`the page is ${scrollWidth}px wide: ${scrollWidth - window.innerWidth}px of sideways scrolling`)
    }
    for (const region of document.querySelectorAll("header, main, footer")) {
      for (const element of [region, ...region.querySelectorAll("*")]) {
        const box = element.getBoundingClientRect()
        if ((box.width === 0 && box.height === 0) || clipped(element)) continue
        if (box.width > width || box.right > width + 1) found.push(offender(element, box, ""))
      }
      const texts = document.createTreeWalker(region, NodeFilter.SHOW_TEXT)
      for (let text = texts.nextNode(); text !== null; text = texts.nextNode()) {
        const parent = text.parentElement
        if (parent === null || (text.textContent ?? "").trim() === "" || clipped(text)) continue
        const range = document.createRange()
        range.selectNodeContents(text)
        for (const line of range.getClientRects()) {
          if (line.right > width + 1) found.push(offender(parent, line, " (its text)"))
        }
      }
    }
    return found
  }, width)

describe("a status page in each of its languages", () => {
  let phone: Browser
  let pages: { phone: Page; desktop: Page }
  let paths: Record<"status" | "incident" | "history" | "maintenance", string>

  beforeAll(async () => {
    const component = (name: string, groupId?: ComponentGroupId) =>
      api((client) => client.components.create({ payload: groupId === undefined ? { name } : { name, groupId } }))
    const group = await api((client) => client.componentGroups.create({ payload: { name: "Customer platform" } }))
    const checkout = await component("Checkout and payment processing")
    const notifications = await component("E-mail and push notification delivery")
    await component("Customer dashboard and account management", group.id)
    await component("Public REST API (api.example.com)")
    await component("Search indexing and full-text queries")
    await component("File uploads and media storage")
    await component("Single sign-on (SAML and OpenID Connect)")
    const reports = await component("Scheduled reports and data exports")

    const open = await api((client) =>
      client.incidents.create({
        payload: {
          title: "Payments declined and notifications delayed for some customers in Europe",
          message: "Some card payments are declined and order confirmations arrive late. We are investigating.",
          severity: "major",
          componentIds: [checkout.id, notifications.id]
        }
      })
    )
    await api((client) =>
      client.incidents.addUpdate({
        params: { id: open.id },
        payload: {
          status: "identified",
          message: "A certificate rotation at our payment provider broke the connection; we are rolling it back."
        }
      })
    )
    await api((client) =>
      client.incidents.addUpdate({
        params: { id: open.id },
        payload: {
          status: "monitoring",
          message: "Payments go through again; the queued notifications are being sent. We are watching closely."
        }
      })
    )
    const resolved = await api((client) =>
      client.incidents.create({
        payload: {
          title: "Slow search results",
          message: "Searches take several seconds.",
          severity: "minor",
          componentIds: [checkout.id]
        }
      })
    )
    await api((client) =>
      client.incidents.resolve({ params: { id: resolved.id }, payload: { message: "An index rebuild fixed it." } })
    )
    const start = Date.now() + 86_400_000
    const window = await api((client) =>
      client.maintenance.create({
        payload: {
          title: "Database upgrade for scheduled reports and exports",
          description: "Reports and exports pause for up to two hours while we upgrade their database.",
          scheduledStart: DateTime.makeUnsafe(start),
          scheduledEnd: DateTime.makeUnsafe(start + 2 * 3_600_000),
          componentIds: [reports.id]
        }
      })
    )
    await api((client) =>
      client.statusPages.create({
        payload: { slug: "world", title: "Acme", languages: [...languages], locale: "en", items: null }
      })
    )
    paths = {
      status: "/p/world/",
      incident: `/p/world/incidents/${open.id}`,
      history: "/p/world/history",
      maintenance: `/p/world/maintenance/${window.id}`
    }

    phone = await launchPhone()
    pages = { phone: await phone.context.newPage(), desktop: await suite.browser.context.newPage() }
    // The snapshot is rebuilt just after a change: wait until the page shows the last thing made
    // (in beforeAll, where expect.poll may not run).
    await vi.waitFor(async () => {
      const response = await pages.desktop.goto(`${suite.stack.baseUrl}${paths.status}`)
      expect(response?.status()).toBe(200)
      expect(await pages.desktop.locator("main").textContent()).toContain(
        "Database upgrade for scheduled reports and exports"
      )
    }, { timeout: 5000, interval: 100 })
  })

  afterEach(() => {
    expect(unexpectedPageErrors(phone)).toEqual([])
  })

  afterAll(async () => {
    await phone?.close()
  })

  for (const language of languages) {
    it(`fits phone and desktop screens in ${language}`, async () => {
      for (const [device, width] of [["phone", 390], ["desktop", 1280]] as const) {
        const page = pages[device]
        for (const [name, path] of Object.entries(paths)) {
          const response = await page.goto(`${suite.stack.baseUrl}${path}?lang=${encodeURIComponent(language)}`)
          expect(response?.status(), `${path} in ${language}`).toBe(200)
          expect(await page.evaluate(() => document.documentElement.lang), `${name} page`).toBe(language)
          if (name === "history") {
            // In the language's own words, not English under another tag.
            expect(await page.locator("main h1").textContent()).toBe(messagesFor(language).page.historyTitle)
          }
          // Soft: every page and width of the language is measured, and all that overflow are reported.
          expect.soft(await overflowAt(page, width), `${name} page in ${language} at ${width}px`).toEqual([])
          if (device === "phone" && name === "status") {
            await expectAccessible(page)
            await screenshot(page, language, artifacts)
          }
        }
      }
    })
  }
})
