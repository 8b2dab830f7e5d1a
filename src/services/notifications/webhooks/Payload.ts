/** The payload of an event in a webhook's format: a pure function of the event and the sender. */
import type { NotificationEvent, Sender } from "../../../domain/NotificationEvent.js"
import type { WebhookType } from "../../../domain/Webhook.js"
import { chatA } from "./formats/ChatA.js"
import { chatB } from "./formats/ChatB.js"
import { chatC } from "./formats/ChatC.js"
import { generic } from "./formats/Generic.js"
import { opsgenie } from "./formats/Opsgenie.js"
import { pagerDuty } from "./formats/PagerDuty.js"

export const renderPayload = (type: WebhookType, event: NotificationEvent, sender: Sender): unknown => {
  switch (type) {
    case "chat_a":
      return chatA(event, sender)
    case "chat_b":
      return chatB(event, sender)
    case "chat_c":
      return chatC(event, sender)
    case "generic":
      return generic(event, sender)
    case "pagerduty":
      return pagerDuty(event, sender)
    case "opsgenie":
      return opsgenie(event, sender)
  }
}

/** The exact bytes sent (and signed). Rendering is deterministic, so a retry sends the same body. */
export const renderBody = (type: WebhookType, event: NotificationEvent, sender: Sender): string =>
  JSON.stringify(renderPayload(type, event, sender))
