/**
 * The admin dashboard in a real browser (Debian's Chromium through playwright-core) against the
 * full stack on a loopback port: what an operator does, checked on screen and through the API.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { adminEmail, adminPassword, adminVariables } from "../support/Auth.js"
import { type Browser, launchBrowser, screenshot, seriousAccessibilityViolations } from "../support/Browser.js"
import { startLiveStack } from "../support/LiveStack.js"
import { ApiClient } from "../support/TestServer.js"

let stack: Awaited<ReturnType<typeof startLiveStack>>
let browser: Browser

beforeAll(async () => {
  stack = await startLiveStack(adminVariables)
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await stack?.dispose()
})

const api = <A, E>(request: (client: Effect.Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>) =>
  stack.run(Effect.flatMap(ApiClient, request))

/** A page on the given screen, signed in through the form if the browser has no session yet. */
const openScreen = async (screen: string): Promise<Page> => {
  const page = await browser.context.newPage()
  await page.goto(`${stack.baseUrl}/admin#/${screen}`)
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

const expectAccessible = async (page: Page) => {
  expect(await seriousAccessibilityViolations(page)).toEqual([])
}

describe("admin dashboard", () => {
  it("serves the shell and its content-addressed assets with caching headers", async () => {
    const shell = await fetch(`${stack.baseUrl}/admin`)
    expect(shell.status).toBe(200)
    expect(shell.headers.get("content-type")).toContain("text/html")
    expect(shell.headers.get("cache-control")).toBe("no-cache")
    expect(shell.headers.get("content-security-policy")).toContain("script-src 'self'")
    const html = await shell.text()
    const script = /src="(\/admin\/app\.js\?v=([\w-]+))"/.exec(html)
    const stylesheet = /href="(\/admin\/app\.css\?v=[\w-]+)"/.exec(html)
    expect(script).not.toBeNull()
    expect(stylesheet).not.toBeNull()

    const js = await fetch(`${stack.baseUrl}${script![1]}`)
    expect(js.status).toBe(200)
    expect(js.headers.get("content-type")).toContain("text/javascript")
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect((await js.text()).length).toBeGreaterThan(1000)
    const etag = js.headers.get("etag")!
    const revalidated = await fetch(`${stack.baseUrl}/admin/app.js`, { headers: { "if-none-match": etag } })
    expect(revalidated.status).toBe(304)
    expect(revalidated.headers.get("cache-control")).toBe("no-cache")
    const css = await fetch(`${stack.baseUrl}${stylesheet![1]}`)
    expect(css.headers.get("content-type")).toContain("text/css")
  })

  it("signs in with the session cookie and signs out", async () => {
    const page = await browser.context.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${stack.baseUrl}/admin`)
    await page.getByRole("heading", { name: "Sign in to the status admin" }).waitFor()
    await expectAccessible(page)
    await screenshot(page, "sign-in-phone")

    await page.getByLabel("E-mail").fill(adminEmail)
    await page.getByLabel("Password").fill("not the password")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("Invalid email or password")

    await page.getByLabel("Password").fill(adminPassword)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()
    const cookie = (await browser.context.cookies()).find((c) => c.name === "__Host-session")
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax", path: "/" })
    await page.reload()
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("heading", { name: "Sign in to the status admin" }).waitFor()
    await page.reload()
    await page.getByRole("heading", { name: "Sign in to the status admin" }).waitFor()
    await page.close()
  })

  it("creates a component and changes its status", async () => {
    const page = await openScreen("components")
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()
    const form = page.getByRole("form", { name: "New component" })
    await form.getByLabel("Name").fill("Checkout API")
    await form.getByLabel("Description").fill("Payments and carts")
    await form.getByRole("button", { name: "Create component" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Checkout API was created.")

    await page.getByLabel("Status of Checkout API").selectOption("major_outage")
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Checkout API is now major outage.")
    const stored = (await api((client) => client.components.list())).find((c) => c.name === "Checkout API")
    expect(stored).toMatchObject({ status: "major_outage", description: "Payments and carts", isPublic: true })

    // An empty name is refused, and the reason shows next to the field.
    await form.getByRole("button", { name: "Create component" }).click()
    await expect.poll(() => form.getByLabel("Name").getAttribute("aria-invalid")).toBe("true")
    expect(await form.locator("#new-component-name-error").textContent()).toBe("Must not be empty")

    await expectAccessible(page)
    await screenshot(page, "components")
    await page.setViewportSize({ width: 390, height: 844 })
    await expectAccessible(page)
    await screenshot(page, "components-phone")
    await page.close()
  })
})
