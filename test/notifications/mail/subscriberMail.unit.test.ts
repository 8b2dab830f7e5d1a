import { describe, expect, it } from "@effect/vitest"
import { DateTime } from "effect"

import {
  isMailedEvent,
  type MailedEvent,
  notificationMail,
  verificationMail
} from "../../../src/services/notifications/mail/SubscriberMail.js"
import { mailedEvents, sampleEvents, sender } from "../SampleEvents.js"

describe("subscriber mail", () => {
  it("confirmation mail links to the verify page", () => {
    const mail = verificationMail({ sender, email: "a@example.test", token: "tok_123" })
    expect(mail.to).toBe("a@example.test")
    expect(mail.text).toContain("https://status.acme.test/subscribe/verify/tok_123")
    expect(mail.html).toContain("href=\"https://status.acme.test/subscribe/verify/tok_123\"")
    expect(mail.text).toContain("48 hours")
  })

  it("maintenance mail shows the window; every notification links to its preferences page and to unsubscribe", () => {
    const maintenance = sampleEvents.find((event) => event.event === "maintenance.scheduled")!
    if (!isMailedEvent(maintenance) || maintenance.event !== "maintenance.scheduled") throw new Error("sample")
    const mail = notificationMail({ event: maintenance, sender, email: "a+b@example.test", unsubscribeToken: "u_1" })
    expect(mail.subject).toBe("[Acme Cloud] Maintenance scheduled: Database upgrade")
    expect(mail.text).toContain("Starts: 2026-03-05 22:00 UTC")
    expect(mail.text).toContain("Ends: 2026-03-05 23:30 UTC")
    expect(mail.text).toContain("https://status.acme.test/unsubscribe?email=a%2Bb%40example.test&token=u_1")
    expect(mail.text).toContain("https://status.acme.test/subscription?email=a%2Bb%40example.test&token=u_1")
    expect(mail.html).toContain(
      "href=\"https://status.acme.test/subscription?email=a%2Bb%40example.test&amp;token=u_1\""
    )
    expect(mail.headers).toEqual({
      "List-Unsubscribe":
        "<https://status.acme.test/api/v1/unsubscribe/one-click?email=a%2Bb%40example.test&token=u_1>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
    })
  })

  it("a reminder names the window's times in the organization's time zone", () => {
    const reminder = sampleEvents.find((event) => event.event === "maintenance.reminder")!
    if (reminder.event !== "maintenance.reminder") throw new Error("sample")
    const mail = notificationMail({
      event: reminder,
      sender,
      email: "a@example.test",
      unsubscribeToken: "u_1",
      timeZone: "Europe/Paris"
    })
    expect(mail.subject).toBe(
      "[Acme Cloud] Reminder: scheduled maintenance Database upgrade starts 5 Mar 2026, 23:00 CET"
    )
    expect(mail.text).toContain("Starts: 5 Mar 2026, 23:00 CET")
    expect(mail.text).toContain("Ends: 6 Mar 2026, 00:30 CET")
    expect(mail.html).toContain("<th align=\"left\">Ends</th><td>6 Mar 2026, 00:30 CET</td>")
    expect(mail.text).toContain("https://status.acme.test/unsubscribe?email=a%40example.test&token=u_1")
    // Without a time zone (UTC), as for an organization that never set one.
    expect(notificationMail({ event: reminder, sender, email: "a@example.test", unsubscribeToken: "u_1" }).subject)
      .toBe("[Acme Cloud] Reminder: scheduled maintenance Database upgrade starts 5 Mar 2026, 22:00 UTC")
  })

  it("escapes user text in HTML and keeps the subject on one line", () => {
    const mail = notificationMail({
      event: {
        id: "e",
        event: "incident.updated",
        occurredAt: DateTime.makeUnsafe("2026-03-01T10:00:00.000Z"),
        componentIds: [],
        data: {
          id: "i",
          title: "Bad\r\nBcc: x@y <script>",
          status: "identified",
          severity: "minor",
          componentIds: [],
          message: "<b>x</b>"
        }
      },
      sender,
      email: "a@example.test",
      unsubscribeToken: "u"
    })
    expect(mail.subject).not.toMatch(/[\r\n]/)
    expect(mail.html).not.toContain("<script>")
    expect(mail.html).toContain("&lt;b&gt;x&lt;/b&gt;")
    expect(isMailedEvent({ event: "component.status_changed" })).toBe(false)
  })

  it("every incident and maintenance event gets a mail with a text and an HTML part; a component change gets none", () => {
    const mailed: Array<string> = []
    for (const sample of sampleEvents) {
      // Component and monitor events are the operators' (webhooks), never mailed to subscribers.
      if (!isMailedEvent(sample)) {
        expect(["component.status_changed", "monitor.down", "monitor.degraded", "monitor.up"]).toContain(sample.event)
        continue
      }
      const event = sample as MailedEvent
      mailed.push(event.event)
      const mail = notificationMail({ event, sender, email: "a@example.test", unsubscribeToken: "u_1" })
      expect(mail.subject, event.event).toContain(event.data.title)
      expect(mail.text, event.event).toContain(event.data.title)
      expect(mail.html, event.event).toContain(event.data.title)
      expect(mail.text, event.event).toContain("https://status.acme.test/unsubscribe?email=a%40example.test&token=u_1")
    }
    expect(mailed).toEqual(mailedEvents)
  })
})
