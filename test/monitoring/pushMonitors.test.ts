/**
 * Push (heartbeat) monitors through the real HTTP path: the job calls its secret URL with Uptime
 * Kuma's parameters, a push is the run of a slot in the region `push`, a slot whose grace runs
 * out without one is a failed run (the deadline judge), tokens rotate and are rate limited, and a
 * push to an unknown token is answered without the database.
 */
import { expect, layer } from "@effect/vitest"
import { Clock, Effect, Layer, Schedule } from "effect"
import { TestClock } from "effect/testing"

import type { Monitor, MonitorId } from "../../src/domain/Monitor.js"
import { slotAt } from "../../src/domain/Slots.js"
import { PushMonitorsRepo } from "../../src/persistence/PushMonitorsRepo.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { makePushDeadlineJudge } from "../../src/workers/PushDeadlines.js"
import { realPause } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import {
  ApiClient,
  DatabaseProxy,
  sendAnonymous,
  sendJson,
  TestServer,
  TestStackBehindProxy
} from "../support/TestServer.js"

const Stack = Layer.mergeAll(PushMonitorsRepo.layer, ResultIngest.layer).pipe(Layer.provideMerge(TestServer()))

const createPush = (fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const component = yield* client.components.create({ payload: { name: `Cron ${Math.random()}` } })
    const created = yield* sendJson("POST", "/api/v1/admin/monitors", {
      componentId: component.id,
      type: "push",
      intervalSeconds: 60,
      graceSeconds: 10,
      ...fields
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return created.body as Monitor & { pushToken: string }
  })

const push = (token: string, query = "") => sendAnonymous("GET", `/api/v1/push/${token}${query}`)

const monitorOf = (id: MonitorId) => Effect.flatMap(ApiClient, (client) => client.monitors.get({ params: { id } }))
const runsOf = (id: MonitorId) =>
  Effect.flatMap(ApiClient, (client) => client.monitors.results({ params: { id }, query: {} }))

/** Moves the clock to `at` (later than now). */
const moveTo = (at: number) => Effect.flatMap(Clock.currentTimeMillis, (now) => TestClock.adjust(at - now))

layer(Stack)("push monitors", (it) => {
  it.effect("a push is a run in the region push, with Kuma's parameters; a slot without one fails", () =>
    Effect.gen(function*() {
      const monitor = yield* createPush()
      expect(monitor).toMatchObject({
        type: "push",
        url: "/api/v1/push/********",
        regions: ["push"],
        quorum: "any",
        graceSeconds: 10,
        failureThreshold: 1,
        state: "unknown"
      })
      expect(monitor.pushToken).toMatch(/^[A-Za-z0-9_-]{32}$/)
      // Shown once: no read answers it.
      expect(yield* monitorOf(monitor.id)).not.toHaveProperty("pushToken")
      const list = yield* sendJson("GET", "/api/v1/admin/monitors")
      expect(JSON.stringify(list.body)).not.toContain(monitor.pushToken)

      // Kuma's own example URL ends with an empty `ping=`.
      const up = yield* push(monitor.pushToken, "?status=up&msg=OK&ping=")
      expect(up).toMatchObject({ status: 200, body: { ok: true } })
      expect(yield* monitorOf(monitor.id)).toMatchObject({ state: "up", reportingRegions: ["push"] })
      const [first] = yield* runsOf(monitor.id)
      const now = yield* Clock.currentTimeMillis
      expect(first).toMatchObject({
        outcome: "checked",
        region: "push",
        probe: "(push)",
        ok: true,
        durationMs: 0,
        error: null
      })
      expect(first!.scheduledAt.epochMilliseconds).toBe(slotAt(monitor.id, 60_000, now))

      // The next slot gets no push: once its interval and grace have passed, the judge fails it.
      const judge = yield* makePushDeadlineJudge
      const next = slotAt(monitor.id, 60_000, now) + 60_000
      yield* moveTo(next + 60_000 + 9_000)
      yield* judge
      expect((yield* monitorOf(monitor.id)).state).toBe("up")
      yield* moveTo(next + 60_000 + 10_001)
      yield* judge
      yield* judge // a second pass judges nothing twice
      const missed = (yield* runsOf(monitor.id)).filter((run) => run.outcome === "checked" && !run.ok)
      expect(missed).toHaveLength(1)
      expect(missed[0]).toMatchObject({
        probe: "(deadline)",
        region: "push",
        error: "no push within 60 s + 10 s grace"
      })
      expect(missed[0]!.scheduledAt.epochMilliseconds).toBe(next)
      expect((yield* monitorOf(monitor.id)).state).toBe("down")

      // A down push is a failure at once, with the job's message; an up push brings it back.
      yield* TestClock.adjust("1 minute")
      const down = yield* push(monitor.pushToken, "?status=down&msg=disk%20full&ping=42")
      expect(down.status).toBe(200)
      const [latest] = yield* runsOf(monitor.id)
      expect(latest).toMatchObject({ ok: false, error: "pushed down: disk full", durationMs: 42 })
      yield* TestClock.adjust("1 minute")
      yield* push(monitor.pushToken, "?ping=17.5")
      expect(yield* monitorOf(monitor.id)).toMatchObject({ state: "up" })
      expect((yield* runsOf(monitor.id))[0]).toMatchObject({ ok: true, durationMs: 17.5 })
    }))

  it.effect("a push within the grace after a slot ends counts for that slot; a second push in a slot is not stored", () =>
    Effect.gen(function*() {
      const monitor = yield* createPush()
      const created = yield* Clock.currentTimeMillis
      // Two slots on: the slot before has no run, and the push comes 5 s into the next one.
      const late = slotAt(monitor.id, 60_000, created) + 120_000
      yield* moveTo(late + 5_000)
      yield* push(monitor.pushToken)
      const runs = yield* runsOf(monitor.id)
      expect(runs.map((run) => run.scheduledAt.epochMilliseconds)).toEqual([late - 60_000])

      // The next push, in the same slot as the clock now, counts for that slot; one more in it is acknowledged only.
      yield* TestClock.adjust("20 seconds")
      expect((yield* push(monitor.pushToken)).status).toBe(200)
      expect((yield* push(monitor.pushToken, "?status=down")).body).toEqual({ ok: true })
      const after = yield* runsOf(monitor.id)
      expect(after.map((run) => run.scheduledAt.epochMilliseconds)).toEqual([late, late - 60_000])
      expect(after.every((run) => run.outcome === "checked" && run.ok)).toBe(true)
    }))

  it.effect("bad pushes are 4xx with the error body: unknown token, paused monitor, bad status or ping, over the rate", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const monitor = yield* createPush()
      const unknown = yield* push("x".repeat(32))
      expect(unknown).toMatchObject({ status: 404, body: { _tag: "NotFound" } })
      expect((yield* push("short")).status).toBe(404)

      const badStatus = yield* push(monitor.pushToken, "?status=maybe")
      expect(badStatus).toMatchObject({ status: 400, body: { _tag: "BadRequest", issues: [{ path: ["status"] }] } })
      for (const ping of ["-1", "abc", "120001", "Infinity"]) {
        const bad = yield* push(monitor.pushToken, `?ping=${ping}`)
        expect(bad, ping).toMatchObject({ status: 400, body: { issues: [{ path: ["ping"] }] } })
      }
      // A parameter Kuma does not send is refused, as on every endpoint.
      expect((yield* push(monitor.pushToken, "?state=up")).status).toBe(400)
      // POST takes the same parameters.
      expect(yield* sendAnonymous("POST", `/api/v1/push/${monitor.pushToken}?status=up`)).toMatchObject({
        status: 200,
        body: { ok: true }
      })

      // 10 at once, then one per 6 s.
      const answers: Array<number> = []
      for (let i = 0; i < 10; i++) answers.push((yield* push(monitor.pushToken)).status)
      const over = yield* push(monitor.pushToken)
      expect(over.status).toBe(429)
      expect(over.body).toMatchObject({ _tag: "TooManyRequests", retryAfterSeconds: expect.any(Number) })
      expect(Number(over.headers["retry-after"])).toBeGreaterThan(0)
      // The earlier ones in this test count too (4 bad ones were not: they were refused before the limit).
      expect(answers.filter((status) => status === 429).length).toBeGreaterThan(0)
      yield* TestClock.adjust("6 seconds")
      expect((yield* push(monitor.pushToken)).status).toBe(200)

      yield* client.monitors.pause({ params: { id: monitor.id } })
      expect((yield* push(monitor.pushToken)).status).toBe(404)
      yield* client.monitors.resume({ params: { id: monitor.id } })
      yield* TestClock.adjust("1 minute")
      expect((yield* push(monitor.pushToken)).status).toBe(200)
    }))

  it.effect("a rotated token replaces the old one; an imported token is kept; type changes make and drop tokens", () =>
    Effect.gen(function*() {
      const monitor = yield* createPush()
      const rotated = yield* sendJson("POST", `/api/v1/admin/monitors/${monitor.id}/push-token`)
      expect(rotated.status).toBe(200)
      expect(rotated.body.pushToken).toMatch(/^[A-Za-z0-9_-]{32}$/)
      expect(rotated.body.pushToken).not.toBe(monitor.pushToken)
      expect((yield* push(monitor.pushToken)).status).toBe(404)
      expect((yield* push(rotated.body.pushToken)).status).toBe(200)
      const audit = yield* sendJson("GET", `/api/v1/admin/audit-log?targetId=${monitor.id}`)
      expect(JSON.stringify(audit.body)).toContain("monitors.rotatePushToken")
      expect(JSON.stringify(audit.body)).not.toContain(rotated.body.pushToken)

      // A token another tool made (Uptime Kuma's: 32 letters and digits, or one its user chose) keeps working.
      const chosen = yield* createPush({ pushToken: "fixturePushTok1" })
      expect((yield* push(chosen.pushToken)).status).toBe(200)
      const kuma = "Kz8r2NvQp4TtXw9LmA3cHb6YeJ1gUdFs"
      const imported = yield* createPush({ pushToken: kuma })
      expect(imported.pushToken).toBe(kuma)
      expect((yield* push(kuma)).status).toBe(200)
      const taken = yield* sendJson("POST", "/api/v1/admin/monitors", {
        componentId: imported.componentId,
        type: "push",
        pushToken: kuma
      })
      expect(taken).toMatchObject({ status: 400, body: { issues: [{ path: ["pushToken"] }] } })

      // To http: it needs a url, and its token stops working; back to push: a new token.
      const noUrl = yield* sendJson("PUT", `/api/v1/admin/monitors/${imported.id}`, { type: "http" })
      expect(noUrl).toMatchObject({ status: 400, body: { issues: [{ path: ["url"] }] } })
      const http = yield* sendJson("PUT", `/api/v1/admin/monitors/${imported.id}`, {
        type: "http",
        url: "http://127.0.0.1:9/"
      })
      expect(http.body).toMatchObject({ type: "http", regions: null, quorum: "majority", graceSeconds: null })
      expect(http.body).not.toHaveProperty("pushToken")
      expect((yield* push(kuma)).status).toBe(404)
      const again = yield* sendJson("PUT", `/api/v1/admin/monitors/${imported.id}`, { type: "push" })
      expect(again.body).toMatchObject({ type: "push", url: "/api/v1/push/********", regions: ["push"] })
      expect((yield* push(again.body.pushToken)).status).toBe(200)

      const httpMonitor = yield* sendJson("POST", "/api/v1/admin/monitors", {
        componentId: imported.componentId,
        type: "http",
        url: "http://127.0.0.1:9/"
      })
      const notPush = yield* sendJson("POST", `/api/v1/admin/monitors/${httpMonitor.body.id}/push-token`)
      expect(notPush).toMatchObject({ status: 400, body: { issues: [{ path: ["type"] }] } })
    }))

  it.effect("fields push does not take, or takes alone, are 400 naming them", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Rules" } })
      const cases: Array<[Record<string, unknown>, ReadonlyArray<string | number>]> = [
        [{ type: "push", url: "http://127.0.0.1/" }, ["url"]],
        [{ type: "push", regions: ["eu-west"] }, ["regions"]],
        [{ type: "push", quorum: "all" }, ["quorum"]],
        [{ type: "push", intervalSeconds: 60, graceSeconds: 61 }, ["graceSeconds"]],
        [{ type: "push", pushToken: "short" }, ["pushToken"]],
        [{ type: "push", pushToken: "has a space in it" }, ["pushToken"]],
        [{ type: "http", url: "http://127.0.0.1/", graceSeconds: 5 }, ["graceSeconds"]],
        [{ type: "http", url: "http://127.0.0.1/", pushToken: "Kz8r2NvQp4TtXw9LmA3cHb6YeJ1gUdFs" }, ["pushToken"]],
        [{ type: "http", url: "http://127.0.0.1/", regions: ["push"] }, ["regions", 0]],
        [{ type: "http" }, ["url"]]
      ]
      for (const [fields, path] of cases) {
        const answer = yield* sendJson("POST", "/api/v1/admin/monitors", { componentId: component.id, ...fields })
        expect(answer.status, JSON.stringify(fields)).toBe(400)
        expect(answer.body.issues.map((issue: { path: Array<unknown> }) => issue.path), JSON.stringify(fields))
          .toContainEqual(path)
      }
      // The grace defaults to 30 s, or the interval when that is shorter.
      const short = yield* sendJson("POST", "/api/v1/admin/monitors", {
        componentId: component.id,
        type: "push",
        intervalSeconds: 20
      })
      expect(short.body).toMatchObject({ graceSeconds: 20, intervalSeconds: 20 })
    }))
})

// Real time here: the pool reconnects on its own schedule.
layer(TestStackBehindProxy, { excludeTestServices: true })("push monitors while the database is away", (it) => {
  it.effect("a push to an unknown token is 404 without a query; a known one is 503", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Away" } })
      const created = yield* sendJson("POST", "/api/v1/admin/monitors", { componentId: component.id, type: "push" })
      const token: string = created.body.pushToken
      expect((yield* push(token)).status).toBe(200)

      const proxy = yield* DatabaseProxy
      yield* Effect.promise(proxy.cut)
      for (let i = 0; i < 20; i++) {
        const unknown = yield* push(`unknown-token-${i}-${"a".repeat(20)}`)
        expect(unknown).toMatchObject({ status: 404, body: { _tag: "NotFound" } })
      }
      // The database is away indeed: a push that has to store its run says so.
      const known = yield* push(token)
      expect(known).toMatchObject({ status: 503, body: { _tag: "ServiceUnavailable" } })
      yield* Effect.promise(proxy.restore)
      yield* push(token).pipe(
        Effect.flatMap((answer) => answer.status === 200 ? Effect.void : Effect.fail(answer.status)),
        Effect.retry({ times: 25, schedule: Schedule.spaced("200 millis") })
      )
    }), 30_000)
})

// The active scheduler judges the deadlines, whichever transport carries the probes' jobs: a push
// monitor publishes none.
const transports = [
  ["in process", InProcessJobTransport.layer()],
  [
    "redis streams",
    Layer.unwrap(Effect.map(redisPrefix, ({ prefix }) => RedisJobTransport.layer({ url: redisUrl, prefix })))
  ]
] as const
for (const [name, transport] of transports) {
  layer(CheckScheduler.pipe(Layer.provide(transport), Layer.provideMerge(TestServer())), { timeout: "60 seconds" })(
    `push deadlines under the active scheduler (${name})`,
    (it) => {
      it.effect("a slot without a push fails once its grace is over; the next push brings it back", () =>
        Effect.gen(function*() {
          const monitor = yield* createPush({ intervalSeconds: 10, graceSeconds: 2 })
          yield* push(monitor.pushToken)
          expect((yield* monitorOf(monitor.id)).state).toBe("up")
          // Second by second, with real time for the scheduler's queries between: the slot after the
          // creation's is judged 12 s after it starts.
          let state = "up"
          for (let second = 0; second < 40 && state !== "down"; second++) {
            yield* TestClock.adjust("1 second")
            yield* realPause(50)
            state = (yield* monitorOf(monitor.id)).state
          }
          expect(state).toBe("down")
          const failed = (yield* runsOf(monitor.id)).filter((run) => run.outcome === "checked" && !run.ok)
          expect(failed).toMatchObject([{ probe: "(deadline)", error: "no push within 10 s + 2 s grace" }])
          yield* push(monitor.pushToken)
          expect((yield* monitorOf(monitor.id)).state).toBe("up")
        }))
    }
  )
}
