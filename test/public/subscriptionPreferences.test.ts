/**
 * Per-component subscriptions in a real browser against the full stack and a real SMTP server:
 * the subscribe form's component checkboxes, the preferences page a mail links to (accessible,
 * and working without JavaScript), and the components in the dashboard's subscriber list.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

import { expectAccessible, launchBrowser, openAdminScreen, screenshot } from "../support/Browser.js"
import { useBrowserStackWithSmtp } from "../support/BrowserStack.js"

const artifacts = "test/artifacts/subscription-preferences"

const suite = useBrowserStackWithSmtp()

const { api } = suite

const subscriber = async (email: string) =>
  (await api((client) => client.subscribers.list({ query: {} }))).find((s) => s.email === email)

/** The preferences link of `email`, as every notification mail carries it, on this test server. */
const preferencesPath = async (email: string) => {
  const [row] = await suite.stack.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ unsubscribeToken: string }>`select unsubscribe_token from subscribers where email = ${email}`
    )
  )
  return `/subscription?${new URLSearchParams({ email, token: row!.unsubscribeToken }).toString()}`
}

describe("per-component subscriptions in a browser", () => {
  it("subscribes to ticked components, changes them on the preferences page, and unsubscribes there", async () => {
    const checkout = await api((client) => client.components.create({ payload: { name: "Checkout" } }))
    const search = await api((client) => client.components.create({ payload: { name: "Search" } }))
    await api((client) => client.components.create({ payload: { name: "Back office", isPublic: false } }))

    const page = await suite.browser.context.newPage()
    await expect.poll(async () => {
      await page.goto(`${suite.stack.baseUrl}/`)
      return page.getByRole("group", { name: "Components" }).getByLabel("Search").isVisible()
    }, { timeout: 5000 }).toBe(true)
    const choices = page.getByRole("group", { name: "Components" })
    // Only public components are offered, none ticked (every component).
    expect(await choices.getByRole("checkbox").count()).toBe(2)
    expect(await choices.getByRole("checkbox", { checked: true }).count()).toBe(0)
    await expectAccessible(page)
    await screenshot(page, "subscribe-form", artifacts)

    // A refused address keeps the ticks.
    await choices.getByLabel("Checkout").check()
    await page.getByLabel("E-mail address").fill("not-an-address")
    await page.getByRole("button", { name: "Subscribe" }).click()
    await expect.poll(() => page.getByLabel("E-mail address").getAttribute("aria-invalid")).toBe("true")
    expect(await page.getByRole("group", { name: "Components" }).getByLabel("Checkout").isChecked()).toBe(true)

    const before = suite.smtp.messages.length
    await page.getByLabel("E-mail address").fill("shopper@example.com")
    await page.getByRole("button", { name: "Subscribe" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toContain("a confirmation link is on its way")
    const mail = (await Effect.runPromise(suite.smtp.waitFor(before + 1))).at(-1)!
    const link = /https?:\/\/[^\s"<>]+\/subscribe\/verify\/[\w-]+/.exec(mail.parsed.text ?? "")![0]
    await page.goto(`${suite.stack.baseUrl}${new URL(link).pathname}`)
    await page.getByRole("button", { name: "Confirm subscription" }).click()
    await page.getByRole("heading", { name: "Subscription confirmed", level: 1 }).waitFor()
    expect(await subscriber("shopper@example.com")).toMatchObject({ verified: true, componentIds: [checkout.id] })

    // The preferences page: its GET shows the choice (axe needs script, so it checks this one)…
    await page.goto(`${suite.stack.baseUrl}${await preferencesPath("shopper@example.com")}`)
    await page.getByRole("heading", { name: "Your subscription", level: 1 }).waitFor()
    expect(await page.getByRole("form", { name: "Choose what you hear about" }).getByLabel("Checkout").isChecked())
      .toBe(true)
    await expectAccessible(page)
    await screenshot(page, "preferences", artifacts)

    // …and without JavaScript its forms change it.
    const noScript = await launchBrowser({ javaScriptEnabled: false })
    try {
      const prefs = await noScript.context.newPage()
      await prefs.goto(`${suite.stack.baseUrl}${await preferencesPath("shopper@example.com")}`)
      await prefs.getByRole("heading", { name: "Your subscription", level: 1 }).waitFor()
      const form = prefs.getByRole("form", { name: "Choose what you hear about" })
      expect(await form.getByLabel("Checkout").isChecked()).toBe(true)
      expect(await form.getByLabel("Search").isChecked()).toBe(false)

      await form.getByLabel("Search").check()
      await form.getByRole("button", { name: "Save choices" }).click()
      await prefs.getByRole("status").filter({ hasText: "Saved" }).waitFor()
      expect(await prefs.getByRole("status").textContent()).toContain("Saved: you hear about Checkout, Search")
      expect((await subscriber("shopper@example.com"))!.componentIds!.toSorted()).toEqual(
        [checkout.id, search.id].toSorted()
      )
      expect(
        await prefs.getByRole("form", { name: "Choose what you hear about" }).getByLabel("Search").isChecked()
      ).toBe(true)
      expect(noScript.pageErrors).toEqual([])
      await prefs.close()
    } finally {
      await noScript.close()
    }

    // The dashboard lists the components each subscriber chose.
    const admin = await openAdminScreen(suite.browser, suite.stack.baseUrl, "subscribers")
    const row = admin.getByRole("row").filter({ has: admin.getByRole("rowheader", { name: "shopper@example.com" }) })
    await expect.poll(() => row.textContent()).toMatch(/Checkout, Search|Search, Checkout/)
    await expectAccessible(admin)
    await admin.close()

    await page.goto(`${suite.stack.baseUrl}${await preferencesPath("shopper@example.com")}`)
    await page.getByRole("button", { name: "Unsubscribe shopper@example.com" }).click()
    await page.getByRole("heading", { name: "Unsubscribed", level: 1 }).waitFor()
    expect(await subscriber("shopper@example.com")).toBeUndefined()
    await page.close()
  })

  it("says so, and changes nothing, for a link whose token is wrong", async () => {
    const page = await suite.browser.context.newPage()
    const response = await page.goto(`${suite.stack.baseUrl}/subscription?email=a%40example.com&token=wrong`)
    expect(response!.status()).toBe(404)
    await page.getByRole("heading", { name: "Link not valid", level: 1 }).waitFor()
    expect(await page.getByRole("button").count()).toBe(0)
    await expectAccessible(page)
    await page.close()
  })
})
