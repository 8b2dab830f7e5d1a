/**
 * `monitor.down`, `monitor.degraded` and `monitor.up` (docs/notifications.md, "Monitor events"):
 * written by the ingest with the transition, with the regions' evidence, for private components
 * too; delivered by the dispatcher to the webhooks that ask for them (PagerDuty and Opsgenie
 * receivers that validate the vendors' schemas, a generic one), and to nobody else: not to chat
 * webhooks left at their defaults, not to a webhook of another component, not to subscribers.
 */
import { expect, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { eventually, realPause } from "../support/Eventually.js"
import { Smtp, withSmtp } from "../support/MailStack.js"
import { opsgenieReceiver, pagerDutyReceiver } from "../support/OnCallReceivers.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import type { ReceivedRequest } from "../support/Receiver.js"
import { answerWith, receiver } from "../support/Receiver.js"
import { sendJson } from "../support/TestServer.js"

const Stack = withSmtp(Layer.mergeAll(Dispatcher, ResultIngest.layer))

const regions = ["eu-west", "us-east"] as const
const routingKey = "R0ut1ngKeyOfAnEventsV2Integratn1"
const genieKey = "3f1c1a52-7a44-4f1e-9a0e-3c2b9d6f5e11"

const post = (path: string, body: unknown) =>
  sendJson("POST", path, body).pipe(
    Effect.tap((response) =>
      Effect.sync(() => expect(response.status, JSON.stringify(response.body)).toBeLessThan(300))
    ),
    Effect.map((response) => response.body)
  )

/** A component (public or not) with an http monitor in two regions, down at the first failure, degraded above 500 ms. */
const monitored = (name: string, isPublic = true) =>
  Effect.gen(function*() {
    const component = yield* post("/api/v1/admin/components", { name, isPublic })
    const monitor = yield* post("/api/v1/admin/monitors", {
      componentId: component.id,
      type: "http",
      // Credentials and a query in the URL: the events leave for other services, without them.
      url: "https://probe:s3cret@api.example.test/health?token=abc#frag",
      failureThreshold: 1,
      regions: [...regions],
      degradedAboveMs: 500
    })
    return { componentId: component.id as string, componentName: name, monitorId: monitor.id as string }
  })

/** One minute later, one check per region: `fail` fails (503), else succeeds in `durationMs`. */
const round = (monitorId: string, outcome: "ok" | "slow" | "fail") =>
  Effect.gen(function*() {
    yield* TestClock.adjust("1 minute")
    const scheduledAt = slotOf(monitorId, (yield* Clock.currentTimeMillis) - 30)
    yield* (yield* ResultIngest).ingest(regions.map((region) =>
      checkResult(monitorId, region, scheduledAt, outcome !== "fail", {
        durationMs: outcome === "slow" ? 800 : 40
      })
    ))
    return scheduledAt
  })

const monitorEvents = (mark: string) =>
  Effect.map(outboxSince(mark), (rows) => rows.filter((row) => row.event.startsWith("monitor.")))

/** What each region saw in a round at `scheduledAt` (checkResult checks 20 ms after the slot). */
const evidence = (scheduledAt: number, outcome: "ok" | "slow" | "fail", failures: number) =>
  regions.map((region) => ({
    region,
    ok: outcome !== "fail",
    consecutiveFailures: failures,
    lastCheckedAt: new Date(scheduledAt + 20).toISOString(),
    lastDurationMs: outcome === "slow" ? 800 : 40,
    lastStatusCode: outcome === "fail" ? 503 : 200,
    lastError: outcome === "fail" ? "expected status 200, got 503" : null
  }))

/** Real-time wait until `target` has `count` entries. */
const atLeast = <A>(list: ReadonlyArray<A>, count: number) =>
  eventually(Effect.sync(() => list.slice()), (entries) => entries.length >= count)

/** Real-time wait until `check` holds. */
const until = (check: () => boolean) => eventually(Effect.sync(check), (ok) => ok)

/**
 * Real-time wait until every webhook delivery is recorded as delivered: only then may the clock
 * move on, or a claim whose outcome is still being recorded would run out and be sent again (at
 * least once is the contract, but this test counts).
 */
const allDelivered = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  eventually(
    sql<{ pending: number }>`select count(*)::int as pending from webhook_deliveries where status <> 'delivered'`,
    (rows) => rows[0]!.pending === 0
  ))

it.layer(Stack)("monitor events", (it) => {
  it.effect("down, degraded and up are written with the transition and the regions' evidence; a first up is none", () =>
    Effect.gen(function*() {
      const { componentId, componentName, monitorId } = yield* monitored("Private API", false)
      const mark = yield* outboxMark
      const base = {
        id: monitorId,
        type: "http",
        target: "https://api.example.test/health",
        componentId,
        componentName
      }

      // unknown -> up: a new monitor's first answer is no recovery.
      yield* round(monitorId, "ok")
      expect(yield* monitorEvents(mark)).toEqual([])

      const downAt = yield* round(monitorId, "fail")
      const slowAt = yield* round(monitorId, "slow")
      const upAt = yield* round(monitorId, "ok")
      yield* round(monitorId, "ok")
      const rows = yield* monitorEvents(mark)
      expect(rows.map((row) => [row.event, row.componentIds])).toEqual([
        ["monitor.down", [componentId]],
        ["monitor.degraded", [componentId]],
        ["monitor.up", [componentId]]
      ])
      expect(rows.map((row) => row.payload)).toEqual([
        {
          ...base,
          state: "down",
          previousState: "up",
          since: new Date(downAt).toISOString(),
          regions: evidence(downAt, "fail", 1)
        },
        {
          ...base,
          state: "degraded",
          previousState: "down",
          since: new Date(slowAt).toISOString(),
          regions: evidence(slowAt, "slow", 0)
        },
        {
          ...base,
          state: "up",
          previousState: "degraded",
          since: new Date(upAt).toISOString(),
          regions: evidence(upAt, "ok", 0)
        }
      ])
    }))

  it.effect("an event that cannot be written takes its transition with it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { monitorId } = yield* monitored("Search")
      yield* round(monitorId, "ok")
      const mark = yield* outboxMark
      // PostgreSQL itself refuses this monitor's events for a moment: a real failure of the insert.
      yield* sql.unsafe(`
        create function refuse_monitor_event() returns trigger language plpgsql as $$
        begin
          if new.payload ->> 'id' = '${monitorId}' then raise exception 'monitor event refused'; end if;
          return new;
        end $$`)
      yield* sql.unsafe(`
        create trigger refuse_monitor_event before insert on outbox_events
          for each row execute function refuse_monitor_event()`)
      const stateOf = Effect.map(
        sql<{ state: string; open: number }>`
          select state, (select count(*)::int from monitor_downtime d where d.monitor_id = m.id) as open
          from monitors m where id = ${monitorId}`,
        (rows) => rows[0]
      )
      yield* TestClock.adjust("1 minute")
      const scheduledAt = slotOf(monitorId, (yield* Clock.currentTimeMillis) - 30)
      const failing = regions.map((region) => checkResult(monitorId, region, scheduledAt, false))
      const refused = yield* Effect.exit((yield* ResultIngest).ingest(failing))
      expect(refused._tag).toBe("Failure")
      expect(yield* stateOf).toEqual({ state: "up", open: 0 })
      expect(yield* monitorEvents(mark)).toEqual([])

      yield* sql.unsafe(`drop trigger refuse_monitor_event on outbox_events`)
      yield* sql.unsafe(`drop function refuse_monitor_event()`)
      // The batch left nothing behind: delivered again, it moves the monitor and writes its event.
      yield* (yield* ResultIngest).ingest(failing)
      expect(yield* stateOf).toEqual({ state: "down", open: 1 })
      expect((yield* monitorEvents(mark)).map((row) => row.event)).toEqual(["monitor.down"])
    }))

  it.effect("the dispatcher pages PagerDuty and Opsgenie and nobody who did not ask; subscribers get no mail", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const pagerDuty = yield* pagerDutyReceiver(routingKey)
      const opsgenie = yield* opsgenieReceiver(genieKey)
      const generic = yield* receiver(answerWith(200))
      const chat = yield* receiver(answerWith(200))
      const elsewhere = yield* receiver(answerWith(200))
      const { componentId, monitorId } = yield* monitored("Checkout")
      const other = yield* post("/api/v1/admin/components", { name: "Billing" })

      // A verified subscriber to every component.
      const before = smtp.messages.length
      yield* post("/api/v1/subscribe", { email: "reader@example.test" })
      const [verification] = yield* smtp.waitFor(before + 1)
      const token = /\/subscribe\/verify\/([A-Za-z0-9_-]+)/.exec(verification!.parsed.text ?? "")![1]!
      expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)).status).toBe(200)

      yield* post("/api/v1/admin/webhooks", {
        name: "pager",
        url: pagerDuty.url,
        type: "pagerduty",
        integrationKey: routingKey
      })
      yield* post("/api/v1/admin/webhooks", {
        name: "genie",
        url: opsgenie.url,
        type: "opsgenie",
        integrationKey: genieKey,
        componentIds: [componentId]
      })
      const genericHook = yield* post("/api/v1/admin/webhooks", {
        name: "tools",
        url: generic.url,
        type: "generic",
        notifyOnMonitor: true,
        notifyOnIncident: false,
        notifyOnComponentChange: false
      })
      yield* post("/api/v1/admin/webhooks", {
        name: "chat",
        url: chat.url,
        type: "chat_a",
        notifyOnComponentChange: false
      })
      yield* post("/api/v1/admin/webhooks", {
        name: "billing tools",
        url: elsewhere.url,
        type: "generic",
        notifyOnMonitor: true,
        componentIds: [other.id]
      })

      yield* round(monitorId, "ok")
      const mark = yield* outboxMark
      yield* round(monitorId, "fail")
      const dedupKey = `status-page:monitor:${monitorId}`
      // Each round's deliveries are made, and recorded, before the clock moves on.
      yield* until(() =>
        pagerDuty.alerts.has(dedupKey) && opsgenie.alerts.has(dedupKey) && generic.received.length >= 1
      )
      yield* allDelivered
      const [down] = generic.received
      expect(pagerDuty.alerts.get(dedupKey)).toEqual({
        status: "triggered",
        triggers: 1,
        severity: "critical",
        summary: "Monitor down: Checkout",
        routingKey
      })
      expect(opsgenie.alerts.get(dedupKey)).toMatchObject({ status: "open", count: 1, priority: "P1" })
      const [row] = yield* monitorEvents(mark)
      expect(down!.headers["x-service-event"]).toBe("monitor.down")
      expect(JSON.parse(down!.body)).toMatchObject({ event: "monitor.down", data: row!.payload })
      expect(pagerDuty.accepted[0]!.payload.custom_details).toEqual(row!.payload)

      yield* round(monitorId, "ok")
      yield* until(() =>
        pagerDuty.alerts.get(dedupKey)!.status === "resolved" && opsgenie.alerts.get(dedupKey)!.status === "closed" &&
        generic.received.length >= 2
      )
      yield* allDelivered
      expect(pagerDuty.accepted.map((event) => event.event_action)).toEqual(["trigger", "resolve"])
      expect(opsgenie.alerts.get(dedupKey)).toMatchObject({ status: "closed", count: 1 })
      expect(opsgenie.accepted.map((request) => request.action)).toEqual(["create", "close"])
      expect(pagerDuty.refused).toEqual([])
      expect(opsgenie.refused).toEqual([])

      // An incident posted after the events is handed over after them: once its mail and chat
      // message arrived, the monitor events had their chance and went to nobody else.
      yield* post("/api/v1/admin/incidents", {
        title: "Checkout errors",
        message: "Looking",
        componentIds: [componentId]
      })
      const mails = yield* eventually(Effect.sync(() => smtp.messages.slice(before + 1)), (list) => list.length >= 1)
      expect(mails.map((mail) => mail.parsed.subject)).toEqual([expect.stringContaining("Checkout errors")])
      const [chatMessage] = yield* atLeast(chat.received, 1)
      expect(chatMessage!.headers["x-service-event"]).toBe("incident.created")
      yield* realPause(300)
      expect(chat.received.map((request: ReceivedRequest) => request.headers["x-service-event"])).toEqual([
        "incident.created"
      ])
      expect(elsewhere.received).toEqual([])
      expect(generic.received.map((request) => request.headers["x-service-event"])).toEqual([
        "monitor.down",
        "monitor.up"
      ])
      const sql = yield* SqlClient.SqlClient
      const mailed = yield* sql<{ count: number }>`
        select count(*)::int as count from mail_deliveries d join outbox_events e on e.id::text = d.event_id
        where e.event like 'monitor.%'`
      expect(mailed[0]!.count).toBe(0)
      expect(genericHook.notifyOnMonitor).toBe(true)
    }))
})
