import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"

import { subscribeLimits } from "../../src/services/notifications/Subscriptions.js"
import { sendJson, TestServer } from "../support/TestServer.js"

const subscribe = (email: string) => sendJson("POST", "/api/v1/subscribe", { email })

it.layer(TestServer())("subscribe rate limits", (it) => {
  it.effect("limits requests per address and per client with 429 and Retry-After", () =>
    Effect.gen(function*() {
      expect(subscribeLimits.perAddress.max).toBe(3)
      expect(subscribeLimits.perClient.max).toBe(20)
      for (let i = 0; i < 3; i++) expect((yield* subscribe("same@example.test")).status).toBe(202)
      const refused = yield* subscribe("same@example.test")
      expect(refused.status).toBe(429)
      expect(refused.body).toMatchObject({ _tag: "TooManyRequests", message: expect.any(String) })
      const retryAfter = Number(refused.headers["retry-after"])
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(3600)

      // The four requests above count against this client too: 16 more are allowed.
      const statuses: Array<number> = []
      for (let i = 0; i < 17; i++) statuses.push((yield* subscribe(`user${i}@example.test`)).status)
      expect(statuses.filter((status) => status === 202)).toHaveLength(16)
      expect(statuses.at(-1)).toBe(429)

      // A new window opens after an hour.
      yield* TestClock.adjust("1 hour")
      expect((yield* subscribe("same@example.test")).status).toBe(202)
    }))
})
