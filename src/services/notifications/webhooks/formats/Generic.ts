/** `generic`: the service's own JSON payload (docs/notifications.md, "Payloads"), signed by the sender. */
import { DateTime } from "effect"

import type { NotificationEvent, Sender } from "../../../../domain/NotificationEvent.js"

export const generic = (event: NotificationEvent, sender: Sender) => ({
  event: event.event,
  timestamp: DateTime.formatIso(event.occurredAt),
  organization: { name: sender.name, url: sender.url },
  data: event.data
})
