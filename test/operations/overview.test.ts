/**
 * GET /api/v1/admin/overview against real PostgreSQL: a monitor found down by two regions
 * (through ingest), an open incident, a webhook delivery refused by a real receiver on loopback,
 * a confirmation mail a real SMTP server refused, and a probe gone silent (heartbeats through the
 * registry, silence through the TestClock).
 */
import { expect, it } from "@effect/vitest"
import { Clock, Context, DateTime, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

import type { NotificationEvent } from "../../src/domain/NotificationEvent.js"
import { overviewLimits } from "../../src/domain/Overview.js"
import { slotAt } from "../../src/domain/Slots.js"
import { ProbeRegistry } from "../../src/services/monitoring/ProbeRegistry.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { WebhookDeliveries } from "../../src/services/notifications/webhooks/WebhookDeliveries.js"
import { checkResult } from "../support/CheckResults.js"
import { eventually } from "../support/Eventually.js"
import { failingMonitor } from "../support/FailingMonitor.js"
import { recordHeartbeat as heartbeat } from "../support/ProbeHeartbeats.js"
import { answerWith, receiver } from "../support/Receiver.js"
import { type SmtpCapture, smtpCapture } from "../support/SmtpCapture.js"
import { ApiClient, sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"

class Smtp extends Context.Service<Smtp, SmtpCapture>()("test/Smtp") {}

const Stack = Layer.unwrap(
  Effect.map(smtpCapture, (capture) =>
    Layer.mergeAll(
      ResultIngest.layer,
      WebhookDeliveries.layer,
      ProbeRegistry.layer,
      Layer.succeed(Smtp, capture)
    ).pipe(Layer.provideMerge(TestServer({ SMTP_URL: capture.url }))))
)

const overview = Effect.flatMap(ApiClient, (client) => client.overview.get())

it.layer(Stack)("operators' overview", (it) => {
  it.effect("is all clear on a fresh service, and needs credentials", () =>
    Effect.gen(function*() {
      const fresh = yield* overview
      expect(fresh).toMatchObject({
        allClear: true,
        counts: {
          monitorsDown: 0,
          monitorsDegraded: 0,
          incidentsOpen: 0,
          probesOffline: 0,
          regionsOffline: 0,
          webhooksFailing: 0
        },
        monitors: [],
        incidents: [],
        probes: [],
        webhooks: [],
        mail: { waiting: 0, retrying: 0, oldestWaitingSince: null, backingUp: false }
      })
      expect(DateTime.toEpochMillis(fresh.generatedAt)).toBe(yield* Clock.currentTimeMillis)

      const anonymous = yield* sendAnonymous("GET", "/api/v1/admin/overview")
      expect(anonymous.status).toBe(401)
      expect(anonymous.body._tag).toBe("Unauthorized")
    }))

  it.effect("shows what is wrong: a down monitor with its regions' errors, an open incident, a failing webhook, mail backing up and a silent probe", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const ingest = yield* ResultIngest
      const clockAtStart = yield* Clock.currentTimeMillis

      // A monitor two regions see failing.
      const { component, failedAt, monitor } = yield* failingMonitor((yield* Clock.currentTimeMillis) - 30_000)

      // A monitor whose only region answers slower than its degradedAboveMs (12.5 ms > 10 ms).
      const search = yield* client.components.create({ payload: { name: "Search" } })
      const slow = yield* client.monitors.create({
        payload: {
          componentId: search.id,
          type: "http",
          url: "https://search.example.test/",
          regions: ["us-east"],
          degradedAboveMs: 10
        }
      })
      const slowAt = slotAt(slow.id, 60_000, (yield* Clock.currentTimeMillis) - 30_000)
      yield* ingest.ingest([checkResult(slow.id, "us-east", slowAt, true)])
      const degradedAt = yield* Clock.currentTimeMillis

      // An open incident, and a resolved one the overview leaves out.
      const incident = yield* client.incidents.create({
        payload: { title: "Checkout errors", severity: "major", message: "Payments fail", componentIds: [component.id] }
      })
      const resolved = yield* client.incidents.create({ payload: { title: "Old trouble", message: "Gone" } })
      yield* client.incidents.resolve({ params: { id: resolved.id }, payload: null })

      // A webhook whose receiver answers 500: one delivery given up after its four attempts (5, 10
      // and 20 s apart), the next one's first attempt failed and waiting for a retry.
      const target = yield* receiver(answerWith(500))
      const webhook = yield* client.webhooks.create({ payload: { name: "Ops chat", url: target.url, type: "generic" } })
      const event = (n: number): NotificationEvent => ({
        id: `evt_overview_${n}`,
        event: "incident.updated",
        occurredAt: incident.createdAt,
        componentIds: [component.id],
        data: {
          id: incident.id,
          title: incident.title,
          status: "investigating",
          severity: "major",
          componentIds: [component.id],
          message: `Update ${n}`
        }
      })
      const deliveries = yield* WebhookDeliveries
      yield* deliveries.enqueue(event(1))
      const outcomes: Array<string> = []
      for (const wait of [0, 5, 10, 20]) {
        yield* TestClock.adjust(`${wait} seconds`)
        outcomes.push(...(yield* deliveries.deliverDue()).map((d) => `${d.attempts}:${d.status}:${d.lastStatusCode}`))
      }
      expect(outcomes).toEqual(["1:pending:500", "2:pending:500", "3:pending:500", "4:failed:500"])
      yield* deliveries.enqueue(event(2))
      expect((yield* deliveries.deliverDue()).map((d) => `${d.attempts}:${d.status}`)).toEqual(["1:pending"])
      const lastFailedAt = yield* Clock.currentTimeMillis
      expect(target.received).toHaveLength(5)

      // A confirmation mail the SMTP server refuses for now (451): it waits for a retry.
      const smtp = yield* Smtp
      smtp.refuse("reader@example.test", 1)
      expect((yield* sendJson("POST", "/api/v1/subscribe", { email: "reader@example.test" })).status).toBe(202)
      // The send runs in the background, in real time; the clock moves on only once it was refused.
      expect((yield* eventually(overview, (answer) => answer.mail.retrying === 1)).mail.retrying).toBe(1)

      // Probes: eu-west's only probe and one of us-east's fall silent; us-east-2 keeps beating.
      yield* heartbeat("eu-west", "eu-west-1")
      yield* heartbeat("us-east", "us-east-1")
      yield* heartbeat("us-east", "us-east-2")
      const lastHeard = yield* Clock.currentTimeMillis
      // Silence for more than 30 s is offline; mail waiting for over a minute is backing up.
      yield* TestClock.adjust("120 seconds")
      yield* heartbeat("us-east", "us-east-2")

      const report = yield* overview
      expect(report.allClear).toBe(false)
      expect(report.counts).toEqual({
        monitorsDown: 1,
        monitorsDegraded: 1,
        incidentsOpen: 1,
        probesOffline: 2,
        regionsOffline: 1,
        webhooksFailing: 1
      })

      expect(report.monitors.map((m) => m.state)).toEqual(["down", "degraded"])
      const [down, degraded] = report.monitors
      expect(down).toMatchObject({
        id: monitor.id,
        componentId: component.id,
        componentName: "Checkout",
        type: "http",
        url: "https://checkout.example.test/health",
        state: "down"
      })
      // The failed run is the slot in progress at the monitor's creation: the outage starts at the creation.
      const failingSince = Math.max(failedAt, DateTime.toEpochMillis(monitor.createdAt))
      expect(DateTime.toEpochMillis(down!.since)).toBe(failingSince)
      expect(down!.regions.map((r) => ({ ...r, failingSince: DateTime.toEpochMillis(r.failingSince!) }))).toEqual(
        ["eu-west", "us-east"].map((region) => ({
          region,
          status: "failing",
          consecutiveFailures: 1,
          failingSince,
          lastCheckedAt: DateTime.makeUnsafe(failedAt + 20),
          lastStatusCode: 503,
          lastDurationMs: 12.5,
          lastError: "expected status 200, got 503"
        }))
      )

      expect(degraded).toMatchObject({ id: slow.id, componentName: "Search", state: "degraded" })
      expect(DateTime.toEpochMillis(degraded!.since)).toBe(degradedAt)
      expect(degraded!.regions).toEqual([{
        region: "us-east",
        status: "slow",
        consecutiveFailures: 0,
        failingSince: null,
        lastCheckedAt: DateTime.makeUnsafe(slowAt + 20),
        lastStatusCode: 200,
        lastDurationMs: 12.5,
        lastError: null
      }])

      expect(report.incidents.map((i) => [i.id, i.title, i.status, i.severity, i.isPublic])).toEqual([
        [incident.id, "Checkout errors", "investigating", "major", true]
      ])
      expect(report.incidents[0]!.startedAt).toEqual(incident.createdAt)

      expect(report.probes).toEqual([
        {
          region: "eu-west",
          online: 0,
          regionOffline: true,
          offlineCount: 1,
          offline: [{ name: "eu-west-1", version: "1.2.3", lastSeenAt: DateTime.makeUnsafe(lastHeard) }]
        },
        {
          region: "us-east",
          online: 1,
          regionOffline: false,
          offlineCount: 1,
          offline: [{ name: "us-east-1", version: "1.2.3", lastSeenAt: DateTime.makeUnsafe(lastHeard) }]
        }
      ])

      expect(report.webhooks).toHaveLength(1)
      expect(report.webhooks[0]).toMatchObject({
        id: webhook.id,
        name: "Ops chat",
        url: target.url,
        consecutiveFailures: 1,
        retrying: 1,
        lastError: "HTTP 500",
        lastStatusCode: 500
      })
      expect(DateTime.toEpochMillis(report.webhooks[0]!.lastFailedAt!)).toBe(lastFailedAt)

      expect(report.mail).toMatchObject({ waiting: 1, retrying: 1, backingUp: true })
      expect(report.mail.lastError).toContain("Try again later")
      expect(report.mail.lastError).not.toContain("reader@example.test")
      // Created by the database's clock when the request came in; the TestClock (set to the real time
      // when the stack started, so at most that far behind it) has moved on since.
      expect(report.mail.oldestWaitingSeconds).toBeGreaterThanOrEqual(60)
      expect(report.mail.oldestWaitingSeconds).toBeLessThanOrEqual(
        ((yield* Clock.currentTimeMillis) - clockAtStart) / 1000
      )

      // Once both regions succeed again the down monitor leaves the overview; resolving clears the incident.
      const recoveredAt = slotAt(monitor.id, 60_000, (yield* Clock.currentTimeMillis) - 1_000)
      yield* ingest.ingest([
        checkResult(monitor.id, "eu-west", recoveredAt, true),
        checkResult(monitor.id, "us-east", recoveredAt, true)
      ])
      yield* client.incidents.resolve({ params: { id: incident.id }, payload: null })
      const after = yield* overview
      expect(after.monitors.map((m) => m.id)).toEqual([slow.id])
      expect(after.incidents).toEqual([])
      expect([after.counts.monitorsDown, after.counts.monitorsDegraded, after.counts.incidentsOpen]).toEqual([0, 1, 0])
    }))

  it.effect("names at most 20 offline probes of a region, seen last first, and counts them all", () =>
    Effect.gen(function*() {
      // 25 probes fall silent a second apart; one more keeps beating.
      for (let n = 0; n < 25; n++) {
        yield* heartbeat("crowded", `crowded-${n}`)
        yield* TestClock.adjust("1 second")
      }
      const lastHeard = (yield* Clock.currentTimeMillis) - 1_000
      yield* TestClock.adjust("60 seconds")
      yield* heartbeat("crowded", "crowded-live")

      const crowded = (yield* overview).probes.find((region) => region.region === "crowded")
      expect(crowded).toMatchObject({
        online: 1,
        regionOffline: false,
        offlineCount: 25
      })
      expect(crowded!.offline).toHaveLength(overviewLimits.probesPerRegion)
      expect(crowded!.offline.map((probe) => probe.name)).toEqual(
        Array.from({ length: 20 }, (_, i) => `crowded-${24 - i}`)
      )
      expect(DateTime.toEpochMillis(crowded!.offline[0]!.lastSeenAt)).toBe(lastHeard)
    }))
})
