/**
 * An outbox row as the NotificationEvent the webhook formats and the mail render: the row id
 * is the event id, the commit time its `occurredAt`, the recorded component ids what the
 * webhook filter applies to. Pure.
 */
import { Schema } from "effect"

import { NotificationEvent } from "../../../domain/NotificationEvent.js"
import type { OutboxRow } from "../../../persistence/OutboxRepo.js"

// Fields the formats do not know are dropped; the tests compare payloads with the outbox rows.
const decodeEvent = Schema.decodeUnknownResult(NotificationEvent)

export const toNotificationEvent = (row: OutboxRow) =>
  decodeEvent({
    id: row.id,
    event: row.event,
    occurredAt: row.createdAt.toISOString(),
    componentIds: row.componentIds,
    data: row.payload
  })
