/**
 * The dashboard's first screen in a real browser (Debian's Chromium through playwright-core)
 * against the full stack on a loopback port: all clear on a fresh service, then, after reading
 * again by itself, a down monitor with its regions' errors, an open incident, a silent probe
 * and a webhook whose receiver answers 500, each linking to its screen.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"

import type { NotificationEvent } from "../../../src/domain/NotificationEvent.js"
import { ProbeRegistry } from "../../../src/services/monitoring/ProbeRegistry.js"
import { ResultIngest } from "../../../src/services/monitoring/ResultIngest.js"
import { WebhookDeliveries } from "../../../src/services/notifications/webhooks/WebhookDeliveries.js"
import { adminEmail, adminPassword } from "../../support/Auth.js"
import { expectAccessible, expectFitsViewport, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"
import { failingMonitor } from "../../support/FailingMonitor.js"
import { recordHeartbeat } from "../../support/ProbeHeartbeats.js"
import { answerWith, receiver } from "../../support/Receiver.js"
import { ApiClient } from "../../support/TestServer.js"

const suite = useBrowserStack()
// The webhook's receiver lives as long as the suite.
const receivers = Effect.runSync(Scope.make())

afterAll(async () => {
  await Effect.runPromise(Scope.close(receivers, Exit.void))
})

/** What the API process does not run: ingest, webhook deliveries and the registry, over the stack's database. */
const workers = Layer.mergeAll(ResultIngest.layer, WebhookDeliveries.layer, ProbeRegistry.layer)

describe("dashboard overview", () => {
  it("opens on the overview, all clear, then shows what went wrong by itself, each item linking to its screen", async () => {
    const page = await suite.browser.context.newPage()
    // The page's timers run on a clock the test can move: its one-minute refresh (of what no change
    // notice carries: probes, webhooks) without waiting a minute.
    await page.clock.install()
    await page.goto(`${suite.stack.baseUrl}/admin`)
    await page.getByLabel("E-mail").fill(adminEmail)
    await page.getByLabel("Password").fill(adminPassword)
    await page.getByRole("button", { name: "Sign in" }).click()

    // The first screen, at /admin itself, and first in the navigation.
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
    await expect.poll(() => page.title()).toBe("Overview · Status admin")
    const nav = page.getByRole("navigation", { name: "Main" })
    expect(await nav.getByRole("link").first().textContent()).toBe("Overview")
    expect(await nav.getByRole("link", { name: "Overview" }).getAttribute("aria-current")).toBe("page")
    await page.getByText("All clear:").waitFor()
    for (
      const heading of [
        "Monitors down or degraded: none",
        "Open incidents: none",
        "Probes offline: none",
        "Webhooks failing: none",
        "Mail: flowing"
      ]
    ) {
      await page.getByRole("heading", { name: heading, level: 2 }).waitFor()
    }
    await expectAccessible(page)

    // Things go wrong behind the page's back.
    const target = await Effect.runPromise(Scope.provide(receiver(answerWith(500)), receivers))
    await suite.stack.run(
      Effect.gen(function*() {
        const client = yield* ApiClient
        const { component } = yield* failingMonitor(Date.now() - 5_000)
        const incident = yield* client.incidents.create({
          payload: {
            title: "Checkout errors",
            severity: "major",
            message: "Payments fail",
            componentIds: [component.id]
          }
        })
        // A heartbeat the server received a minute ago: the probe has been silent since.
        yield* TestClock.setTime(Date.now() - 60_000).pipe(
          Effect.andThen(recordHeartbeat("ap-south", "ap-south-1")),
          Effect.provide(TestClock.layer())
        )
        // A webhook whose receiver answers 500: the first attempt of a delivery fails.
        yield* client.webhooks.create({ payload: { name: "Ops chat", url: target.url, type: "generic" } })
        const event: NotificationEvent = {
          id: `evt_${incident.id}`,
          event: "incident.created",
          occurredAt: yield* DateTime.now,
          componentIds: [component.id],
          data: {
            id: incident.id,
            title: incident.title,
            status: "investigating",
            severity: "major",
            componentIds: [component.id],
            message: "Payments fail"
          }
        }
        const deliveries = yield* WebhookDeliveries
        yield* deliveries.enqueue(event)
        yield* deliveries.deliverDue()
      }).pipe(Effect.provide(workers))
    )
    expect(target.received).toHaveLength(1)

    await page.clock.fastForward(60_000)
    await page.getByRole("heading", { name: "Monitors down or degraded: 1", level: 2 }).waitFor()
    expect(await page.getByText("All clear:").count()).toBe(0)
    await page.getByRole("heading", { name: "Open incidents: 1", level: 2 }).waitFor()
    await page.getByRole("heading", { name: "Probes offline: 1", level: 2 }).waitFor()
    await page.getByRole("heading", { name: "Webhooks failing: 1", level: 2 }).waitFor()
    const monitors = page.getByRole("region", { name: "Monitors down or degraded: 1" })
    expect(await monitors.textContent()).toContain("expected status 200, got 503")
    expect(await monitors.getByText("Down", { exact: true }).count()).toBe(1)
    const webhooks = page.getByRole("region", { name: "Webhooks failing: 1" })
    expect(await webhooks.textContent()).toContain("1 delivery retrying")
    expect(await webhooks.textContent()).toContain("HTTP 500")
    await expectAccessible(page)
    await screenshot(page, "overview")
    await page.setViewportSize({ width: 390, height: 844 })
    await expectFitsViewport(page)
    await expectAccessible(page)
    await screenshot(page, "overview-phone")
    await page.setViewportSize({ width: 1280, height: 900 })

    // Each item leads to the screen that deals with it.
    for (
      const [section, link, title] of [
        ["Monitors down or degraded: 1", "Checkout", "Monitors"],
        ["Open incidents: 1", "Checkout errors", "Incidents"],
        ["Probes offline: 1", "ap-south", "Probes"],
        ["Webhooks failing: 1", "Ops chat", "Webhooks"]
      ] as const
    ) {
      await page.getByRole("region", { name: section }).getByRole("link", { name: link }).click()
      await page.getByRole("heading", { name: title, level: 1 }).waitFor()
      // A monitor's link opens its detail (`#/monitors?id=…`).
      expect(new URL(page.url()).hash).toMatch(new RegExp(`^#/${title.toLowerCase()}(\\?id=[\\w-]+)?$`))
      await page.goBack()
      await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
    }
    await page.close()
  })
})
