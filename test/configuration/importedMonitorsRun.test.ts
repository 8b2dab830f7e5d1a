/**
 * The monitors an import makes run: the Uptime Kuma fixture imported through the API, the real
 * CheckScheduler (on the TestClock, recording each job) publishes a job for every active imported monitor the probes check, with Kuma's settings, and
 * none for the paused ones.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { readUptimeKuma } from "../../src/cli/import/UptimeKumaSource.js"
import { stepUntil } from "../support/Eventually.js"
import { startScheduler } from "../support/RecordingScheduler.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

it.layer(TestServer(), { timeout: "120 seconds" })("imported monitors", (it) => {
  it.effect("are scheduled as Kuma checked them", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { bundle } = yield* readUptimeKuma("test/fixtures/uptime-kuma/kuma.db")
      const result = yield* client.configuration.import({ payload: { bundle } })
      expect(result.applied).toBe(true)

      const scheduler = yield* startScheduler

      const monitors = yield* client.monitors.list({ query: {} })
      const checked = monitors.filter((monitor) => !monitor.paused && monitor.type !== "push")
      const paused = monitors.filter((monitor) => monitor.paused)
      expect(checked.length).toBeGreaterThanOrEqual(4)
      expect(paused.length).toBeGreaterThan(0)
      const published = () => checked.every((monitor) => scheduler.jobsOf(monitor.id).length > 0)
      expect(yield* stepUntil(published, 120)).toBe(true)
      expect(paused.flatMap((monitor) => scheduler.jobsOf(monitor.id))).toEqual([])

      // Kuma's "Acme website", every 30 s at its address.
      const website = monitors.find((monitor) => monitor.type === "http" && monitor.intervalSeconds === 30)!
      expect(website).toBeDefined()
      expect(scheduler.jobsOf(website.id)[0]).toMatchObject({ url: website.url, intervalSeconds: 30 })
    }))
})
