/**
 * Issue 23 in the dashboard, in a real browser against the full stack: a draft incident that sets
 * a component's status, published from its row; resolving it restores the component; an incident
 * a monitor opened shows who opened it and whether the automation still drives it; a monitor's
 * incident policy, template and resolve delay set in its form.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { ResultIngest } from "../../../src/services/monitoring/ResultIngest.js"
import {
  expectAccessible,
  expectFitsViewport,
  expectStatusMessage,
  itemCard,
  screenshot
} from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"
import { checkResult, slotOf } from "../../support/CheckResults.js"
import { ApiClient } from "../../support/TestServer.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

const componentStatus = async (id: string) =>
  (await api((client) => client.components.list({ query: {} }))).find((component) => component.id === id)?.status

const publicIncidentTitles = async () =>
  (await api((client) => client.status.incidents({ query: {} }))).map((incident) => incident.title)

describe("dashboard incident automation", () => {
  it("opens a draft that sets a component's status, publishes it, and resolves it restoring the component", async () => {
    const checkout = await api((client) => client.components.create({ payload: { name: "Checkout" } }))
    await api((client) => client.components.create({ payload: { name: "Search" } }))

    const page = await openScreen("incidents")
    await page.getByRole("heading", { name: "Incidents", level: 1 }).waitFor()
    const form = page.getByRole("form", { name: "New incident" })
    await form.getByLabel("Title").fill("Checkout errors")
    await form.getByLabel("Message").fill("Some card payments fail.")
    await form.getByLabel("Checkout").check()
    // The component's status menu appears under its checkbox once it is chosen.
    await form.getByRole("combobox", { name: "Set to" }).selectOption("major_outage")
    await form.getByLabel("Draft (publish later)").check()
    await expectAccessible(page)
    await form.getByRole("button", { name: "Open incident" }).click()
    await expectStatusMessage(page, "Checkout errors was opened.")

    const row = itemCard(page, "Checkout errors")
    await row.getByText("Draft", { exact: true }).waitFor()
    const [draft] = await api((client) => client.incidents.list({ query: {} }))
    expect(draft).toMatchObject({ title: "Checkout errors", published: false, componentIds: [checkout.id] })
    // The draft sets the status at once, but the public does not see the incident.
    expect(await componentStatus(checkout.id)).toBe("major_outage")
    expect(await publicIncidentTitles()).not.toContain("Checkout errors")
    await screenshot(page, "incident-draft")

    await row.getByRole("button", { name: "Publish Checkout errors" }).click()
    await expectStatusMessage(page, "Checkout errors was published.")
    await expect.poll(() => row.getByText("Draft", { exact: true }).count()).toBe(0)
    // What readers see, on the row: Checkout is public, so is the incident.
    await row.getByText("Public", { exact: true }).waitFor()
    expect(await row.getByRole("button", { name: "Publish" }).count()).toBe(0)
    expect(await publicIncidentTitles()).toContain("Checkout errors")

    await row.getByLabel("Restore components").check()
    await row.getByRole("button", { name: "Resolve", exact: true }).click()
    await row.getByRole("button", { name: "Resolve Checkout errors" }).click()
    await expectStatusMessage(page, "Checkout errors was resolved.")
    expect(await componentStatus(checkout.id)).toBe("operational")
    const [resolved] = await api((client) => client.incidents.list({ query: {} }))
    expect(resolved).toMatchObject({ status: "resolved", published: true })
    await expectAccessible(page)
    await page.close()
  })

  it("shows an incident a monitor opened, and its handover once an operator posts an update", async () => {
    const monitorId = await suite.stack.run(
      Effect.gen(function*() {
        const client = yield* ApiClient
        const component = yield* client.components.create({ payload: { name: "Storefront" } })
        const monitor = yield* client.monitors.create({
          payload: {
            componentId: component.id,
            type: "http",
            url: "https://storefront.example.test/health",
            failureThreshold: 1,
            regions: ["eu-west", "us-east"],
            incidentPolicy: "draft"
          }
        })
        // Both regions found it failing at its last run: down by quorum, which opens the incident.
        const failedAt = slotOf(monitor.id, Date.now() - 5_000)
        yield* (yield* ResultIngest).ingest([
          checkResult(monitor.id, "eu-west", failedAt, false),
          checkResult(monitor.id, "us-east", failedAt, false)
        ])
        return monitor.id
      }).pipe(Effect.provide(ResultIngest.layer))
    )
    const opened = (await api((client) => client.incidents.list({ query: {} }))).find((incident) =>
      incident.monitorId === monitorId
    )
    expect(opened).toMatchObject({ source: "monitor", automation: "active", published: false })

    const page = await openScreen("incidents")
    const row = itemCard(page, opened!.title)
    await row.getByText("Opened by monitor · automation active").waitFor()
    await row.getByText("Draft", { exact: true }).waitFor()
    await expectAccessible(page)

    await row.getByRole("button", { name: "Post update" }).click()
    const update = row.getByRole("form", { name: `Update on ${opened!.title}` })
    await update.getByLabel("Set Storefront to").selectOption("partial_outage")
    await update.getByLabel("Message").fill("We are on it.")
    await update.getByRole("button", { name: "Post update" }).click()
    await expectStatusMessage(page, `The update on ${opened!.title} was posted.`)
    await row.getByText("Opened by monitor · handed over to operators").waitFor()
    const handedOver = (await api((client) => client.incidents.list({ query: {} }))).find((incident) =>
      incident.id === opened!.id
    )
    expect(handedOver).toMatchObject({ automation: "handed_over", published: false })
    expect(await componentStatus(handedOver!.componentIds[0]!)).toBe("partial_outage")
    await page.close()
  })

  it("sets a monitor's incident policy, template and resolve delay, and reads well on a phone", async () => {
    const component = await api((client) => client.components.create({ payload: { name: "Payments" } }))
    const template = await api((client) =>
      client.incidentTemplates.create({
        payload: { name: "Payments down", title: "Payments are failing", message: "We are looking into it." }
      })
    )

    const page = await openScreen("monitors")
    await page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor()
    const form = page.getByRole("form", { name: "New monitor" })
    await form.getByLabel("Component").selectOption({ label: "Payments" })
    await form.getByLabel("URL").fill("https://payments.example.test/health")
    await form.getByLabel("Incident on outage").selectOption("draft")
    await form.getByLabel("Incident template").selectOption({ label: "Payments down" })
    await form.getByLabel("Resolve after (seconds)").fill("120")
    await form.getByRole("button", { name: "Create monitor" }).click()
    await expectStatusMessage(page, "The monitor of https://payments.example.test/health was created.")

    const [created] = (await api((client) => client.monitors.list({ query: {} }))).filter((m) =>
      m.componentId === component.id
    )
    expect(created).toMatchObject({
      incidentPolicy: "draft",
      incidentTemplateId: template.id,
      resolveAfterSeconds: 120
    })
    await page.getByRole("button", { name: "Details of Payments https://payments.example.test/health" }).click()
    const detail = page.getByRole("region", { name: "Payments https://payments.example.test/health" })
    await detail.getByText("on outage opens a draft incident from template Payments down, resolved after 120 s up", {
      exact: false
    }).waitFor()

    // The edit form starts from the stored values; out-of-range delays are the API's to refuse.
    await detail.getByRole("button", { name: "Edit" }).click()
    const edit = detail.getByRole("form", { name: "Edit the monitor of https://payments.example.test/health" })
    expect(await edit.getByLabel("Incident on outage").inputValue()).toBe("draft")
    expect(await edit.getByLabel("Incident template").inputValue()).toBe(template.id)
    expect(await edit.getByLabel("Resolve after (seconds)").inputValue()).toBe("120")
    await edit.getByLabel("Resolve after (seconds)").fill("90000")
    await edit.getByRole("button", { name: "Save" }).click()
    await expect.poll(() => edit.getByLabel("Resolve after (seconds)").getAttribute("aria-invalid")).toBe("true")
    await edit.getByLabel("Incident on outage").selectOption("publish")
    await edit.getByLabel("Incident template").selectOption("")
    await edit.getByLabel("Resolve after (seconds)").fill("0")
    await edit.getByRole("button", { name: "Save" }).click()
    await expectStatusMessage(page, "The monitor of https://payments.example.test/health was saved.")
    const saved = (await api((client) => client.monitors.list({ query: {} }))).find((m) => m.id === created!.id)
    expect(saved).toMatchObject({ incidentPolicy: "publish", incidentTemplateId: null, resolveAfterSeconds: 0 })
    await detail.getByText("on outage opens and publishes an incident from the default text, resolved after 0 s up", {
      exact: false
    }).waitFor()
    await expectAccessible(page)

    // Both screens still fit a phone with the new fields and row details.
    await page.setViewportSize({ width: 390, height: 844 })
    for (const screen of ["monitors", "incidents"]) {
      await page.goto(`${suite.stack.baseUrl}/admin#/${screen}`)
      await page.reload()
      await page.getByRole("heading", { level: 1 }).waitFor()
      await expectFitsViewport(page)
      await expectAccessible(page)
      await screenshot(page, `incident-automation-${screen}-phone`)
    }
    await page.close()
  })
})
