/**
 * Mails an incident or maintenance event to every verified subscriber: what the dispatcher
 * calls for those events. Component status changes are not mailed (they are frequent and
 * already summed up by incidents).
 */
import { Effect } from "effect"
import { AppConfig } from "../../Config.js"
import { SubscribersRepo } from "../../persistence/SubscribersRepo.js"
import { OrganizationProfile } from "../Organization.js"
import { Mailer } from "./Mailer.js"
import { isMailedEvent, notificationMail } from "./SubscriberMail.js"
import type { MailedEvent } from "./SubscriberMail.js"
import type { NotificationEvent } from "../../domain/NotificationEvent.js"

export class SubscriberNotifications extends Effect.Service<SubscriberNotifications>()("SubscriberNotifications", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const subscribers = yield* SubscribersRepo
    const organization = yield* OrganizationProfile
    const mailer = yield* Mailer

    return {
      /** Returns how many mails were sent and how many failed (those are logged). */
      notify: (event: NotificationEvent) =>
        Effect.gen(function*() {
          if (!isMailedEvent(event)) return { sent: 0, failed: 0 }
          const profile = yield* organization.get()
          const sender = { name: profile.name, url: config.publicUrl }
          const recipients = yield* subscribers.findVerifiedRecipients()
          const outcomes = yield* Effect.forEach(
            recipients,
            (recipient) =>
              mailer.send(notificationMail({
                event: event as MailedEvent,
                sender,
                email: recipient.email,
                unsubscribeToken: recipient.unsubscribeToken
              })).pipe(
                Effect.as(true),
                Effect.catchTag("MailError", (error) => Effect.logWarning(error.message).pipe(Effect.as(false)))
              ),
            { concurrency: 5 }
          )
          const sent = outcomes.filter((ok) => ok).length
          return { sent, failed: outcomes.length - sent }
        })
    } as const
  }),
  dependencies: [SubscribersRepo.Default, OrganizationProfile.Default, Mailer.Default]
}) {}
