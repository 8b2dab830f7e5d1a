/**
 * An operator's edit is not lost, in a real browser against the full stack. Two operators on one
 * item: an editor opened before someone else's change does not overwrite it. Saving is refused
 * (the dashboard sends the ETag it read the item with as `If-Match`), the form names the item and
 * keeps what was typed, and **Load their version** opens the form on the other change with the
 * typed text kept beside it ("Your text"). And a form with unsaved changes asks before the
 * operator leaves its screen or the page.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Dialog } from "playwright-core"

import { expectAccessible, expectStatusMessage, itemCard, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

describe("dashboard concurrent edits", () => {
  it("refuses to save over a change made since the editor opened, and loads their version on request", async () => {
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
    await expect.poll(() => alert.textContent()).toBe(
      "Someone else changed Checkout since you opened it, so your change was not saved."
    )
    expect(await edit.getByLabel("Name").inputValue()).toBe("Checkout API")
    const stored = await api((client) => client.components.get({ params: { id: component.id } }))
    expect(stored).toMatchObject({ name: "Checkout", description: "Card payments" })
    await expectAccessible(page)

    // Their version in the form, what was typed kept beside it; focus on the words saying so.
    await edit.getByRole("button", { name: "Load their version" }).click()
    await expect.poll(() => edit.getByLabel("Description").inputValue()).toBe("Card payments")
    expect(await edit.getByLabel("Name").inputValue()).toBe("Checkout")
    const yours = edit.getByRole("group", { name: "Your text" })
    expect(await yours.locator("dt").allTextContents()).toEqual(["Name"])
    expect(await yours.locator("dd").allTextContents()).toEqual(["Checkout API"])
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain(
      "This is their version of Checkout."
    )
    expect(await edit.getByRole("alert").count()).toBe(0)
    await expectAccessible(page)

    // Saved over the current version, the other change stays.
    await edit.getByLabel("Name").fill("Checkout API")
    await edit.getByRole("button", { name: "Save" }).click()
    await expectStatusMessage(page, "Checkout API was saved.")
    expect(await api((client) => client.components.get({ params: { id: component.id } }))).toMatchObject({
      name: "Checkout API",
      description: "Card payments"
    })
    await page.close()
  })

  it("refuses an incident update when someone else posted one meanwhile, keeping the message typed", async () => {
    const incident = await api((client) =>
      client.incidents.create({ payload: { title: "Login fails", message: "Logins fail for some." } })
    )
    const page = await openScreen("incidents")
    const card = itemCard(page, "Login fails")
    await card.getByRole("button", { name: "Post update" }).click()
    const form = card.getByRole("form", { name: "Update on Login fails" })
    await form.getByLabel("Message").waitFor()

    await api((client) =>
      client.incidents.addUpdate({
        params: { id: incident.id },
        payload: { status: "identified", message: "The identity provider is down." }
      })
    )

    await form.getByLabel("Message").fill("We are restarting the login service.")
    await form.getByRole("button", { name: "Post update" }).click()
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("Someone else changed Login fails")

    await form.getByRole("button", { name: "Load their version" }).click()
    // Their update moved the status on; the message typed is kept, not posted.
    await expect.poll(() => form.getByRole("group", { name: "Status" }).locator("input:checked").inputValue()).toBe(
      "identified"
    )
    expect(await form.getByLabel("Message").inputValue()).toBe("")
    expect(await form.getByRole("group", { name: "Your text" }).locator("dd").allTextContents()).toEqual([
      "We are restarting the login service."
    ])
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "incident-their-version")

    await form.getByLabel("Message").fill("We are restarting the login service.")
    await form.getByRole("button", { name: "Post update" }).click()
    await expectStatusMessage(page, "The update on Login fails was posted.")
    const updates = (await api((client) => client.incidents.get({ params: { id: incident.id } }))).updates
    expect(updates.map((update) => update.message)).toEqual([
      "Logins fail for some.",
      "The identity provider is down.",
      "We are restarting the login service."
    ])
    await page.close()
  })

  it("asks before leaving a screen or the page with unsaved changes, and not once they are saved", async () => {
    const page = await openScreen("maintenance")
    const dialogs: Array<{ readonly type: string; readonly message: string }> = []
    let answer: (dialog: Dialog) => Promise<void> = (dialog) => dialog.dismiss()
    page.on("dialog", (dialog) => {
      dialogs.push({ type: dialog.type(), message: dialog.message() })
      void answer(dialog)
    })
    const nav = page.getByRole("navigation", { name: "Main" })
    const form = page.getByRole("form", { name: "Schedule maintenance" })

    // Nothing typed: the screen changes without a question.
    await nav.getByRole("link", { name: "Components", exact: true }).click()
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()
    await nav.getByRole("link", { name: "Maintenance", exact: true }).click()
    await form.getByLabel("Title").fill("Network switch swap")
    expect(dialogs).toEqual([])

    // Declined: the screen, the address and the typed text stay.
    await nav.getByRole("link", { name: "Components", exact: true }).click()
    await expect.poll(() => dialogs.length).toBe(1)
    expect(dialogs[0]).toMatchObject({ type: "confirm", message: expect.stringContaining("unsaved changes") })
    // The link's new entry is stepped back from (history.back() answers a moment later).
    await expect.poll(() => new URL(page.url()).hash).toBe("#/maintenance")
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Maintenance")
    expect(await form.getByLabel("Title").inputValue()).toBe("Network switch swap")

    // Back, declined: the history is walked forward again, no entry overwritten; Back still
    // leads to the screen before (Components) once the question is answered yes.
    await page.goBack()
    await expect.poll(() => dialogs.length).toBe(2)
    await expect.poll(() => new URL(page.url()).hash).toBe("#/maintenance")
    expect(await form.getByLabel("Title").inputValue()).toBe("Network switch swap")
    answer = (dialog) => dialog.accept()
    await page.goBack()
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()
    expect(new URL(page.url()).hash).toBe("#/components")
    await page.goForward()
    await page.getByRole("heading", { name: "Maintenance", level: 1 }).waitFor()
    answer = (dialog) => dialog.dismiss()
    await form.getByLabel("Title").fill("Network switch swap")
    dialogs.length = 0

    // Closing the tab asks the browser's question; dismissed, the page stays.
    await page.close({ runBeforeUnload: true })
    await expect.poll(() => dialogs.length).toBe(1)
    expect(dialogs[0]!.type).toBe("beforeunload")
    expect(page.isClosed()).toBe(false)

    // Accepted: the screen changes.
    answer = (dialog) => dialog.accept()
    await nav.getByRole("link", { name: "Components", exact: true }).click()
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()
    expect(dialogs).toHaveLength(2)

    // Saved: nothing left to lose, nothing asked.
    await nav.getByRole("link", { name: "Maintenance", exact: true }).click()
    await form.getByLabel("Title").fill("Network switch swap")
    await form.getByLabel("Starts").fill("2031-05-01T22:00")
    await form.getByLabel("Ends").fill("2031-05-01T23:00")
    await form.getByRole("button", { name: "Schedule" }).click()
    await expectStatusMessage(page, "Network switch swap was scheduled.")
    await nav.getByRole("link", { name: "Components", exact: true }).click()
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()
    expect(dialogs).toHaveLength(2)
    await page.close({ runBeforeUnload: true })
    expect(dialogs).toHaveLength(2)
  })
})
