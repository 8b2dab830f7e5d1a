/**
 * `chat_a`: a Slack incoming-webhook message. The colour bar of the attachment carries the
 * tone; facts become short `fields`. `text` is what Slack shows in notifications.
 * https://api.slack.com/reference/messaging/attachments
 */
import { DateTime } from "effect"

import type { NotificationEvent, Sender } from "../../../../domain/NotificationEvent.js"
import { present, toneColor } from "./Presentation.js"

/** Slack reads `&`, `<` and `>` as markup; user text must not open links or mentions. */
const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

export const chatA = (event: NotificationEvent, sender: Sender) => {
  const view = present(event, sender)
  return {
    text: escape(view.title),
    attachments: [
      {
        color: toneColor[view.tone],
        fallback: escape(view.title),
        title: escape(view.title),
        title_link: view.url,
        text: escape(view.description),
        fields: view.facts.map((fact) => ({ title: escape(fact.label), value: escape(fact.value), short: true })),
        footer: escape(view.footer),
        ts: Math.floor(DateTime.toEpochMillis(event.occurredAt) / 1000)
      }
    ]
  }
}
