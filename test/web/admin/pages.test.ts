/**
 * The Pages screen in a real browser against the full stack: creating a page that shows two
 * components in a chosen order, reordering them from the keyboard, protecting the page, copying
 * its address, deleting it; the default page cannot be deleted.
 */
import { describe, expect, it } from "@effect/vitest"

import { expectAccessible, expectFitsViewport, expectStatusMessage, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

describe("dashboard pages", () => {
  it("creates a page with chosen components, reorders, protects, copies its address, deletes it and moves the default", async () => {
    const apiComponent = await api((client) => client.components.create({ payload: { name: "API" } }))
    const database = await api((client) => client.components.create({ payload: { name: "Database" } }))
    await api((client) => client.components.create({ payload: { name: "Search" } }))
    const baseUrl = suite.stack.baseUrl
    await suite.browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl })

    const page = await openScreen("pages")
    await page.getByRole("heading", { name: "Pages", level: 1 }).waitFor()
    await expect.poll(() => page.title()).toBe("Pages · Status admin")

    // The default page is listed at the site's root; its delete is disabled, with the reason.
    const defaultRow = page.getByRole("row").filter({ hasText: "The default page cannot be deleted" })
    await expect.poll(() => defaultRow.textContent()).toContain(`${baseUrl}/`)
    expect(await defaultRow.getByRole("button", { name: "Delete" }).isDisabled()).toBe(true)

    // A new page showing Database, then API.
    const form = page.getByRole("form", { name: "New page" })
    await form.getByLabel("Slug").fill("customers")
    await form.getByLabel("Title").fill("Customer status")
    await form.getByLabel("Language", { exact: true }).selectOption({ label: "Deutsch" })
    await form.getByLabel("English").check()
    await form.getByLabel("Chosen groups and components, in this order").check()
    const add = form.getByLabel("Add a group or component")
    await add.selectOption({ label: "Database" })
    await form.getByRole("button", { name: "Add", exact: true }).click()
    await add.selectOption({ label: "API" })
    await form.getByRole("button", { name: "Add", exact: true }).click()
    const preview = form.getByRole("region", { name: /Preview/ })
    await expect.poll(() => preview.getByRole("listitem").allTextContents()).toEqual(["Database", "API"])
    await form.getByRole("button", { name: "Add a link" }).click()
    await form.getByLabel("Link 1 label").fill("Support")
    await form.getByLabel("Link 1 address").fill("https://support.example.com/")
    await form.getByRole("button", { name: "Create page" }).click()
    await expectStatusMessage(page, "The page Customer status (customers) was created.")

    const created = (await api((client) => client.statusPages.list({ query: {} }))).find((p) => p.slug === "customers")!
    expect(created).toMatchObject({
      title: "Customer status",
      locale: "de",
      languages: ["de", "en"],
      audience: "public",
      isDefault: false,
      items: [{ type: "component", id: database.id }, { type: "component", id: apiComponent.id }],
      footerLinks: [{ label: "Support", url: "https://support.example.com/" }]
    })
    const row = page.getByRole("row").filter({ hasText: "customers" })
    await expect.poll(() => row.textContent()).toContain(`${baseUrl}/p/customers/`)
    expect(await row.getByRole("link", { name: /Open/ }).getAttribute("href")).toBe(`${baseUrl}/p/customers/`)
    await expectAccessible(page)

    // Reorder from the keyboard: API moves up, and focus stays on API's remaining move button.
    await row.getByRole("button", { name: "Edit" }).click()
    const edit = row.getByRole("form", { name: "Edit Customer status (customers)" })
    await edit.getByRole("button", { name: "Move up API" }).focus()
    await page.keyboard.press("Enter")
    const editPreview = edit.getByRole("region", { name: /Preview/ })
    await expect.poll(() => editPreview.getByRole("listitem").allTextContents()).toEqual(["API", "Database"])
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      "Move down API"
    )
    expect(await edit.getByRole("button", { name: "Move up API" }).isDisabled()).toBe(true)

    // Protected, with a password.
    await edit.getByLabel("Audience").selectOption("protected")
    await edit.getByLabel("Password").fill("correct horse battery")
    await edit.getByRole("button", { name: "Save" }).click()
    await expectStatusMessage(page, "The page Customer status (customers) was saved.")
    const saved = await api((client) => client.statusPages.get({ params: { id: created.id } }))
    expect(saved).toMatchObject({
      audience: "protected",
      items: [{ type: "component", id: apiComponent.id }, { type: "component", id: database.id }]
    })
    expect(saved).not.toHaveProperty("password")
    await expect.poll(() => row.textContent()).toContain("Protected (password)")
    await screenshot(page, "pages")

    // Copy the address.
    await row.getByRole("button", { name: "Copy address" }).click()
    await expect.poll(() => row.getByRole("status").textContent()).toBe("Copied")
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${baseUrl}/p/customers/`)

    // The API's refusal shows as other screens show it: a second page with the same slug.
    await form.getByLabel("Slug").fill("customers")
    await form.getByRole("button", { name: "Create page" }).click()
    await expect.poll(() => form.getByRole("alert").textContent()).toBe(
      "A status page with the slug \"customers\" already exists"
    )
    // A protected page cannot become the default: the row says why.
    await row.getByRole("button", { name: "Set as default" }).click()
    await expect.poll(() => row.getByRole("alert").textContent()).toContain("The default page is always public")

    // Delete, after confirming.
    await row.getByRole("button", { name: "Delete" }).click()
    await row.getByRole("button", { name: "Delete Customer status (customers)" }).click()
    await expectStatusMessage(page, "The page Customer status (customers) was deleted.")
    expect((await api((client) => client.statusPages.list({ query: {} }))).map((p) => p.slug)).toEqual(["default"])
    expect(await defaultRow.getByRole("button", { name: "Delete" }).isDisabled()).toBe(true)

    // Another page becomes the default: it moves to the site's root, and its delete is disabled.
    const pages = await api((client) => client.statusPages.list({ query: {} }))
    await api((client) => client.statusPages.create({ payload: { slug: "partners", title: "Partners" } }))
    await page.reload()
    const partnersRow = page.getByRole("row").filter({ hasText: "partners" })
    await partnersRow.getByRole("button", { name: "Set as default" }).click()
    await expectStatusMessage(page, `Partners (partners) is now the default page, at ${baseUrl}/.`)
    await expect.poll(() => partnersRow.getByRole("button", { name: "Delete" }).isDisabled()).toBe(true)
    expect(await partnersRow.getByRole("link", { name: /Open/ }).getAttribute("href")).toBe(`${baseUrl}/`)
    expect((await api((client) => client.statusPages.list({ query: {} }))).find((p) => p.isDefault)?.slug).toBe(
      "partners"
    )
    await api((client) => client.statusPages.update({ params: { id: pages[0]!.id }, payload: { isDefault: true } }))

    // A phone: the list and the form with chosen items fit 390 px.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.reload()
    await page.getByRole("heading", { name: "Pages", level: 1 }).waitFor()
    await form.getByLabel("Chosen groups and components, in this order").check()
    await add.selectOption({ label: "Search" })
    await form.getByRole("button", { name: "Add", exact: true }).click()
    await form.getByLabel("Audience").selectOption("protected")
    await expectFitsViewport(page)
    await expectAccessible(page)
    // The default page's editor, opened in its row.
    await defaultRow.getByRole("button", { name: "Edit" }).click()
    await defaultRow.getByRole("form").getByLabel("Slug").waitFor()
    await expectFitsViewport(page)
    await screenshot(page, "pages-phone")
    await page.close()
  })
})
