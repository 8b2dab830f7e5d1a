/**
 * Golden files pin each format for each event kind (test/fixtures/webhooks/<type>.json).
 * After an intended change of a format, regenerate them with UPDATE_GOLDEN=1 and review the diff.
 */
import { readFileSync, writeFileSync } from "node:fs"

import { describe, expect, it } from "@effect/vitest"
import { DateTime } from "effect"

import type { NotificationEvent } from "../../../src/domain/NotificationEvent.js"
import type { WebhookType } from "../../../src/domain/Webhook.js"
import { chatB, discordLimits } from "../../../src/services/notifications/webhooks/formats/ChatB.js"
import { toneColor } from "../../../src/services/notifications/webhooks/formats/Presentation.js"
import { renderPayload } from "../../../src/services/notifications/webhooks/Payload.js"
import { sampleEvents, sender } from "../SampleEvents.js"

const types: ReadonlyArray<WebhookType> = ["chat_a", "chat_b", "chat_c", "generic"]
const fixture = (type: WebhookType) => new URL(`../../fixtures/webhooks/${type}.json`, import.meta.url)

const rendered = (type: WebhookType) =>
  JSON.parse(
    JSON.stringify(Object.fromEntries(sampleEvents.map((event) => [event.event, renderPayload(type, event, sender)])))
  )

describe("webhook formats", () => {
  for (const type of types) {
    it(`${type} matches its golden file for all eight events`, () => {
      const actual = rendered(type)
      if (process.env.UPDATE_GOLDEN === "1") {
        writeFileSync(fixture(type), JSON.stringify(actual, null, 2) + "\n")
      }
      const golden = JSON.parse(readFileSync(fixture(type), "utf8"))
      expect(Object.keys(golden)).toHaveLength(8)
      expect(actual).toEqual(golden)
    })
  }

  it("generic carries the specification's fields", () => {
    const [created] = sampleEvents
    expect(renderPayload("generic", created!, sender)).toEqual({
      event: "incident.created",
      timestamp: "2026-03-01T10:00:00.000Z",
      organization: { name: "Acme Cloud", url: "https://status.acme.test" },
      data: expect.objectContaining({
        id: "inc_1",
        title: "Elevated API error rates",
        status: "investigating",
        severity: "major"
      })
    })
  })

  it("colours each status the same way in the three chat formats, and keeps the tones apart in each", () => {
    // Teams cards have named styles only: a container style and the title's colour.
    const teamsTone = {
      good: "good Good",
      minor: "warning Warning",
      major: "warning Attention",
      critical: "attention Attention",
      maintenance: "accent Accent"
    }
    const statuses = [
      ["operational", "good"],
      ["degraded", "minor"],
      ["partial_outage", "major"],
      ["major_outage", "critical"],
      ["maintenance", "maintenance"]
    ] as const
    for (const [status, tone] of statuses) {
      const event = {
        ...sampleEvents[6]!,
        data: { id: "c", name: "API", previousStatus: "operational", status }
      } as NotificationEvent
      const slack = renderPayload("chat_a", event, sender) as { attachments: Array<{ color: string }> }
      const discord = renderPayload("chat_b", event, sender) as { embeds: Array<{ color: number }> }
      const teams = renderPayload("chat_c", event, sender) as {
        attachments: Array<{ content: { body: Array<{ style: string; items: Array<{ color?: string }> }> } }>
      }
      const card = teams.attachments[0]!.content.body[0]!
      expect(slack.attachments[0]!.color, status).toBe(toneColor[tone])
      expect(discord.embeds[0]!.color, status).toBe(Number.parseInt(toneColor[tone].slice(1), 16))
      expect(`${card.style} ${card.items[0]!.color}`, status).toBe(teamsTone[tone])
    }
    expect(new Set(Object.values(toneColor)).size).toBe(Object.keys(toneColor).length)
    expect(new Set(Object.values(teamsTone)).size).toBe(Object.keys(teamsTone).length)
  })

  it("a maintenance reminder says the window starts soon, in the maintenance colour, in every format", () => {
    const reminder = sampleEvents.find((event) => event.event === "maintenance.reminder")!
    const generic = renderPayload("generic", reminder, sender) as { event: string; data: unknown }
    expect(generic).toMatchObject({ event: "maintenance.reminder", data: reminder.data })
    const slack = renderPayload("chat_a", reminder, sender) as { attachments: Array<{ title: string; color: string }> }
    const discord = renderPayload("chat_b", reminder, sender) as { embeds: Array<{ title: string; color: number }> }
    const teams = JSON.stringify(renderPayload("chat_c", reminder, sender))
    const title = "Maintenance starts soon: Database upgrade"
    expect(slack.attachments[0]).toMatchObject({ title, color: toneColor.maintenance })
    expect(discord.embeds[0]).toMatchObject({ title, color: parseInt(toneColor.maintenance.slice(1), 16) })
    expect(teams).toContain(title)
    expect(teams).toContain("\"style\":\"accent\"")
  })

  it("escapes Slack markup in user text", () => {
    const slack = renderPayload("chat_a", sampleEvents[0]!, sender) as { attachments: Array<{ text: string }> }
    expect(slack.attachments[0]!.text).toBe("We are investigating &lt;5xx&gt; errors &amp; timeouts.")
  })

  it("keeps Discord embeds within Discord's limits however long the texts are", () => {
    const huge: NotificationEvent = {
      id: "evt_big",
      event: "incident.updated",
      occurredAt: DateTime.makeUnsafe("2026-03-01T10:00:00.000Z"),
      componentIds: [],
      data: {
        id: "inc_big",
        title: "T".repeat(5000),
        status: "identified",
        severity: "critical",
        componentIds: [],
        message: "😀".repeat(9000)
      }
    }
    const { embeds: [embed] } = chatB(huge, { name: "N".repeat(3000), url: "https://status.acme.test" })
    const chars = (text: string) => Array.from(text).length
    expect(chars(embed!.title)).toBe(discordLimits.title)
    expect(embed!.title.endsWith("…")).toBe(true)
    expect(chars(embed!.footer.text)).toBeLessThanOrEqual(discordLimits.footer)
    expect(chars(embed!.description ?? "")).toBeLessThanOrEqual(discordLimits.description)
    expect(embed!.fields.length).toBeLessThanOrEqual(discordLimits.fields)
    for (const field of embed!.fields) {
      expect(chars(field.name)).toBeLessThanOrEqual(discordLimits.fieldName)
      expect(chars(field.value)).toBeLessThanOrEqual(discordLimits.fieldValue)
      expect(field.value.length).toBeGreaterThan(0)
    }
    const total = chars(embed!.title) + chars(embed!.description ?? "") + chars(embed!.footer.text) +
      embed!.fields.reduce((sum, field) => sum + chars(field.name) + chars(field.value), 0)
    expect(total).toBeLessThanOrEqual(discordLimits.total)
    // The description was cut to fit, not dropped.
    expect(chars(embed!.description ?? "")).toBeGreaterThan(1000)
  })
})
