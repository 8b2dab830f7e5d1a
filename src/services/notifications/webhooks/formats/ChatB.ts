/**
 * `chat_b`: a Discord webhook message with one embed. Discord refuses a message that exceeds
 * its embed limits, so every text is cut to fit instead: a notification must never fail on
 * a long incident title or message.
 * https://discord.com/developers/docs/resources/message#embed-object-embed-limits
 */
import type { NotificationEvent, Sender } from "../../../../domain/NotificationEvent.js"
import { present, toneColor } from "./Presentation.js"

export const discordLimits = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000
} as const

/** Cuts `text` to at most `max` characters (code points), marking the cut with an ellipsis. */
export const truncate = (text: string, max: number): string => {
  const chars = Array.from(text)
  return chars.length <= max ? text : chars.slice(0, Math.max(0, max - 1)).join("") + "…"
}

const length = (text: string) => Array.from(text).length

export const chatB = (event: NotificationEvent, sender: Sender) => {
  const view = present(event, sender)
  const title = truncate(view.title, discordLimits.title)
  const footer = truncate(view.footer, discordLimits.footer)
  const fields = view.facts.slice(0, discordLimits.fields).map((fact) => ({
    name: truncate(fact.label, discordLimits.fieldName) || "-",
    // Discord refuses empty field values.
    value: truncate(fact.value, discordLimits.fieldValue) || "-",
    inline: true
  }))
  const fixed = length(title) + length(footer) +
    fields.reduce((sum, field) => sum + length(field.name) + length(field.value), 0)
  // The description gives way first so that the whole embed stays within the total.
  const description = truncate(view.description, Math.min(discordLimits.description, discordLimits.total - fixed))
  return {
    // Incident titles are user text: they must not ping @everyone or roles.
    allowed_mentions: { parse: [] as Array<string> },
    embeds: [
      {
        title,
        ...(description.length > 0 ? { description } : {}),
        url: view.url,
        color: Number.parseInt(toneColor[view.tone].slice(1), 16),
        fields,
        footer: { text: footer },
        timestamp: view.timestamp
      }
    ]
  }
}
