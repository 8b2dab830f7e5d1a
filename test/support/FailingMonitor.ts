import { Effect } from "effect"

import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult, slotOf } from "./CheckResults.js"
import { ApiClient } from "./TestServer.js"

/**
 * The component "Checkout" with an http monitor of eu-west and us-east (failure threshold 1),
 * which both regions found failing (503) at its last run at or before `at`: down.
 */
export const failingMonitor = (at: number) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const component = yield* client.components.create({ payload: { name: "Checkout" } })
    const monitor = yield* client.monitors.create({
      payload: {
        componentId: component.id,
        type: "http",
        url: "https://checkout.example.test/health",
        failureThreshold: 1,
        regions: ["eu-west", "us-east"]
      }
    })
    const failedAt = slotOf(monitor.id, at)
    yield* (yield* ResultIngest).ingest([
      checkResult(monitor.id, "eu-west", failedAt, false),
      checkResult(monitor.id, "us-east", failedAt, false)
    ])
    return { component, monitor, failedAt }
  })
