/**
 * Two operators on one item, in a real browser against the full stack: an editor opened before
 * someone else's change does not overwrite it. Saving is refused (the dashboard sends the ETag it
 * read the item with as `If-Match`), the form says why and keeps what was typed, and reopening the
 * editor shows the other change and saves on top of it.
 */
import { describe, expect, it } from "@effect/vitest"

import { expectAccessible } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

describe("dashboard concurrent edits", () => {
  it("refuses to save over a change made since the editor opened, and says so", async () => {
    const component = await api((client) =>
      client.components.create({ payload: { name: "Checkout", description: "Payments" } })
    )
    const page = await openScreen("components")
    const row = page.getByRole("row").filter({ hasText: "Checkout" })
    await row.getByRole("button", { name: "Edit" }).click()
    const edit = row.getByRole("form", { name: "Edit Checkout" })
    await edit.getByLabel("Description").waitFor()

    // Someone else changes it while the form is open.
    await api((client) =>
      client.components.update({ params: { id: component.id }, payload: { description: "Card payments" } })
    )

    await edit.getByLabel("Name").fill("Checkout API")
    await edit.getByRole("button", { name: "Save" }).click()
    const alert = edit.getByRole("alert")
    await expect.poll(() => alert.textContent()).toContain("Someone else changed")
    expect(await edit.getByLabel("Name").inputValue()).toBe("Checkout API")
    const stored = await api((client) => client.components.get({ params: { id: component.id } }))
    expect(stored).toMatchObject({ name: "Checkout", description: "Card payments" })
    await expectAccessible(page)

    // Reopened, the editor shows the other change and saves over the current version.
    await edit.getByRole("button", { name: "Cancel" }).click()
    await row.getByRole("button", { name: "Edit" }).click()
    const again = row.getByRole("form", { name: "Edit Checkout" })
    await expect.poll(() => again.getByLabel("Description").inputValue()).toBe("Card payments")
    await again.getByLabel("Name").fill("Checkout API")
    await again.getByRole("button", { name: "Save" }).click()
    await expect.poll(async () => (await api((client) => client.components.get({ params: { id: component.id } }))).name)
      .toBe("Checkout API")
    expect((await api((client) => client.components.get({ params: { id: component.id } }))).description)
      .toBe("Card payments")
    await page.close()
  })
})
