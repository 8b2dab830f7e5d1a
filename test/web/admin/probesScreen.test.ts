/**
 * The dashboard's Probes screen in a real browser against the full stack: probes grouped by
 * region, online and offline in words, a region without an online probe called out, accessible,
 * and refreshing itself every heartbeat period (the page's timers run on Playwright's clock, so
 * no real 10 s wait).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

import { heartbeatEvery, ProbeHeartbeat } from "../../../src/domain/ProbeHeartbeat.js"
import { ProbeRegistry } from "../../../src/services/monitoring/ProbeRegistry.js"
import { expectAccessible, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()

/** Heartbeats received now, as ingest hands them to the registry. */
const heartbeats = (...probes: ReadonlyArray<{ region: string; name: string; version?: string }>) => {
  const now = Date.now()
  return suite.stack.run(
    Effect.flatMap(ProbeRegistry, (registry) =>
      registry.recordHeartbeats(probes.map(({ name, region, version }) => ({
        region,
        heartbeat: new ProbeHeartbeat({
          name,
          version: version ?? "3.1.0",
          startedAt: now - 3_600_000,
          sentAt: now,
          concurrency: 20,
          checksLastMinute: 57,
          lagMs: 18,
          inFlight: 2
        })
      })))).pipe(Effect.provide(ProbeRegistry.layer))
  )
}

/** Makes a probe silent for five minutes. */
const silence = (region: string, name: string) =>
  suite.stack.run(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`update probes set last_seen_at = now() - interval '5 minutes' where region = ${region} and name = ${name}`)
  )

describe("dashboard probes screen", () => {
  it("shows the probes by region, online or offline in words, and refreshes itself", async () => {
    await heartbeats(
      { region: "eu-west", name: "euw-b" },
      { region: "eu-west", name: "euw-a" },
      { region: "ap-south", name: "aps-1", version: "3.0.9" },
      { region: "us-east", name: "use-1" }
    )
    await silence("eu-west", "euw-b")
    await silence("ap-south", "aps-1")

    // The page's timers on a clock the test moves (installed before the page loads).
    await suite.browser.context.clock.install()
    const page = await suite.openScreen("probes")
    await page.getByRole("heading", { name: "Probes", level: 1 }).waitFor()
    await page.getByRole("heading", { name: "eu-west", level: 2 }).waitFor()

    expect(await page.getByRole("heading", { level: 2 }).allTextContents()).toEqual(["ap-south", "eu-west", "us-east"])

    const euWest = page.getByRole("region", { name: "Probes of eu-west" })
    const rows = euWest.getByRole("row")
    expect(await rows.nth(1).getByRole("rowheader").textContent()).toBe("euw-a")
    expect(await rows.nth(1).getByRole("cell").first().textContent()).toBe("Online")
    expect(await rows.nth(2).getByRole("rowheader").textContent()).toBe("euw-b")
    expect(await rows.nth(2).getByRole("cell").first().textContent()).toBe("Offline")
    expect(await rows.nth(1).getByRole("cell").allTextContents()).toEqual(
      expect.arrayContaining(["3.1.0", "57", "18 ms", "2 of 20"])
    )
    await expect.poll(() => page.getByText("1 of 2 probes online").isVisible()).toBe(true)
    const apSouth = page.getByRole("region", { name: "Probes of ap-south" })
    expect(await apSouth.getByRole("cell").first().textContent()).toBe("Offline")
    expect(await page.getByText("No probe online: this region counts as no data for quorum.").count()).toBe(1)
    await expectAccessible(page)
    await screenshot(page, "probes")
    await page.setViewportSize({ width: 390, height: 844 })
    await expectAccessible(page)
    await screenshot(page, "probes-phone")
    await page.setViewportSize({ width: 1280, height: 900 })

    // A probe that starts now, and one that comes back, show up at the next refresh by themselves.
    await heartbeats({ region: "sa-east", name: "sae-1" }, { region: "ap-south", name: "aps-1", version: "3.1.0" })
    expect(await page.getByRole("heading", { name: "sa-east" }).count()).toBe(0)
    await page.clock.fastForward(heartbeatEvery)
    await page.getByRole("heading", { name: "sa-east", level: 2 }).waitFor()
    await expect.poll(() => apSouth.getByRole("cell").first().textContent()).toBe("Online")
    expect(await page.getByText("No probe online: this region counts as no data for quorum.").count()).toBe(0)
    await expectAccessible(page)
    await page.close()
  })
})
