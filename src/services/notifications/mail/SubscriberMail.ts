/**
 * The mail subscribers receive, as pure functions: the double opt-in confirmation, and the
 * notification of an incident or maintenance event with its preferences and unsubscribe links and
 * the RFC 8058 one-click headers. Text and HTML parts say the same; user text is escaped in HTML.
 */
import { DateTime } from "effect"

import { formatLocalIso, formatUtcIso } from "../../../domain/InstantFormat.js"
import type { IncidentEvent, MaintenanceEvent, Sender } from "../../../domain/NotificationEvent.js"
import { present } from "../webhooks/formats/Presentation.js"
import type { MailMessage } from "./Mailer.js"

/** How long a confirmation link works. */
export const verificationHours = 48

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** Subject lines are single-line: user text must not end the header. */
const oneLine = (text: string) => text.replace(/[\r\n\t]+/g, " ").trim()

const page = (title: string, paragraphs: ReadonlyArray<string>, footer: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
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
  readonly sender: Sender
  readonly email: string
  readonly token: string
}): MailMessage => {
  const { email, sender, token } = options
  const link = verifyUrl(sender.url, token)
  const subject = oneLine(`Confirm your subscription to ${sender.name} status updates`)
  return {
    to: email,
    subject,
    text: [
      `Someone, hopefully you, asked to receive status updates from ${sender.name} at ${email}.`,
      "",
      `Confirm within ${verificationHours} hours by opening this link:`,
      link,
      "",
      "If you did not ask for this, ignore this message: nothing will be sent to you."
    ].join("\n"),
    html: page(subject, [
      `<p>Someone, hopefully you, asked to receive status updates from ${escapeHtml(sender.name)} at ${
        escapeHtml(email)
      }.</p>`,
      `<p><a href="${escapeHtml(link)}">Confirm your subscription</a> within ${verificationHours} hours.</p>`,
      `<p>If you did not ask for this, ignore this message: nothing will be sent to you.</p>`
    ], `${escapeHtml(sender.name)} · <a href="${escapeHtml(sender.url)}">${escapeHtml(sender.url)}</a>`),
    confirmationToken: token
  }
}

export type MailedEvent = IncidentEvent | MaintenanceEvent

/**
 * A reminder names the window's times in the organization's time zone, as the page does: its
 * readers plan around their local start, and the subject already says when.
 */
const reminderView = (event: MaintenanceEvent, timeZone: string) => {
  const { data } = event
  const starts = formatLocalIso(data.scheduledStart, timeZone)
  return {
    title: `Reminder: scheduled maintenance ${data.title} starts ${starts}`,
    description: "",
    facts: [
      { label: "Starts", value: starts },
      { label: "Ends", value: formatLocalIso(data.scheduledEnd, timeZone) }
    ]
  }
}

export const notificationMail = (options: {
  readonly event: MailedEvent
  readonly sender: Sender
  readonly email: string
  readonly unsubscribeToken: string
  /** The organization's time zone, which reminders give the window's times in; UTC when absent. */
  readonly timeZone?: string
}): MailMessage => {
  const { email, event, sender, unsubscribeToken } = options
  const view = event.event === "maintenance.reminder"
    ? reminderView(event, options.timeZone ?? "UTC")
    : present(event, sender)
  const unsubscribe = unsubscribeUrl(sender.url, email, unsubscribeToken)
  const preferences = subscriptionUrl(sender.url, email, unsubscribeToken)
  const subject = oneLine(`[${sender.name}] ${view.title}`)
  const details = event.event.startsWith("maintenance.")
    ? view.facts
    : [...view.facts, { label: "Time", value: formatUtcIso(DateTime.formatIso(event.occurredAt)) }]
  return {
    to: email,
    subject,
    text: [
      view.title,
      "",
      ...(view.description.length > 0 ? [view.description, ""] : []),
      ...details.map((fact) => `${fact.label}: ${fact.value}`),
      "",
      `Status page: ${sender.url}`,
      "",
      `You receive this because ${email} subscribed to ${sender.name} status updates.`,
      `Choose the components you hear about: ${preferences}`,
      `Unsubscribe: ${unsubscribe}`
    ].join("\n"),
    html: page(
      view.title,
      [
        ...(view.description.length > 0 ? [`<p>${escapeHtml(view.description)}</p>`] : []),
        `<table>${
          details.map((fact) =>
            `<tr><th align="left">${escapeHtml(fact.label)}</th><td>${escapeHtml(fact.value)}</td></tr>`
          )
            .join("")
        }</table>`,
        `<p><a href="${escapeHtml(sender.url)}">View the status page</a></p>`
      ],
      `You receive this because ${escapeHtml(email)} subscribed to ${escapeHtml(sender.name)} status updates. ` +
        `<a href="${escapeHtml(preferences)}">Choose the components you hear about</a> · ` +
        `<a href="${escapeHtml(unsubscribe)}">Unsubscribe</a>`
    ),
    headers: {
      "List-Unsubscribe": `<${oneClickUnsubscribeUrl(sender.url, email, unsubscribeToken)}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
    },
    // It unsubscribes for as long as the subscription lasts: not kept in mail_outbox_log.
    secrets: [unsubscribeToken]
  }
}

/** The events subscribers are mailed about: incidents and maintenance, not component flips. */
export const isMailedEvent = (event: { readonly event: string }): boolean =>
  event.event.startsWith("incident.") || event.event.startsWith("maintenance.")
