/**
 * Apply and import on the embedded database, as `npm start` runs: PGlite is one session, which
 * the apply's transaction holds, so what reads through another connection (the push URLs'
 * index) must wait for the commit rather than inside it, where it would wait for ever.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"

import { readUptimeKuma } from "../../src/cli/import/UptimeKumaSource.js"
import { embeddedConfig } from "../support/TestDatabase.js"
import { ApiClient, sendAnonymous, TestStack } from "../support/TestServer.js"

layer(TestStack(embeddedConfig()), { excludeTestServices: true, timeout: 120_000 })(
  "apply on the embedded database",
  (it) => {
    it.effect("applies a document with a push monitor, and imports Uptime Kuma's database", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const applied = yield* client.configuration.apply({
          payload: {
            document: {
              version: 1,
              components: [{ key: "cron", name: "Nightly job" }],
              monitors: [{
                key: "cron",
                component: "cron",
                type: "push",
                intervalSeconds: 3600,
                pushToken: "embeddedToken1"
              }]
            }
          }
        })
        expect(applied.plan.map((step) => [step.kind, step.action])).toEqual([["component", "create"], [
          "monitor",
          "create"
        ]])
        // Known to the push index once committed: the push counts.
        expect((yield* sendAnonymous("GET", "/api/v1/push/embeddedToken1")).status).toBe(200)

        const { bundle } = yield* readUptimeKuma("test/fixtures/uptime-kuma/kuma.db")
        const imported = yield* client.configuration.import({ payload: { bundle } })
        expect(imported.applied).toBe(true)
        expect((yield* sendAnonymous("GET", "/api/v1/push/fixturePushTok1")).status).toBe(200)
        const again = yield* client.configuration.import({ payload: { bundle, dryRun: true } })
        expect(again.plan.filter((step) => step.action !== "unchanged")).toEqual([])
      }))
  }
)
