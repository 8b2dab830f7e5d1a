/**
 * Debian's Chromium driven by playwright-core, headless, on a fresh profile per launch, plus
 * what the browser tests check with it: screenshots kept under test/artifacts/ and axe-core
 * injected into the page.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import axe from "axe-core"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { expect } from "vitest"

import { adminEmail, adminPassword } from "./Auth.js"

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
export const artifactsDirectory = "test/artifacts/dashboard"

const chromiumFlags = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

export interface Browser {
  readonly context: BrowserContext
  /** Uncaught exceptions and console errors of every page so far. */
  readonly pageErrors: Array<string>
  readonly close: () => Promise<void>
}

/** `javaScriptEnabled: false` checks that pages work for visitors without scripts. */
export const launchBrowser = async (options: { readonly javaScriptEnabled?: boolean } = {}): Promise<Browser> => {
  const userDataDir = await mkdtemp(join(tmpdir(), "sps-chromium-"))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumFlags,
    viewport: { width: 1280, height: 900 },
    javaScriptEnabled: options.javaScriptEnabled ?? true
  })
  const pageErrors: Array<string> = []
  context.on("weberror", (error) => pageErrors.push(String(error.error())))
  context.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text())
  })
  return {
    context,
    pageErrors,
    close: async () => {
      await context.close()
      await rm(userDataDir, { recursive: true, force: true })
    }
  }
}

export const screenshot = async (page: Page, name: string, directory = artifactsDirectory) => {
  await mkdir(directory, { recursive: true })
  await page.screenshot({ path: join(directory, `${name}.png`), fullPage: true })
}

export interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<unknown> }>
}

/** The serious and critical axe-core violations on the page as it is now. */
export const seriousAccessibilityViolations = async (page: Page): Promise<Array<AxeViolation>> =>
  (await accessibilityViolations(page)).filter((violation) =>
    violation.impact === "serious" || violation.impact === "critical"
  )

/** Every axe-core violation on the page as it is now, whatever its impact. */
export const accessibilityViolations = async (page: Page): Promise<Array<AxeViolation>> => {
  // Evaluated through the DevTools protocol, so the page's CSP (scripts from 'self' only) allows it.
  await page.evaluate(axe.source)
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: typeof axe }).axe.run(document, {
      resultTypes: ["violations"]
    })
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target }))
    }))
  })
  return violations
}

/** A page on the dashboard screen `screen`, signed in through the form if the browser has no session yet. */
export const openAdminScreen = async (browser: Browser, baseUrl: string, screen: string): Promise<Page> => {
  const page = await browser.context.newPage()
  await page.goto(`${baseUrl}/admin#/${screen}`)
  const signIn = page.getByRole("heading", { name: "Sign in to the status admin" })
  const nav = page.getByRole("navigation", { name: "Main" })
  await expect.poll(async () => (await signIn.isVisible()) || (await nav.isVisible())).toBe(true)
  if (await signIn.isVisible()) {
    await page.getByLabel("E-mail").fill(adminEmail)
    await page.getByLabel("Password").fill(adminPassword)
    await page.getByRole("button", { name: "Sign in" }).click()
    await nav.waitFor()
  }
  return page
}

/**
 * Page errors since the last call, less the browser's own "Failed to load resource" line for a
 * 4xx the page shows in words: uncaught exceptions and logged errors are bugs.
 */
export const unexpectedPageErrors = (browser: Browser) =>
  browser.pageErrors.splice(0).filter((error) =>
    !error.startsWith("Failed to load resource: the server responded with a status of 4")
  )

export const expectAccessible = async (page: Page) => {
  expect(await seriousAccessibilityViolations(page)).toEqual([])
}

/**
 * Once the screen has loaded (nothing `aria-busy`), the page is no wider than its viewport: no
 * sideways scrolling on a phone. On failure it names the elements reaching past the edge.
 */
export const expectFitsViewport = async (page: Page) => {
  await expect.poll(() => page.locator("[aria-busy=true]").count()).toBe(0)
  const overflow = () =>
    page.evaluate(() => {
      const width = window.innerWidth
      if (document.documentElement.scrollWidth <= width) return []
      return [...document.querySelectorAll("body *")]
        .filter((element) => element.getBoundingClientRect().right > width)
        .map((element) => `${element.tagName.toLowerCase()}: ${(element.textContent ?? "").trim().slice(0, 60)}`)
    })
  await expect.poll(overflow).toEqual([])
}

/** Reads the dashboard's status line until it says `message`. */
export const expectStatusMessage = (page: Page, message: string) =>
  expect.poll(() => page.getByRole("status").first().textContent()).toBe(message)

/** Fills and submits the incidents screen's "New incident" form. */
export const openIncidentInDashboard = async (
  page: Page,
  incident: {
    readonly title: string
    readonly message: string
    readonly components: ReadonlyArray<string>
    readonly severity?: string
  }
) => {
  const form = page.getByRole("form", { name: "New incident" })
  await form.getByLabel("Title").fill(incident.title)
  if (incident.severity !== undefined) await form.getByLabel("Severity").selectOption(incident.severity)
  await form.getByLabel("Message").fill(incident.message)
  for (const component of incident.components) await form.getByLabel(component).check()
  await form.getByRole("button", { name: "Open incident" }).click()
  await expectStatusMessage(page, `${incident.title} was opened.`)
}

/**
 * The cards of the items titled `title` on a screen that lists them as cards (incidents,
 * maintenance): each card is an article named by its title.
 */
export const itemCard = (page: Page, title: string) => page.getByRole("article", { name: title, exact: true })

/** Posts an update on the incident titled `title` from its card on the incidents screen; returns the card. */
export const postIncidentUpdateInDashboard = async (page: Page, title: string, status: string, message: string) => {
  const card = itemCard(page, title)
  await card.getByRole("button", { name: "Post update" }).click()
  const update = card.getByRole("form", { name: `Update on ${title}` })
  // The status is a row of radio buttons: one tap.
  await update.getByRole("group", { name: "Status" }).locator(`input[value="${status}"]`).check()
  await update.getByLabel("Message").fill(message)
  await update.getByRole("button", { name: "Post update" }).click()
  await expectStatusMessage(page, `The update on ${title} was posted.`)
  return card
}
