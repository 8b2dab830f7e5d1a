/** One event of each of the eight kinds, fixed in time, for the golden files of the formats. */
import { DateTime } from "effect"

import type { NotificationEvent, Sender } from "../../src/domain/NotificationEvent.js"

export const sender: Sender = { name: "Acme Cloud", url: "https://status.acme.test" }

const at = (iso: string) => DateTime.makeUnsafe(iso)

const incident = {
  id: "inc_1",
  title: "Elevated API error rates",
  severity: "major",
  componentIds: ["cmp_api", "cmp_web"]
} as const

export const sampleEvents: ReadonlyArray<NotificationEvent> = [
  {
    id: "evt_1",
    event: "incident.created",
    occurredAt: at("2026-03-01T10:00:00.000Z"),
    componentIds: ["cmp_api", "cmp_web"],
    data: { ...incident, status: "investigating", message: "We are investigating <5xx> errors & timeouts." }
  },
  {
    id: "evt_2",
    event: "incident.updated",
    occurredAt: at("2026-03-01T10:20:00.000Z"),
    componentIds: ["cmp_api", "cmp_web"],
    data: { ...incident, status: "identified", message: "A faulty deploy was identified and is being rolled back." }
  },
  {
    id: "evt_3",
    event: "incident.resolved",
    occurredAt: at("2026-03-01T11:00:00.000Z"),
    componentIds: ["cmp_api", "cmp_web"],
    data: { ...incident, status: "resolved", message: "Error rates are back to normal." }
  },
  {
    id: "evt_4",
    event: "maintenance.scheduled",
    occurredAt: at("2026-03-02T09:00:00.000Z"),
    componentIds: ["cmp_db"],
    data: {
      id: "mnt_1",
      title: "Database upgrade",
      status: "scheduled",
      scheduledStart: "2026-03-05T22:00:00.000Z",
      scheduledEnd: "2026-03-05T23:30:00.000Z",
      componentIds: ["cmp_db"]
    }
  },
  {
    id: "evt_5",
    event: "maintenance.started",
    occurredAt: at("2026-03-05T22:00:00.000Z"),
    componentIds: ["cmp_db"],
    data: {
      id: "mnt_1",
      title: "Database upgrade",
      status: "in_progress",
      scheduledStart: "2026-03-05T22:00:00.000Z",
      scheduledEnd: "2026-03-05T23:30:00.000Z",
      componentIds: ["cmp_db"]
    }
  },
  {
    id: "evt_6",
    event: "maintenance.completed",
    occurredAt: at("2026-03-05T23:30:00.000Z"),
    componentIds: ["cmp_db"],
    data: {
      id: "mnt_1",
      title: "Database upgrade",
      status: "completed",
      scheduledStart: "2026-03-05T22:00:00.000Z",
      scheduledEnd: "2026-03-05T23:30:00.000Z",
      componentIds: ["cmp_db"]
    }
  },
  {
    id: "evt_7",
    event: "component.status_changed",
    occurredAt: at("2026-03-06T08:15:00.000Z"),
    componentIds: ["cmp_api"],
    data: { id: "cmp_api", name: "Public API", previousStatus: "operational", status: "partial_outage" }
  },
  {
    id: "evt_8",
    event: "maintenance.reminder",
    occurredAt: at("2026-03-04T22:00:00.000Z"),
    componentIds: ["cmp_db"],
    data: {
      id: "mnt_1",
      title: "Database upgrade",
      status: "scheduled",
      scheduledStart: "2026-03-05T22:00:00.000Z",
      scheduledEnd: "2026-03-05T23:30:00.000Z",
      componentIds: ["cmp_db"]
    }
  }
]

/** The events the issue says verified subscribers are mailed about, in the order of `sampleEvents`. */
export const mailedEvents = [
  "incident.created",
  "incident.updated",
  "incident.resolved",
  "maintenance.scheduled",
  "maintenance.started",
  "maintenance.completed",
  "maintenance.reminder"
]
