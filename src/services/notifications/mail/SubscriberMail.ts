/**
 * The mail subscribers receive, as pure functions: the double opt-in confirmation, and the
 * notification of an incident or maintenance event with its preferences and unsubscribe links and
 * the RFC 8058 one-click headers. Text and HTML parts say the same; user text is escaped in HTML.
 * A mail is in the language its subscriber subscribed in (i18n/messages, `mail`), from the page
 * they subscribed to: `sender` is that page's name and absolute address.
 */
import { DateTime } from "effect"

import { formatUtcIso } from "../../../domain/InstantFormat.js"
import type { Locale } from "../../../domain/Locale.js"
import type { IncidentEvent, MaintenanceEvent, Sender } from "../../../domain/NotificationEvent.js"
import { formatInstantIso } from "../../../i18n/Format.js"
import { type Messages, messagesFor } from "../../../i18n/Messages.js"
import type { MailMessage } from "./Mailer.js"

/** How long a confirmation link works. */
export const verificationHours = 48

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** Subject lines are single-line: user text must not end the header. */
const oneLine = (text: string) => text.replace(/[\r\n\t]+/g, " ").trim()

const page = (locale: Locale, title: string, paragraphs: ReadonlyArray<string>, footer: string) =>
  `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
  `<body style="font-family:sans-serif;line-height:1.5;color:#111827">` +
  `<h1 style="font-size:20px">${escapeHtml(title)}</h1>${paragraphs.join("")}` +
  `<hr><p style="font-size:12px;color:#6b7280">${footer}</p></body></html>`

export const verifyUrl = (publicUrl: string, token: string) =>
  `${publicUrl}/subscribe/verify/${encodeURIComponent(token)}`

/** The page link of subscriber mail (docs/notifications.md, "E-mail links"). */
export const unsubscribeUrl = (publicUrl: string, email: string, token: string) =>
  `${publicUrl}/unsubscribe?email=${encodeURIComponent(email)}&token=${encodeURIComponent(token)}`

/** The preferences page of subscriber mail: choose components or unsubscribe. */
export const subscriptionUrl = (publicUrl: string, email: string, token: string) =>
  `${publicUrl}/subscription?email=${encodeURIComponent(email)}&token=${encodeURIComponent(token)}`

/** The RFC 8058 endpoint that mail clients POST `List-Unsubscribe=One-Click` to. */
export const oneClickUnsubscribeUrl = (publicUrl: string, email: string, token: string) =>
  `${publicUrl}/api/v1/unsubscribe/one-click?email=${encodeURIComponent(email)}&token=${encodeURIComponent(token)}`

export const verificationMail = (options: {
  /** The page subscribed to: its name and absolute address. */
  readonly sender: Sender
  readonly email: string
  readonly token: string
  /** The language subscribed in; English when absent. */
  readonly locale?: Locale | undefined
}): MailMessage => {
  const { email, sender, token } = options
  const locale = options.locale ?? "en"
  const m = messagesFor(locale).mail
  const link = verifyUrl(sender.url, token)
  const subject = oneLine(m.verifySubject(sender.name))
  return {
    to: email,
    subject,
    text: [
      m.verifyAsked(sender.name, email),
      "",
      m.verifyWithin(verificationHours),
      link,
      "",
      m.verifyIgnore
    ].join("\n"),
    html: page(locale, subject, [
      `<p>${m.verifyAsked(escapeHtml(sender.name), escapeHtml(email))}</p>`,
      `<p>${
        m.verifyLinkWithin(`<a href="${escapeHtml(link)}">${escapeHtml(m.verifyLink)}</a>`, verificationHours)
      }</p>`,
      `<p>${escapeHtml(m.verifyIgnore)}</p>`
    ], `${escapeHtml(sender.name)} · <a href="${escapeHtml(sender.url)}">${escapeHtml(sender.url)}</a>`),
    confirmationToken: token
  }
}

export type MailedEvent = IncidentEvent | MaintenanceEvent

interface MailView {
  readonly title: string
  readonly description: string
  readonly facts: ReadonlyArray<{ readonly label: string; readonly value: string }>
}

/**
 * What a mail says about an event, in the subscriber's language: the same title, description and
 * facts as chat messages give (webhooks/formats/Presentation.ts, English for every chat), with
 * times in UTC. A reminder names the window's times in the page's time zone, as the page does:
 * its readers plan around their local start, and the subject already says when.
 */
const mailView = (event: MailedEvent, m: Messages["mail"], locale: Locale, timeZone: string): MailView => {
  switch (event.event) {
    case "incident.created":
    case "incident.updated":
    case "incident.resolved": {
      const { data } = event
      const facts = [
        { label: m.facts.status, value: m.status[data.status] },
        { label: m.facts.severity, value: m.severity[data.severity] }
      ]
      if (data.postmortemPublished === true && data.postmortem) {
        return {
          title: m.postmortemPublished(data.title),
          // The event's excerpt, its Markdown read as plain text; the page has the rest.
          description: data.postmortem.truncated ? `${data.postmortem.excerpt.trimEnd()}…` : data.postmortem.excerpt,
          facts
        }
      }
      return {
        title: `${data.test === true ? m.testPrefix : ""}${m.headline(m.incidentHeadline[event.event], data.title)}`,
        description: data.message ?? "",
        facts
      }
    }
    case "maintenance.reminder": {
      const { data } = event
      const starts = formatInstantIso(data.scheduledStart, timeZone, locale)
      return {
        title: m.reminder(data.title, starts),
        description: "",
        facts: [
          { label: m.facts.starts, value: starts },
          { label: m.facts.ends, value: formatInstantIso(data.scheduledEnd, timeZone, locale) }
        ]
      }
    }
    case "maintenance.scheduled":
    case "maintenance.started":
    case "maintenance.completed": {
      const { data } = event
      return {
        title: m.headline(m.maintenanceHeadline[event.event], data.title),
        description: m.window(formatUtcIso(data.scheduledStart), formatUtcIso(data.scheduledEnd)),
        facts: [
          { label: m.facts.status, value: m.status[data.status] },
          { label: m.facts.starts, value: formatUtcIso(data.scheduledStart) },
          { label: m.facts.ends, value: formatUtcIso(data.scheduledEnd) }
        ]
      }
    }
  }
}

export const notificationMail = (options: {
  readonly event: MailedEvent
  /** The page subscribed to: its name and absolute address, which the mail's links start with. */
  readonly sender: Sender
  readonly email: string
  readonly unsubscribeToken: string
  /** The page's time zone, which reminders give the window's times in; UTC when absent. */
  readonly timeZone?: string | undefined
  /** The language subscribed in; English when absent. */
  readonly locale?: Locale | undefined
  /** The service's own address (PUBLIC_URL), where the one-click unsubscribe API answers; `sender.url` when absent. */
  readonly apiUrl?: string | undefined
}): MailMessage => {
  const { email, event, sender, unsubscribeToken } = options
  const locale = options.locale ?? "en"
  const m = messagesFor(locale).mail
  const view = mailView(event, m, locale, options.timeZone ?? "UTC")
  const unsubscribe = unsubscribeUrl(sender.url, email, unsubscribeToken)
  const preferences = subscriptionUrl(sender.url, email, unsubscribeToken)
  const subject = oneLine(`[${sender.name}] ${view.title}`)
  const details = event.event.startsWith("maintenance.")
    ? view.facts
    : [...view.facts, { label: m.facts.time, value: formatUtcIso(DateTime.formatIso(event.occurredAt)) }]
  return {
    to: email,
    subject,
    text: [
      view.title,
      "",
      ...(view.description.length > 0 ? [view.description, ""] : []),
      ...details.map((fact) => m.fact(fact.label, fact.value)),
      "",
      m.statusPage(sender.url),
      "",
      m.why(email, sender.name),
      m.chooseAt(preferences),
      m.unsubscribeAt(unsubscribe)
    ].join("\n"),
    html: page(
      locale,
      view.title,
      [
        ...(view.description.length > 0 ? [`<p>${escapeHtml(view.description)}</p>`] : []),
        `<table>${
          details.map((fact) =>
            `<tr><th align="left">${escapeHtml(fact.label)}</th><td>${escapeHtml(fact.value)}</td></tr>`
          )
            .join("")
        }</table>`,
        `<p><a href="${escapeHtml(sender.url)}">${escapeHtml(m.viewStatusPage)}</a></p>`
      ],
      `${m.why(escapeHtml(email), escapeHtml(sender.name))} ` +
        `<a href="${escapeHtml(preferences)}">${escapeHtml(m.choose)}</a> · ` +
        `<a href="${escapeHtml(unsubscribe)}">${escapeHtml(m.unsubscribe)}</a>`
    ),
    headers: {
      "List-Unsubscribe": `<${oneClickUnsubscribeUrl(options.apiUrl ?? sender.url, email, unsubscribeToken)}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
    },
    // It unsubscribes for as long as the subscription lasts: not kept in mail_outbox_log.
    secrets: [unsubscribeToken]
  }
}

/**
 * The events subscribers are mailed about: incidents and maintenance, not component flips, nor
 * monitor events (`monitor.*`: the operators' channel, for webhooks only).
 */
export const isMailedEvent = (event: { readonly event: string }): boolean =>
  event.event.startsWith("incident.") || event.event.startsWith("maintenance.")
