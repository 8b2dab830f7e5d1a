/**
 * Incident templates in the dashboard, in a real browser against the full stack: managing them
 * on their own screen, and opening an incident from one on the incidents screen, where the
 * template fills the form and the operator still edits it.
 */
import { describe, expect, it } from "@effect/vitest"

import { expectAccessible, expectFitsViewport, expectStatusMessage, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

describe("dashboard incident templates", () => {
  it("creates, edits and deletes templates, and opens an incident from one", async () => {
    const checkout = await api((client) => client.components.create({ payload: { name: "Checkout" } }))
    await api((client) =>
      client.incidentTemplates.create({ payload: { name: "Spare", title: "Spare title", message: "Spare message" } })
    )

    const templates = await openScreen("incident-templates")
    await templates.getByRole("heading", { name: "Incident templates", level: 1 }).waitFor()
    const form = templates.getByRole("form", { name: "New template" })
    await form.getByLabel("Template name").fill("Payments down")
    await form.getByLabel("Incident title").fill("Payments are failing")
    await form.getByLabel("Severity").selectOption("major")
    await form.getByLabel("Status").selectOption("identified")
    await form.getByLabel("Message").fill("Card payments fail; we know why.")
    await form.getByLabel("Checkout").check()
    await form.getByRole("button", { name: "Create template" }).click()
    await expectStatusMessage(templates, "The template Payments down was created.")

    const row = templates.getByRole("row").filter({ hasText: "Payments down" })
    await row.getByRole("button", { name: "Edit" }).click()
    const edit = row.getByRole("form", { name: "Edit Payments down" })
    await edit.getByLabel("Message").fill("Card payments fail at the provider.")
    await edit.getByRole("button", { name: "Save" }).click()
    await expectStatusMessage(templates, "The template Payments down was saved.")

    const spare = templates.getByRole("row").filter({ hasText: "Spare" })
    await spare.getByRole("button", { name: "Delete" }).click()
    await spare.getByRole("button", { name: "Delete Spare" }).click()
    await expectStatusMessage(templates, "The template Spare was deleted.")
    await expectAccessible(templates)
    await screenshot(templates, "incident-templates")

    const stored = await api((client) => client.incidentTemplates.list({ query: {} }))
    expect(stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({
      name: "Payments down",
      title: "Payments are failing",
      message: "Card payments fail at the provider.",
      severity: "major",
      status: "identified",
      componentIds: [checkout.id]
    })

    const incidents = await openScreen("incidents")
    const newIncident = incidents.getByRole("form", { name: "New incident" })
    await newIncident.getByLabel("Template").selectOption({ label: "Payments down" })
    await expect.poll(() => newIncident.getByLabel("Title").inputValue()).toBe("Payments are failing")
    expect(await newIncident.getByLabel("Message").inputValue()).toBe("Card payments fail at the provider.")
    expect(await newIncident.getByLabel("Severity").inputValue()).toBe("major")
    expect(await newIncident.getByLabel("Status").inputValue()).toBe("identified")
    expect(await newIncident.getByLabel("Checkout").isChecked()).toBe(true)
    // The operator adapts the template before opening.
    await newIncident.getByLabel("Title").fill("Payments failing in Europe")
    await expectAccessible(incidents)
    await newIncident.getByRole("button", { name: "Open incident" }).click()
    await expectStatusMessage(incidents, "Payments failing in Europe was opened.")

    const [opened] = await api((client) => client.incidents.list({ query: {} }))
    expect(opened).toMatchObject({
      title: "Payments failing in Europe",
      message: "Card payments fail at the provider.",
      severity: "major",
      status: "identified",
      componentIds: [checkout.id]
    })
    await incidents.close()

    // The longer navigation still fits a phone.
    await templates.setViewportSize({ width: 390, height: 844 })
    await templates.reload()
    await templates.getByRole("heading", { name: "Incident templates", level: 1 }).waitFor()
    await expect.poll(() => templates.title()).toBe("Incident templates · Status admin")
    await expectFitsViewport(templates)
    await expectAccessible(templates)
    await screenshot(templates, "incident-templates-phone")
    await templates.close()
  })
})
