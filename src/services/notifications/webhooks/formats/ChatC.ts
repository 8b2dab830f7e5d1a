/**
 * `chat_c`: a Microsoft Teams message for the "Workflows" webhooks that replace Office 365
 * connectors: an Adaptive Card 1.4 in `attachments`. Adaptive Cards have no free colours, so
 * the tone maps to the card's named styles: with no orange among them, a major tone is the
 * minor's yellow container with the critical's red title, so the three stay apart.
 * https://learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using
 */
import { formatUtcIso } from "../../../../domain/InstantFormat.js"
import type { NotificationEvent, Sender } from "../../../../domain/NotificationEvent.js"
import type { Tone } from "./Presentation.js"
import { present } from "./Presentation.js"

const containerStyle: Record<Tone, string> = {
  good: "good",
  minor: "warning",
  major: "warning",
  critical: "attention",
  maintenance: "accent",
  neutral: "emphasis"
}

const textColor: Record<Tone, string> = {
  good: "Good",
  minor: "Warning",
  major: "Attention",
  critical: "Attention",
  maintenance: "Accent",
  neutral: "Default"
}

export const chatC = (event: NotificationEvent, sender: Sender) => {
  const view = present(event, sender)
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
            {
              type: "Container",
              style: containerStyle[view.tone],
              bleed: true,
              items: [
                {
                  type: "TextBlock",
                  text: view.title,
                  weight: "Bolder",
                  size: "Medium",
                  color: textColor[view.tone],
                  wrap: true
                },
                {
                  type: "TextBlock",
                  text: `${view.footer} · ${formatUtcIso(view.timestamp)}`,
                  isSubtle: true,
                  spacing: "None",
                  wrap: true
                }
              ]
            },
            ...(view.description.length > 0 ? [{ type: "TextBlock", text: view.description, wrap: true }] : []),
            { type: "FactSet", facts: view.facts.map((fact) => ({ title: fact.label, value: fact.value })) }
          ],
          actions: [{ type: "Action.OpenUrl", title: "View status page", url: view.url }],
          msteams: { width: "Full" }
        }
      }
    ]
  }
}
