/**
 * The admin dashboard in a real browser (Debian's Chromium through playwright-core) against the
 * full stack on a loopback port: what an operator does, checked on screen and through the API.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Scope } from "effect"

import { adminEmail, adminPassword } from "../../support/Auth.js"
import {
  expectAccessible,
  expectFitsViewport,
  expectStatusMessage,
  itemCard,
  openIncidentInDashboard,
  postIncidentUpdateInDashboard,
  screenshot
} from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"
import { answerWith, receiver } from "../../support/Receiver.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

describe("admin dashboard", () => {
  it("serves the shell and its content-addressed assets with caching headers", async () => {
    const shell = await fetch(`${suite.stack.baseUrl}/admin`)
    expect(shell.status).toBe(200)
    expect(shell.headers.get("content-type")).toContain("text/html")
    expect(shell.headers.get("cache-control")).toBe("no-cache")
    expect(shell.headers.get("content-security-policy")).toContain("script-src 'self'")
    const html = await shell.text()
    const script = /src="(\/admin\/app\.js\?v=([\w-]+))"/.exec(html)
    const stylesheet = /href="(\/admin\/app\.css\?v=[\w-]+)"/.exec(html)
    expect(script).not.toBeNull()
    expect(stylesheet).not.toBeNull()

    const js = await fetch(`${suite.stack.baseUrl}${script![1]}`)
    expect(js.status).toBe(200)
    expect(js.headers.get("content-type")).toContain("text/javascript")
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    const scriptText = await js.text()
    expect(scriptText.length).toBeGreaterThan(1000)
    const etag = js.headers.get("etag")!
    const revalidated = await fetch(`${suite.stack.baseUrl}/admin/app.js`, { headers: { "if-none-match": etag } })
    expect(revalidated.status).toBe(304)
    expect(revalidated.headers.get("cache-control")).toBe("no-cache")
    // Node's fetch asks for gzip and unpacks it; without the header the bytes come plain and equal.
    expect(js.headers.get("content-encoding")).toBe("gzip")
    const plain = await fetch(`${suite.stack.baseUrl}${script![1]}`, { headers: { "accept-encoding": "identity" } })
    expect(plain.headers.get("content-encoding")).toBeNull()
    expect(await plain.text()).toBe(scriptText)
    const css = await fetch(`${suite.stack.baseUrl}${stylesheet![1]}`)
    expect(css.headers.get("content-type")).toContain("text/css")
  })

  it("signs in with the session cookie and signs out", async () => {
    const page = await suite.browser.context.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${suite.stack.baseUrl}/admin`)
    await page.getByRole("heading", { name: "Sign in to the status admin" }).waitFor()
    await expectAccessible(page)
    await screenshot(page, "sign-in-phone")

    await page.getByLabel("E-mail").fill(adminEmail)
    await page.getByLabel("Password").fill("not the password")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("Invalid email or password")

    await page.getByLabel("Password").fill(adminPassword)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
    const cookie = (await suite.browser.context.cookies()).find((c) => c.name === "__Host-session")
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax", path: "/" })
    await page.reload()
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()

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
    const stored = (await api((client) => client.components.list({ query: {} }))).find((c) => c.name === "Checkout API")
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

  it("creates an API key, shows it once with a copy button, lists its prefix and deletes it", async () => {
    const page = await openScreen("settings")
    const form = page.getByRole("form", { name: "New API key" })
    await form.getByLabel("Name").fill("deploy bot")
    await form.getByRole("button", { name: "Create API key" }).click()
    const shown = page.getByRole("status", { name: "New API key", exact: true })
    await shown.waitFor()
    const key = (await shown.textContent())!
    expect(key).toMatch(/^svc_[A-Za-z0-9]{32}$/)
    await expect.poll(() => page.getByRole("button", { name: "Copy key" }).isVisible()).toBe(true)

    // The key works, and the list shows its prefix, never the key.
    const me = await fetch(`${suite.stack.baseUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${key}` } })
    expect(me.status).toBe(200)
    const row = page.getByRole("row").filter({ hasText: "deploy bot" })
    await expect.poll(() => row.textContent()).toContain(key.slice(0, 12))
    await expectAccessible(page)
    await screenshot(page, "settings-api-key-created")

    await page.reload()
    await page.getByRole("heading", { name: "API keys" }).waitFor()
    await expect.poll(() => row.textContent()).toContain(key.slice(0, 12))
    expect(await page.content()).not.toContain(key)
    // Used once above: the list says when.
    expect(await row.locator("td").nth(2).locator("time").count()).toBe(1)

    await row.getByRole("button", { name: "Delete" }).click()
    await row.getByRole("button", { name: "Delete deploy bot" }).click()
    await expect.poll(() => page.getByText("The key deploy bot was deleted.").isVisible()).toBe(true)
    expect(
      (await fetch(`${suite.stack.baseUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${key}` } })).status
    )
      .toBe(401)
    await page.close()
  })

  it("creates a generic webhook, shows its secret once and tests it against a real receiver", async () => {
    const scope = Effect.runSync(Scope.make())
    const hook = await Effect.runPromise(Scope.provide(receiver(answerWith(204)), scope))
    const payments = await api((client) => client.components.create({ payload: { name: "Payments" } }))
    try {
      const page = await openScreen("webhooks")
      const form = page.getByRole("form", { name: "New webhook" })
      await form.getByLabel("Name").fill("Ops receiver")
      await form.getByLabel("URL").fill(hook.url)
      await form.getByLabel("Format").selectOption("generic")
      await form.getByRole("group", { name: "Only about these components" }).getByLabel("Payments").check()
      await form.getByRole("button", { name: "Create webhook" }).click()
      const secret = page.getByRole("status", { name: "Signing secret", exact: true })
      await secret.waitFor()
      expect(await secret.textContent()).toMatch(/^[0-9a-f]{64}$/)

      const row = page.getByRole("row").filter({ hasText: "Ops receiver" })
      await row.getByRole("button", { name: "Test Ops receiver" }).click()
      await expect.poll(() => row.getByText(/^Test: /).textContent()).toMatch(/^Test: Delivered: HTTP 204 in \d+ ms\.$/)
      expect(hook.received).toHaveLength(1)
      expect(JSON.parse(hook.received[0]!.body)).toMatchObject({ event: "incident.created", data: { test: true } })

      await row.getByRole("button", { name: "Deliveries of Ops receiver" }).click()
      await expect.poll(() => row.getByRole("table", { name: "Recent deliveries of Ops receiver" }).textContent())
        .toContain("incident.created")

      await row.getByRole("button", { name: "Active Ops receiver" }).click()
      await expect.poll(() => page.getByText("Ops receiver is now paused.").isVisible()).toBe(true)
      expect((await api((client) => client.webhooks.list({ query: {} }))).find((w) => w.name === "Ops receiver"))
        .toMatchObject({ isActive: false, type: "generic", componentIds: [payments.id] })
      expect(await row.textContent()).toContain("Payments")
      await expectAccessible(page)
      await screenshot(page, "webhooks")

      await page.reload()
      await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor()
      await expect.poll(() => page.getByRole("row").filter({ hasText: "Ops receiver" }).count()).toBe(1)
      expect(await page.getByRole("status", { name: "Signing secret", exact: true }).count()).toBe(0)
      await page.close()
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("creates and edits a monitor, and shows the API's objection next to the field", async () => {
    await api((client) => client.components.create({ payload: { name: "Search" } }))
    const page = await openScreen("monitors")
    const form = page.getByRole("form", { name: "New monitor" })
    await form.getByLabel("Component").selectOption({ label: "Search" })
    await form.getByLabel("Check").selectOption("http")
    await form.getByLabel("URL").fill("https://search.example.test/health")
    await form.getByLabel("Interval (seconds)").fill("30")
    await form.getByLabel("Expected status code").fill("204")
    await form.getByRole("button", { name: "Create monitor" }).click()
    await expect.poll(() =>
      page.getByText("The monitor of https://search.example.test/health was created.").isVisible()
    ).toBe(true)
    const stored = (await api((client) => client.monitors.list({ query: {} }))).find((m) =>
      m.url === "https://search.example.test/health"
    )
    expect(stored).toMatchObject({
      type: "http",
      intervalSeconds: 30,
      timeoutMs: 10000,
      expectedStatusCode: 204,
      failureThreshold: 3,
      regions: null
    })

    // A TCP check needs host:port: the server refuses the URL and says so beside it.
    await form.getByLabel("Check").selectOption("tcp")
    expect(await form.getByLabel("Expected status code").count()).toBe(0)
    await form.getByLabel("Host and port").fill("not a host")
    await form.getByRole("button", { name: "Create monitor" }).click()
    await expect.poll(() => form.locator("#new-monitor-url-error").textContent()).toBe(
      "A tcp monitor needs tcp://host:port or host:port"
    )
    expect(await form.getByLabel("Host and port").getAttribute("aria-describedby")).toContain("new-monitor-url-error")
    await expectAccessible(page)
    await screenshot(page, "monitors-field-error")

    await page.getByRole("button", { name: "Details of Search https://search.example.test/health" }).click()
    const detail = page.getByRole("region", { name: "Search https://search.example.test/health" })
    await detail.getByRole("button", { name: "Edit" }).click()
    const edit = detail.getByRole("form")
    await edit.getByLabel("Failures before down").fill("5")
    await edit.getByLabel("Regions").fill("eu-west, us-east")
    await edit.getByRole("button", { name: "Save" }).click()
    await expect.poll(() => page.getByText("The monitor of https://search.example.test/health was saved.").isVisible())
      .toBe(true)
    const edited = (await api((client) => client.monitors.list({ query: {} }))).find((m) => m.id === stored!.id)
    expect(edited).toMatchObject({
      failureThreshold: 5,
      regions: ["eu-west", "us-east"],
      intervalSeconds: 30,
      expectedStatusCode: 204
    })

    await detail.getByRole("button", { name: "Pause" }).click()
    await expect.poll(() => page.getByText("The monitor of https://search.example.test/health is paused.").isVisible())
      .toBe(true)
    expect((await api((client) => client.monitors.list({ query: {} }))).find((m) => m.id === stored!.id)?.paused).toBe(
      true
    )
    await expect.poll(() => detail.locator(".monitor-state").textContent()).toBe("Paused")
    await detail.getByRole("button", { name: "Resume" }).click()
    await expect.poll(async () =>
      (await api((client) => client.monitors.list({ query: {} }))).find((m) => m.id === stored!.id)?.paused
    ).toBe(false)
    await page.close()
  })

  it("sets a monitor's quorum, degraded threshold, request and expectations; a dns lookup; masked headers", async () => {
    await api((client) => client.components.create({ payload: { name: "Checkout" } }))
    const page = await openScreen("monitors")
    const form = page.getByRole("form", { name: "New monitor" })
    await form.getByLabel("Component").selectOption({ label: "Checkout" })
    await form.getByLabel("Check").selectOption("http")
    await form.getByLabel("URL").fill("https://checkout.example.test/api")
    await form.getByLabel("Regions").fill("eu-west")
    await form.getByLabel("Quorum").fill("3")
    await form.getByLabel("Degraded above (milliseconds)").fill("750")
    await form.getByLabel("Method").selectOption("POST")
    await form.getByLabel("Request headers").fill("Authorization: Bearer t0ken")
    await form.getByLabel("Request body").fill("{\"cart\":1}")
    await form.getByLabel("Expected status codes").fill("200-299, 304")
    await form.getByLabel("Body contains", { exact: true }).fill("\"ok\"")
    await form.getByRole("button", { name: "Create monitor" }).click()
    // One region cannot hold a quorum of three: the API says so beside the field.
    await expect.poll(() => form.locator("#new-monitor-quorum-error").textContent()).toBe(
      "Must not be more than the monitor's 1 region(s)"
    )
    await form.getByLabel("Quorum").fill("any")
    await form.getByRole("button", { name: "Create monitor" }).click()
    await expect.poll(() => page.getByText("The monitor of https://checkout.example.test/api was created.").isVisible())
      .toBe(true)
    const stored = (await api((client) => client.monitors.list({ query: {} }))).find((m) =>
      m.url === "https://checkout.example.test/api"
    )
    expect(stored).toMatchObject({
      quorum: "any",
      degradedAboveMs: 750,
      method: "POST",
      headers: { Authorization: "********" },
      body: "{\"cart\":1}",
      expectedStatusCodes: ["200-299", "304"],
      expectedStatusCode: null,
      bodyContains: "\"ok\"",
      bodyNotContains: null,
      state: "unknown",
      reportingRegions: []
    })
    await page.getByRole("button", { name: "Details of Checkout https://checkout.example.test/api" }).click()
    const detail = page.getByRole("region", { name: "Checkout https://checkout.example.test/api" })
    expect(await detail.textContent()).toContain("No region reporting")
    expect(await detail.textContent()).toContain("expects 200-299, 304")

    // The edit form shows the header masked; saving it unchanged keeps it, and the new body is stored.
    await detail.getByRole("button", { name: "Edit" }).click()
    const edit = detail.getByRole("form")
    expect(await edit.getByLabel("Request headers").inputValue()).toBe("Authorization: ********")
    await edit.getByLabel("Request body").fill("{\"cart\":2}")
    await edit.getByRole("button", { name: "Save" }).click()
    await expect.poll(() => page.getByText("The monitor of https://checkout.example.test/api was saved.").isVisible())
      .toBe(true)
    expect((await api((client) => client.monitors.list({ query: {} }))).find((m) => m.id === stored!.id)).toMatchObject(
      {
        body: "{\"cart\":2}",
        headers: { Authorization: "********" },
        quorum: "any"
      }
    )

    await form.getByLabel("Check").selectOption("dns")
    expect(await form.getByLabel("Method").count()).toBe(0)
    await form.getByLabel("Host name").fill("dns://Checkout.Example.Test")
    await form.getByLabel("Record type").selectOption("TXT")
    await form.getByLabel("Expected values").fill("v=spf1")
    await form.getByLabel("Quorum").fill("")
    await form.getByLabel("Regions").fill("")
    await form.getByRole("button", { name: "Create monitor" }).click()
    await expect.poll(() => page.getByText("The monitor of checkout.example.test was created.").isVisible()).toBe(true)
    expect((await api((client) => client.monitors.list({ query: {} }))).find((m) => m.url === "checkout.example.test"))
      .toMatchObject({ type: "dns", dnsRecordType: "TXT", dnsExpectedValues: ["v=spf1"], quorum: "majority" })
    await expectAccessible(page)
    await page.close()
  })

  it("edits the organization profile and shows a field's error next to it", async () => {
    const page = await openScreen("settings")
    const form = page.getByRole("form", { name: "Organization profile" })
    await form.getByLabel("Name").fill("Acme Status")
    await form.getByLabel("Time zone").fill("Europe/Paris")
    const reminder = form.getByLabel("Maintenance reminder (hours before the start)")
    expect(await reminder.inputValue()).toBe("24")
    await reminder.fill("48")
    await form.getByRole("button", { name: "Save profile" }).click()
    await expect.poll(() => form.getByRole("status").textContent()).toBe("The organization profile was saved.")
    expect(await api((client) => client.organization.get())).toMatchObject({
      name: "Acme Status",
      timezone: "Europe/Paris",
      maintenanceReminderHours: 48
    })

    await reminder.fill("1000")
    await form.getByRole("button", { name: "Save profile" }).click()
    await expect.poll(() => reminder.getAttribute("aria-invalid")).toBe("true")
    expect((await api((client) => client.organization.get())).maintenanceReminderHours).toBe(48)
    await reminder.fill("48")

    await form.getByLabel("Brand colour").fill("blue")
    await form.getByRole("button", { name: "Save profile" }).click()
    const colour = form.getByLabel("Brand colour")
    await expect.poll(() => colour.getAttribute("aria-invalid")).toBe("true")
    const errorId = (await colour.getAttribute("aria-describedby"))!.split(" ").find((id) => id.endsWith("-error"))!
    expect(await page.locator(`#${errorId}`).textContent()).toBe("Must be a colour of the form #rrggbb")
    expect((await api((client) => client.organization.get())).brandColor).toBe("#2563eb")
    await expectAccessible(page)
    await screenshot(page, "settings-field-error")
    await page.close()
  })

  it("opens an incident, posts an update, reads the timeline and resolves it", async () => {
    await api((client) => client.components.create({ payload: { name: "Catalogue" } }))
    const page = await openScreen("incidents")
    const form = page.getByRole("form", { name: "New incident" })
    // Nothing filled in: the reasons show next to the fields.
    await form.getByRole("button", { name: "Open incident" }).click()
    await expect.poll(() => form.getByLabel("Title").getAttribute("aria-invalid")).toBe("true")
    expect(await form.locator("#incident-title-error").textContent()).toBe("Must not be empty")

    await openIncidentInDashboard(page, {
      title: "Search is slow",
      severity: "major",
      message: "We are looking into slow searches.",
      components: ["Catalogue"]
    })
    const row = await postIncidentUpdateInDashboard(
      page,
      "Search is slow",
      "identified",
      "An index rebuild is the cause."
    )
    await row.getByRole("button", { name: "Timeline" }).click()
    const timeline = row.getByRole("list", { name: "Timeline of Search is slow" })
    await expect.poll(() => timeline.getByRole("listitem").count()).toBe(2)
    expect(await timeline.getByRole("listitem").last().textContent()).toContain("An index rebuild is the cause.")
    await expectAccessible(page)
    await screenshot(page, "incidents")

    await row.getByRole("button", { name: "Resolve", exact: true }).click()
    await row.getByRole("button", { name: "Resolve Search is slow" }).click()
    await expectStatusMessage(page, "Search is slow was resolved.")
    const stored = (await api((client) => client.incidents.list({ query: {} }))).find((incident) =>
      incident.title === "Search is slow"
    )
    expect(stored).toMatchObject({ status: "resolved", severity: "major" })
    expect(stored!.updates.map((entry) => entry.status)).toEqual(["investigating", "identified", "resolved"])
    await page.close()
  })

  it("schedules, edits and cancels maintenance", async () => {
    const page = await openScreen("maintenance")
    const form = page.getByRole("form", { name: "Schedule maintenance" })
    await form.getByLabel("Title").fill("Database upgrade")
    await form.getByLabel("Starts").fill("2031-03-10T09:00")
    await form.getByLabel("Ends").fill("2031-03-10T08:00")
    await form.getByRole("button", { name: "Schedule" }).click()
    await expect.poll(() => form.getByLabel("Ends").getAttribute("aria-invalid")).toBe("true")
    expect(await form.locator("#new-window-end-error").textContent()).toBe("Must be after the start")

    await form.getByLabel("Ends").fill("2031-03-10T11:00")
    await form.getByRole("button", { name: "Schedule" }).click()
    await expectStatusMessage(page, "Database upgrade was scheduled.")
    const created = (await api((client) => client.maintenance.list({ query: {} }))).find((window) =>
      window.title === "Database upgrade"
    )!
    // The browser's local time, sent as UTC.
    const local = await page.evaluate(
      () => [new Date("2031-03-10T09:00").toISOString(), new Date("2031-03-10T11:00").toISOString()]
    )
    expect([created.scheduledStart, created.scheduledEnd].map((at) => new Date(at.epochMilliseconds).toISOString()))
      .toEqual(
        local
      )

    const row = itemCard(page, "Database upgrade")
    await row.getByRole("button", { name: "Edit" }).click()
    const edit = row.getByRole("form", { name: "Edit Database upgrade" })
    await edit.getByLabel("Description").fill("Read-only for two hours.")
    await edit.getByRole("button", { name: "Save" }).click()
    await expectStatusMessage(page, "Database upgrade was saved.")
    await expectAccessible(page)
    await screenshot(page, "maintenance")

    await row.getByRole("button", { name: "Cancel window" }).click()
    await row.getByRole("button", { name: "Cancel Database upgrade" }).click()
    await expectStatusMessage(page, "Database upgrade was cancelled.")
    expect((await api((client) => client.maintenance.get({ params: { id: created.id } }))).status).toBe("cancelled")
    await page.close()
  })

  it("editing a window sends only what changed, so a window left naming no component stays private", async () => {
    const hidden = await api((client) => client.components.create({ payload: { name: "Vault", isPublic: false } }))
    const window = await api((client) =>
      client.maintenance.create({
        payload: {
          title: "Vault rotation",
          scheduledStart: DateTime.makeUnsafe("2031-04-01T09:00:00Z"),
          scheduledEnd: DateTime.makeUnsafe("2031-04-01T10:00:00Z"),
          componentIds: [hidden.id]
        }
      })
    )
    await api((client) => client.components.remove({ params: { id: hidden.id } }))

    const page = await openScreen("maintenance")
    const row = itemCard(page, "Vault rotation")
    await row.getByRole("button", { name: "Edit" }).click()
    const edit = row.getByRole("form", { name: "Edit Vault rotation" })
    await edit.getByLabel("Description").fill("Keys are rotated.")
    await edit.getByRole("button", { name: "Save" }).click()
    await expectStatusMessage(page, "Vault rotation was saved.")
    await page.close()

    expect((await api((client) => client.maintenance.get({ params: { id: window.id } }))).description).toBe(
      "Keys are rotated."
    )
    const listed = await api((client) => client.status.maintenance())
    expect(listed.map((item) => item.title)).not.toContain("Vault rotation")
  })

  it("lists subscribers and removes one", async () => {
    await fetch(`${suite.stack.baseUrl}/api/v1/subscribe`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "reader@example.com" })
    })
    const page = await openScreen("subscribers")
    const row = page.getByRole("row").filter({ hasText: "reader@example.com" })
    await expect.poll(() => row.textContent()).toContain("pending")
    await expectAccessible(page)
    await screenshot(page, "subscribers")
    await row.getByRole("button", { name: "Remove" }).click()
    await row.getByRole("button", { name: "Remove reader@example.com" }).click()
    await expect.poll(() => page.getByText("reader@example.com was removed.").isVisible()).toBe(true)
    expect(await api((client) => client.subscribers.list({ query: {} }))).toEqual([])
    await page.setViewportSize({ width: 390, height: 844 })
    await expectAccessible(page)
    await page.close()
  })

  it("every screen reads well at phone width, with no serious accessibility violation", async () => {
    const page = await openScreen("components")
    await page.setViewportSize({ width: 390, height: 844 })
    for (
      const [screen, title] of [
        ["overview", "Overview"],
        ["components", "Components"],
        ["incidents", "Incidents"],
        ["maintenance", "Maintenance"],
        ["monitors", "Monitors"],
        ["probes", "Probes"],
        ["webhooks", "Webhooks"],
        ["subscribers", "Subscribers"],
        ["settings", "Settings"]
      ]
    ) {
      await page.goto(`${suite.stack.baseUrl}/admin#/${screen}`)
      await page.getByRole("heading", { name: title, level: 1 }).waitFor()
      await expect.poll(() => page.title()).toBe(`${title} · Status admin`)
      await expectFitsViewport(page)
      await expectAccessible(page)
      await screenshot(page, `${screen}-phone`)
    }
    await page.close()
  })
})
