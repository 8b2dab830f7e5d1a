/**
 * The `pagerduty` and `opsgenie` formats (docs/notifications.md, "On-call webhooks"): the requests
 * built for monitor and incident events, checked against the vendors' published schemas by local
 * receivers that refuse what the vendors would refuse; the webhook API's rules for the on-call
 * types and their write-only key; and the test send through the real sender.
 */
import { expect, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"

import type { MonitorEvent, MonitorEventData, NotificationEvent } from "../../src/domain/NotificationEvent.js"
import type { DeliveryTarget } from "../../src/services/notifications/webhooks/DeliveryRequest.js"
import { buildDeliveryRequest } from "../../src/services/notifications/webhooks/DeliveryRequest.js"
import { opsgenieLimits } from "../../src/services/notifications/webhooks/formats/Opsgenie.js"
import { pagerDutyLimits } from "../../src/services/notifications/webhooks/formats/PagerDuty.js"
import {
  opsgenieCloseProblems,
  opsgenieCreateProblems,
  opsgenieReceiver,
  pagerDutyProblems,
  pagerDutyReceiver
} from "../support/OnCallReceivers.js"
import { sendJson, TestServer } from "../support/TestServer.js"

const sender = { name: "Acme Cloud", url: "https://status.acme.test" }
const routingKey = "R0ut1ngKeyOfAnEventsV2Integratn1"
const genieKey = "eb243592-faa2-4ba2-a551-1afdf565c889"

const evidence: MonitorEventData["regions"] = [
  {
    region: "eu-west",
    ok: false,
    consecutiveFailures: 3,
    lastCheckedAt: "2026-03-05T22:03:00.020Z",
    lastDurationMs: 10000,
    lastStatusCode: null,
    lastError: "timed out after 10000 ms"
  },
  {
    region: "us-east",
    ok: false,
    consecutiveFailures: 2,
    lastCheckedAt: "2026-03-05T22:03:00.020Z",
    lastDurationMs: 41.5,
    lastStatusCode: 503,
    lastError: "expected status 200, got 503"
  }
]

let sequence = 0
const monitorEvent = (state: MonitorEventData["state"], data: Partial<MonitorEventData> = {}): MonitorEvent => ({
  id: String(++sequence),
  event: `monitor.${state}`,
  occurredAt: DateTime.makeUnsafe("2026-03-05T22:03:01.000Z"),
  componentIds: ["cmp_api"],
  data: {
    id: "mon_1",
    type: "http",
    target: "https://api.acme.test/health",
    componentId: "cmp_api",
    componentName: "API",
    state,
    previousState: state === "up" ? "down" : "up",
    since: "2026-03-05T22:01:00.000Z",
    regions: evidence,
    ...data
  }
})

const incidentEvent = (
  event: "incident.created" | "incident.updated" | "incident.resolved",
  status: "investigating" | "monitoring" | "resolved",
  extra: { readonly test?: boolean; readonly title?: string } = {}
): NotificationEvent => ({
  id: String(++sequence),
  event,
  occurredAt: DateTime.makeUnsafe("2026-03-05T22:05:00.000Z"),
  componentIds: ["cmp_api"],
  data: {
    id: "inc_1",
    title: "Elevated API error rates",
    status,
    severity: "major",
    componentIds: ["cmp_api"],
    message: "We are looking into it.",
    ...extra
  }
})

const pagerDutyTarget: DeliveryTarget = {
  url: "https://events.pagerduty.com/v2/enqueue",
  type: "pagerduty",
  secret: routingKey
}
const opsgenieTarget: DeliveryTarget = { url: "https://api.opsgenie.com/v2/alerts", type: "opsgenie", secret: genieKey }

const requestFor = (target: DeliveryTarget, event: NotificationEvent) =>
  buildDeliveryRequest({ target, event, sender, deliveryId: `dlv_${event.id}`, timestamp: 1_772_748_181 })

it.layer(TestServer())("on-call formats", (it) => {
  it("pagerduty: down triggers critical, degraded warning, up resolves, one dedup_key per monitor", () => {
    const down = requestFor(pagerDutyTarget, monitorEvent("down"))
    expect(pagerDutyProblems(down.body)).toEqual([])
    expect(down.url).toBe(pagerDutyTarget.url)
    // The key leads the body; nothing else carries it.
    expect(down.body.startsWith(`{"routing_key":"${routingKey}",`)).toBe(true)
    expect(down.headers.authorization).toBeUndefined()
    expect(JSON.parse(down.body)).toEqual({
      routing_key: routingKey,
      event_action: "trigger",
      dedup_key: "status-page:monitor:mon_1",
      payload: {
        summary: "Monitor down: API",
        source: "https://api.acme.test/health",
        severity: "critical",
        timestamp: "2026-03-05T22:01:00.000Z",
        component: "API",
        group: "Acme Cloud",
        class: "http check",
        custom_details: monitorEvent("down").data
      },
      client: "Acme Cloud",
      client_url: "https://status.acme.test",
      links: [{ href: "https://status.acme.test", text: "Acme Cloud status page" }]
    })

    const degraded = JSON.parse(requestFor(pagerDutyTarget, monitorEvent("degraded")).body)
    expect(degraded).toMatchObject({
      event_action: "trigger",
      dedup_key: "status-page:monitor:mon_1",
      payload: { severity: "warning", summary: "Monitor degraded: API" }
    })

    const up = requestFor(pagerDutyTarget, monitorEvent("up"))
    expect(pagerDutyProblems(up.body)).toEqual([])
    expect(JSON.parse(up.body)).toEqual({
      routing_key: routingKey,
      event_action: "resolve",
      dedup_key: "status-page:monitor:mon_1"
    })
  })

  it("pagerduty: incidents trigger with their severity and resolve when resolved; a test send is an info alert of its own", () => {
    const created = JSON.parse(requestFor(pagerDutyTarget, incidentEvent("incident.created", "investigating")).body)
    expect(created).toMatchObject({
      event_action: "trigger",
      dedup_key: "status-page:incident:inc_1",
      payload: { severity: "error", summary: "New incident: Elevated API error rates", class: "incident" }
    })
    const updated = JSON.parse(requestFor(pagerDutyTarget, incidentEvent("incident.updated", "monitoring")).body)
    expect(updated).toMatchObject({ event_action: "trigger", dedup_key: "status-page:incident:inc_1" })
    // An update to resolved (and a postmortem of a resolved incident) must not page again.
    for (
      const event of [incidentEvent("incident.updated", "resolved"), incidentEvent("incident.resolved", "resolved")]
    ) {
      expect(JSON.parse(requestFor(pagerDutyTarget, event).body)).toEqual({
        routing_key: routingKey,
        event_action: "resolve",
        dedup_key: "status-page:incident:inc_1"
      })
    }
    const sample = incidentEvent("incident.created", "investigating", { test: true })
    const test = JSON.parse(requestFor(pagerDutyTarget, sample).body)
    expect(test).toMatchObject({
      event_action: "trigger",
      dedup_key: `status-page:test:${sample.id}`,
      payload: { severity: "info", summary: "[Test] New incident: Elevated API error rates" }
    })
    for (const body of [created, updated, test]) expect(pagerDutyProblems(JSON.stringify(body))).toEqual([])
  })

  it("opsgenie: down creates a P1 alert by alias with GenieKey, up closes it by alias", () => {
    const down = requestFor(opsgenieTarget, monitorEvent("down"))
    expect(down.url).toBe("https://api.opsgenie.com/v2/alerts")
    expect(down.headers.authorization).toBe(`GenieKey ${genieKey}`)
    expect(opsgenieCreateProblems(down.body)).toEqual([])
    const body = JSON.parse(down.body)
    expect(body).toMatchObject({
      message: "Monitor down: API",
      alias: "status-page:monitor:mon_1",
      priority: "P1",
      source: "Acme Cloud",
      entity: "API",
      tags: ["status-page", "monitor-down", "check-http"],
      details: {
        monitorId: "mon_1",
        target: "https://api.acme.test/health",
        state: "down",
        previousState: "up",
        since: "2026-03-05T22:01:00.000Z",
        "region eu-west": "eu-west: failing ×3 (timed out after 10000 ms), 10000 ms at 2026-03-05 22:03 UTC",
        "region us-east": "us-east: failing ×2 (expected status 200, got 503), 42 ms at 2026-03-05 22:03 UTC"
      }
    })
    expect(body.description).toContain(
      "The http check of https://api.acme.test/health is down since 2026-03-05 22:01 UTC."
    )
    expect(JSON.parse(requestFor(opsgenieTarget, monitorEvent("degraded")).body)).toMatchObject({
      alias: "status-page:monitor:mon_1",
      priority: "P3"
    })

    const up = requestFor(opsgenieTarget, monitorEvent("up"))
    expect(up.url).toBe(
      "https://api.opsgenie.com/v2/alerts/status-page%3Amonitor%3Amon_1/close?identifierType=alias"
    )
    expect(up.headers.authorization).toBe(`GenieKey ${genieKey}`)
    expect(opsgenieCloseProblems(up.body)).toEqual([])
    expect(JSON.parse(up.body)).toEqual({
      source: "Acme Cloud",
      note: expect.stringContaining("Monitor up: API")
    })
  })

  it("long texts are cut to the vendors' limits rather than refused", () => {
    const long = monitorEvent("down", {
      componentName: "C".repeat(200),
      target: `https://api.acme.test/${"p".repeat(2000)}`,
      regions: Array.from(
        { length: 40 },
        (_, i) => ({ ...evidence[0]!, region: `region-${i}`, lastError: "e".repeat(500) })
      )
    })
    const pagerDuty = requestFor(pagerDutyTarget, long)
    expect(pagerDutyProblems(pagerDuty.body)).toEqual([])
    const opsgenie = requestFor(opsgenieTarget, long)
    expect(opsgenieCreateProblems(opsgenie.body)).toEqual([])
    const body = JSON.parse(opsgenie.body)
    expect(Array.from(body.message as string)).toHaveLength(opsgenieLimits.message)
    expect((body.message as string).endsWith("…")).toBe(true)
    const hugeTitle = incidentEvent("incident.created", "investigating", { title: "T".repeat(3000) })
    const summary = JSON.parse(requestFor(pagerDutyTarget, hugeTitle).body).payload.summary as string
    expect(Array.from(summary)).toHaveLength(pagerDutyLimits.summary)
  })

  it.effect("the receivers refuse what the vendors refuse", () =>
    Effect.gen(function*() {
      const pagerDuty = yield* pagerDutyReceiver(routingKey)
      const opsgenie = yield* opsgenieReceiver(genieKey)
      const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
        Effect.promise(() =>
          fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", ...headers },
            body: JSON.stringify(body)
          }).then((response) => response.status)
        )
      const trigger = JSON.parse(requestFor(pagerDutyTarget, monitorEvent("down")).body)
      expect(yield* post(pagerDuty.url, trigger)).toBe(202)
      const { payload: _payload, ...withoutPayload } = trigger
      const { dedup_key: _dedupKey, ...resolveWithoutKey } = { ...trigger, event_action: "resolve" }
      for (
        const malformed of [
          withoutPayload,
          resolveWithoutKey,
          { ...trigger, routing_key: routingKey.slice(1) },
          { ...trigger, payload: { ...trigger.payload, severity: "fatal" } },
          { ...trigger, payload: { ...trigger.payload, summary: "s".repeat(1025) } },
          { ...trigger, payload: { ...trigger.payload, source: undefined } },
          { ...trigger, payload: { ...trigger.payload, timestamp: "yesterday" } },
          { ...trigger, event_action: "page" },
          { ...trigger, priority: "high" }
        ]
      ) {
        expect(yield* post(pagerDuty.url, malformed), JSON.stringify(malformed).slice(0, 200)).toBe(400)
      }
      expect(pagerDuty.refused).toHaveLength(9)
      expect(pagerDuty.accepted).toHaveLength(1)

      const auth = { authorization: `GenieKey ${genieKey}` }
      const create = JSON.parse(requestFor(opsgenieTarget, monitorEvent("down")).body)
      expect(yield* post(opsgenie.url, create, auth)).toBe(202)
      for (
        const malformed of [
          { ...create, message: "m".repeat(131) },
          { ...create, message: undefined },
          { ...create, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
          { ...create, tags: ["t".repeat(51)] },
          { ...create, details: { count: 3 } },
          { ...create, details: { big: "d".repeat(8000) } },
          { ...create, priority: "P0" },
          { ...create, source: "s".repeat(101) },
          { ...create, severity: "critical" }
        ]
      ) {
        expect(yield* post(opsgenie.url, malformed, auth), JSON.stringify(malformed).slice(0, 200)).toBe(422)
      }
      expect(yield* post(opsgenie.url, create)).toBe(401)
      expect(yield* post(opsgenie.url, create, { authorization: `Bearer ${genieKey}` })).toBe(401)
      const closeUrl = `${opsgenie.url}/status-page%3Amonitor%3Amon_1/close`
      expect(yield* post(`${closeUrl}?identifierType=id`, { source: "x" }, auth)).toBe(422)
      expect(yield* post(`${closeUrl}?identifierType=alias`, { source: "x", message: "no" }, auth)).toBe(422)
      expect(yield* post(`${closeUrl}?identifierType=alias`, { source: "x", note: "back" }, auth)).toBe(202)
      expect(opsgenie.alerts.get("status-page:monitor:mon_1")).toMatchObject({ status: "closed", count: 1 })
    }))

  it.effect("the API: on-call types need their key, which no answer shows; they page on incidents and monitors only", () =>
    Effect.gen(function*() {
      const url = "https://events.pagerduty.com/v2/enqueue"
      const refused = (response: { status: number; body: any }) => ({
        status: response.status,
        issues: (response.body.issues ?? []).map((issue: { path: ReadonlyArray<unknown>; message: string }) =>
          `${issue.path.join(".")}: ${issue.message}`
        )
      })
      expect(refused(yield* sendJson("POST", "/api/v1/admin/webhooks", { name: "pd", url, type: "pagerduty" })))
        .toEqual({ status: 400, issues: ["integrationKey: is required for pagerduty webhooks"] })
      expect(
        refused(
          yield* sendJson("POST", "/api/v1/admin/webhooks", {
            name: "pd",
            url,
            type: "pagerduty",
            integrationKey: "short",
            notifyOnMaintenance: true
          })
        )
      ).toEqual({
        status: 400,
        issues: [
          "integrationKey: must be the 32-character integration key of a PagerDuty Events API v2 integration",
          "notifyOnMaintenance: must be false: pagerduty webhooks page on incident and monitor events only"
        ]
      })
      expect(
        refused(
          yield* sendJson("POST", "/api/v1/admin/webhooks", {
            name: "g",
            url,
            type: "generic",
            integrationKey: routingKey
          })
        )
      ).toEqual({ status: 400, issues: ["integrationKey: applies to pagerduty and opsgenie webhooks only"] })
      expect(
        (yield* sendJson("POST", "/api/v1/admin/webhooks", {
          name: "og",
          url: "https://api.opsgenie.com/v2/alerts",
          type: "opsgenie",
          integrationKey: "has a space"
        })).status
      ).toBe(400)

      const created = yield* sendJson("POST", "/api/v1/admin/webhooks", {
        name: "pd",
        url,
        type: "pagerduty",
        integrationKey: routingKey
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({
        type: "pagerduty",
        secret: null,
        notifyOnIncident: false,
        notifyOnMaintenance: false,
        notifyOnComponentChange: false,
        notifyOnMonitor: true
      })
      const chat = yield* sendJson("POST", "/api/v1/admin/webhooks", { name: "chat", url, type: "slack" })
      expect(chat.body).toMatchObject({
        type: "chat_a",
        notifyOnIncident: true,
        notifyOnMaintenance: true,
        notifyOnComponentChange: true,
        notifyOnMonitor: false
      })
      const id = created.body.id as string
      const updated = yield* sendJson("PUT", `/api/v1/admin/webhooks/${id}`, {
        notifyOnIncident: true,
        integrationKey: "N3wRout1ngKeyOfAnEventsV2Integrt"
      })
      expect(updated.status).toBe(200)
      expect(updated.body).toMatchObject({ notifyOnIncident: true, notifyOnMonitor: true })
      expect(
        refused(yield* sendJson("PUT", `/api/v1/admin/webhooks/${id}`, { notifyOnComponentChange: true }))
      ).toEqual({
        status: 400,
        issues: ["notifyOnComponentChange: must be false: pagerduty webhooks page on incident and monitor events only"]
      })
      expect(
        refused(yield* sendJson("PUT", `/api/v1/admin/webhooks/${chat.body.id}`, { integrationKey: routingKey }))
      ).toEqual({ status: 400, issues: ["integrationKey: applies to pagerduty and opsgenie webhooks only"] })
      // The key goes only to the host it was given for: another host needs it given again.
      expect(
        refused(yield* sendJson("PUT", `/api/v1/admin/webhooks/${id}`, { url: "http://127.0.0.2:9/enqueue" }))
      ).toEqual({
        status: 400,
        issues: [
          "integrationKey: give the key again with a URL of another host: a stored key is sent only to the host it was given for"
        ]
      })
      const moved = yield* sendJson("PUT", `/api/v1/admin/webhooks/${id}`, {
        url: "http://127.0.0.2:9/enqueue",
        integrationKey: "N3wRout1ngKeyOfAnEventsV2Integrt"
      })
      expect(moved.status).toBe(200)
      // Written, never read back: not in any answer, nor in the audit log.
      const answers = [
        created.body,
        updated.body,
        (yield* sendJson("GET", `/api/v1/admin/webhooks/${id}`)).body,
        (yield* sendJson("GET", "/api/v1/admin/webhooks")).body,
        (yield* sendJson("GET", "/api/v1/admin/audit-log")).body
      ]
      for (const answer of answers) {
        expect(JSON.stringify(answer)).not.toContain(routingKey)
        expect(JSON.stringify(answer)).not.toContain("N3wRout1ngKey")
      }
    }))

  it.effect("a test send reaches the receivers in their format, with the key as last set", () =>
    Effect.gen(function*() {
      const firstKey = "F1rstRout1ngKeyOfAnEventsV2Integ"
      const secondKey = "S2condRout1ngKeyOfAnEventsV2Int2"
      const pagerDuty = yield* pagerDutyReceiver()
      const opsgenie = yield* opsgenieReceiver(genieKey)
      const pd = (yield* sendJson("POST", "/api/v1/admin/webhooks", {
        name: "pd",
        url: pagerDuty.url,
        type: "pagerduty",
        integrationKey: firstKey
      })).body
      const og = (yield* sendJson("POST", "/api/v1/admin/webhooks", {
        name: "og",
        url: opsgenie.url,
        type: "opsgenie",
        integrationKey: genieKey
      })).body

      const tested = (id: string) => Effect.map(sendJson("POST", `/api/v1/admin/webhooks/${id}/test`), (r) => r.body)
      expect(yield* tested(pd.id)).toMatchObject({ success: true, statusCode: 202 })
      yield* sendJson("PUT", `/api/v1/admin/webhooks/${pd.id}`, { integrationKey: secondKey })
      expect(yield* tested(pd.id)).toMatchObject({ success: true, statusCode: 202 })
      expect(pagerDuty.refused).toEqual([])
      expect(pagerDuty.accepted.map((event) => [event.routing_key, event.event_action, event.payload.severity]))
        .toEqual([
          [firstKey, "trigger", "info"],
          [secondKey, "trigger", "info"]
        ])
      expect(pagerDuty.accepted[0]!.payload.summary).toBe("[Test] New incident: Test notification")

      expect(yield* tested(og.id)).toMatchObject({ success: true, statusCode: 202 })
      expect(opsgenie.refused).toEqual([])
      expect(opsgenie.accepted).toHaveLength(1)
      expect(opsgenie.accepted[0]).toMatchObject({
        action: "create",
        body: { message: "[Test] New incident: Test notification", priority: "P5" }
      })
      // A receiver that refuses the key: the test says so.
      const wrongKey = (yield* sendJson("POST", "/api/v1/admin/webhooks", {
        name: "og wrong key",
        url: opsgenie.url,
        type: "opsgenie",
        integrationKey: "another-key"
      })).body
      expect(yield* tested(wrongKey.id)).toMatchObject({ success: false, statusCode: 401, error: "HTTP 401" })
    }))
})
