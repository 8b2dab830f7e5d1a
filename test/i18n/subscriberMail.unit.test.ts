/**
 * Subscriber mail in the language subscribed in, from the page subscribed to: its words, its
 * links under the page's address, the one-click unsubscribe at the service's own address, and
 * reminders in the page's zone by the language's conventions. English says what chat messages
 * say (webhooks/formats/Presentation.ts), word for word.
 */
import { describe, expect, it } from "vitest"

import { locales } from "../../src/domain/Locale.js"
import type { MaintenanceEvent } from "../../src/domain/NotificationEvent.js"
import { messagesFor } from "../../src/i18n/Messages.js"
import {
  isMailedEvent,
  notificationMail,
  verificationMail
} from "../../src/services/notifications/mail/SubscriberMail.js"
import { present } from "../../src/services/notifications/webhooks/formats/Presentation.js"
import { sampleEvents, sender } from "../notifications/SampleEvents.js"

const page = { name: "Acme Kunden", url: "https://status.acme.test/p/kunden" }
const mailed = sampleEvents.filter(isMailedEvent) as Array<Parameters<typeof notificationMail>[0]["event"]>

describe("subscriber mail in the subscriber's language", () => {
  it("English says what a chat message says about each event, besides reminders", () => {
    for (const event of mailed) {
      if (event.event === "maintenance.reminder") continue
      const mail = notificationMail({ event, sender, email: "a@example.test", unsubscribeToken: "u" })
      const chat = present(event, sender)
      expect(mail.subject, event.event).toBe(`[${sender.name}] ${chat.title}`)
      if (chat.description !== "") expect(mail.text, event.event).toContain(`\n\n${chat.description}\n\n`)
      for (const fact of chat.facts) expect(mail.text, event.event).toContain(`\n${fact.label}: ${fact.value}\n`)
      expect(mail.html, event.event).toContain("<html lang=\"en\">")
    }
  })

  it("the confirmation is in the subscriber's language and links under the page's address", () => {
    const mail = verificationMail({ sender: page, email: "a@example.test", token: "tok_1", locale: "de" })
    expect(mail.subject).toBe("Bestätigen Sie Ihr Abonnement der Status-Updates von Acme Kunden")
    expect(mail.text).toContain("Bestätigen Sie innerhalb von 48 Stunden, indem Sie diesen Link öffnen:\n")
    expect(mail.text).toContain("https://status.acme.test/p/kunden/subscribe/verify/tok_1")
    expect(mail.html).toContain("<html lang=\"de\">")
    expect(mail.html).toContain(
      "<p><a href=\"https://status.acme.test/p/kunden/subscribe/verify/tok_1\">Bestätigen Sie Ihr Abonnement</a> innerhalb von 48 Stunden.</p>"
    )
    // Without a language: English, as before.
    expect(verificationMail({ sender: page, email: "a@example.test", token: "t" }).subject).toBe(
      "Confirm your subscription to Acme Kunden status updates"
    )
  })

  it("a notification names the event in the subscriber's language; one-click unsubscribe goes to the service", () => {
    const update = mailed.find((event) => event.event === "incident.updated")!
    const mail = notificationMail({
      event: update,
      sender: page,
      email: "a+b@example.test",
      unsubscribeToken: "u_1",
      locale: "fr",
      apiUrl: "https://status.acme.test"
    })
    expect(mail.subject).toBe("[Acme Kunden] Incident mis à jour\u00a0: Elevated API error rates")
    expect(mail.text).toContain(
      "\nÉtat\u00a0: Cause identifiée\nGravité\u00a0: Majeure\nHeure\u00a0: 2026-03-01 10:20 UTC\n"
    )
    expect(mail.text).toContain(
      "Se désabonner\u00a0: https://status.acme.test/p/kunden/unsubscribe?email=a%2Bb%40example.test&token=u_1"
    )
    expect(mail.text).toContain("https://status.acme.test/p/kunden/subscription?email=a%2Bb%40example.test&token=u_1")
    expect(mail.html).toContain("<th align=\"left\">Gravité</th><td>Majeure</td>")
    expect(mail.headers).toEqual({
      "List-Unsubscribe":
        "<https://status.acme.test/api/v1/unsubscribe/one-click?email=a%2Bb%40example.test&token=u_1>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
    })
    // Without the service's address, the page's.
    expect(notificationMail({ event: update, sender: page, email: "a@example.test", unsubscribeToken: "u" }).headers)
      .toEqual({
        "List-Unsubscribe":
          "<https://status.acme.test/p/kunden/api/v1/unsubscribe/one-click?email=a%40example.test&token=u>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
      })
  })

  it("a reminder gives the window's times in the page's zone by the language's conventions", () => {
    const reminder = mailed.find((event): event is MaintenanceEvent => event.event === "maintenance.reminder")!
    const mail = notificationMail({
      event: reminder,
      sender: page,
      email: "a@example.test",
      unsubscribeToken: "u",
      timeZone: "Asia/Tokyo",
      locale: "ja"
    })
    // 22:00 UTC is 07:00 the next day in Tokyo.
    expect(mail.subject).toMatch(
      /^\[Acme Kunden\] リマインダー：予定メンテナンス「Database upgrade」は 2026年3月6日 07:00 .+ に開始します$/
    )
    expect(mail.text).toMatch(/\n開始：2026年3月6日 07:00 .+\n終了：2026年3月6日 08:30 .+\n/)
  })

  it.each(locales.filter((locale) => locale !== "en"))("every mail in %s leaves no English words of ours", (locale) => {
    const english = messagesFor("en").mail
    const ours = [
      english.viewStatusPage,
      english.choose,
      english.verifyIgnore,
      "You receive this",
      "Status page:",
      "Unsubscribe:",
      "Severity",
      "Starts",
      ...Object.values(english.incidentHeadline),
      ...Object.values(english.maintenanceHeadline)
    ]
    const mails = [
      verificationMail({ sender: page, email: "a@example.test", token: "t", locale }),
      ...mailed.map((event) =>
        notificationMail({ event, sender: page, email: "a@example.test", unsubscribeToken: "u", locale })
      )
    ]
    for (const mail of mails) {
      for (const words of ours) {
        expect(mail.subject + mail.text + mail.html, `${mail.subject}: ${words}`).not.toContain(words)
      }
      expect(mail.html).toContain(`<html lang="${locale}">`)
    }
  })
})
