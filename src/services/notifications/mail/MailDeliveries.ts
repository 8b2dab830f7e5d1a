/**
 * Subscriber mail of incident and maintenance events, delivered from the database: the
 * dispatcher enqueues one mail per verified subscriber of the event's components on the pages
 * that show it when it hands an event over, then sends
 * the due ones, retrying a failed send after 5 s, 10 s and 20 s like a webhook delivery.
 * Confirmation mails go the same way: queued with the subscription request and sent at once by
 * the process that took it; a failed one is retried by the dispatcher while its link works. So
 * do invitations to the team, queued with the invitation.
 * A mail the server refuses for good (a 5xx reply to it) is not retried: it would be refused again.
 */
import { Clock, Context, Duration, Effect, Layer, Option, Schema } from "effect"

import { NotificationEvent } from "../../../domain/NotificationEvent.js"
import { pageAddress } from "../../../domain/StatusPage.js"
import { withoutEmailAddresses } from "../../../domain/Subscriber.js"
import { countAttempt, mailAttempts } from "../../../observability/Metrics.js"
import type { MailDelivery } from "../../../persistence/MailDeliveriesRepo.js"
import { MailDeliveriesRepo } from "../../../persistence/MailDeliveriesRepo.js"
import { AppConfig } from "../../../runtime/Config.js"
import { OrganizationProfile } from "../../catalog/OrganizationProfile.js"
import { makeDeliveryQueue } from "../dispatcher/DeliveryQueue.js"
import { nextMailAttemptAt } from "../dispatcher/RetrySchedule.js"
import { invitationMail } from "./InvitationMail.js"
import { Mailer, MailError } from "./Mailer.js"
import type { MailedEvent } from "./SubscriberMail.js"
import { isMailedEvent, notificationMail, verificationMail } from "./SubscriberMail.js"

/** An SMTP exchange that takes longer than this counts as failed (nodemailer waits minutes). */
const sendTimeout = Duration.seconds(30)
/** Longer than any send, so a claimed mail is not claimed twice. */
const claimLease = Duration.sum(sendTimeout, Duration.seconds(15))

const encodeEvent = Schema.encodeSync(NotificationEvent)
const decodeEvent = Schema.decodeUnknownEffect(NotificationEvent)

export class MailDeliveries extends Context.Service<MailDeliveries>()("MailDeliveries", {
  make: Effect.gen(function*() {
    const config = yield* AppConfig
    const repo = yield* MailDeliveriesRepo
    // Made for its layer, which creates the organization's row: a page's title and zone left unset are its.
    yield* OrganizationProfile
    const mailer = yield* Mailer
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    // Claimed oldest first, for one lease; the dispatcher's pump hears when a mail attempted here comes due again.
    const queue = makeDeliveryQueue({ lease: claimLease, now, claim: repo.claimDue })

    /** Sends one mail and records the outcome; only the send may be interrupted (shutdown): the record is never cut short. */
    const attempt = (mail: MailDelivery) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          // Mail speaks for the subscriber's page, in the language the subscription was made in.
          const sender = {
            name: mail.pageTitle,
            url: pageAddress(config.publicUrl, {
              isDefault: mail.pageIsDefault,
              domain: mail.pageDomain,
              slug: mail.pageSlug
            })
          }
          if (mail.kind === "confirmation" && mail.verifyToken === null) {
            // The link was used, replaced or expired while the mail waited: mailing it would only mislead.
            return yield* repo.recordAttempt(mail, "The confirmation link no longer works; not sent", null, null)
          }
          if (mail.kind === "invitation" && mail.verifyToken === null) {
            // Accepted, revoked, replaced or expired while the mail waited.
            return yield* repo.recordAttempt(mail, "The invitation link no longer works; not sent", null, null)
          }
          const message = mail.kind === "confirmation"
            ? verificationMail({ sender, email: mail.email, token: mail.verifyToken!, locale: mail.locale })
            : mail.kind === "invitation"
            ? invitationMail({
              publicUrl: config.publicUrl,
              organization: mail.pageTitle,
              email: mail.email,
              token: mail.verifyToken!,
              role: mail.invitationRole ?? "viewer",
              invitedBy: mail.invitedBy ?? null,
              expiresAt: mail.invitationExpiresAt ?? new Date(yield* Clock.currentTimeMillis)
            })
            : notificationMail({
              event: (yield* decodeEvent(mail.event).pipe(Effect.orDie)) as MailedEvent,
              sender,
              email: mail.email,
              unsubscribeToken: mail.unsubscribeToken,
              timeZone: mail.pageTimeZone,
              locale: mail.locale,
              apiUrl: config.publicUrl
            })
          const failure = yield* restore(mailer.send(message)).pipe(
            Effect.timeoutOrElse({
              duration: sendTimeout,
              orElse: () => Effect.fail(`No answer from the mail server within ${Duration.format(sendTimeout)}`)
            }),
            Effect.as(null),
            Effect.catch((failure) =>
              Effect.succeed({
                // A refusal quotes the recipient: kept out of the log and the row like any address.
                error: withoutEmailAddresses(typeof failure === "string" ? failure : failure.message),
                replyCode: failure instanceof MailError ? failure.replyCode ?? null : null,
                permanent: failure instanceof MailError && failure.permanent === true
              })
            )
          )
          const attempt = mail.attempts + 1
          // Refused for good: the row says so in its error and reply code, and it is not retried.
          const error = failure === null
            ? null
            : failure.permanent
            ? `Refused for good by the mail server (${failure.replyCode}); not retried. ${failure.error}`
            : failure.error
          const retryAt = failure === null || failure.permanent
            ? null
            : Option.getOrNull(nextMailAttemptAt(mail.kind, attempt, yield* now))
          if (error !== null) {
            // The mail's id, not the subscriber's address: the log is no place for addresses.
            yield* Effect.logWarning(`Mail ${mail.id} (${mail.kind}) failed (attempt ${attempt}): ${error}`)
          }
          countAttempt(mailAttempts, failure === null ? "sent" : failure.permanent ? "refused" : "failed", attempt)
          yield* repo.recordAttempt(mail, error, retryAt, failure?.replyCode ?? null)
          if (retryAt !== null) queue.dueAgain(retryAt)
        })
      ).pipe(Effect.withSpan("MailDeliveries.attempt", { attributes: { mail: mail.id } }))

    return {
      /** Tells `listener`, for the scope's lifetime, when a mail this process attempted is retried (epoch milliseconds). */
      onDueAgain: queue.onDueAgain,

      /** When a claim taken at `now` runs out: a mail queued claimed (a confirmation) is the taker's until then. */
      leaseFrom: queue.leaseFrom,

      /**
       * Enqueues the mail of committed events, those subscribers are mailed about (incident and
       * maintenance events whose incident or window is public when they are handed over);
       * returns how many mails.
       */
      enqueueMany: (events: ReadonlyArray<NotificationEvent>) =>
        Effect.flatMap(now, (dueAt) =>
          repo.enqueueMany(
            events.filter(isMailedEvent).map((event) => ({
              id: event.id,
              encoded: encodeEvent(event),
              componentIds: event.componentIds,
              subject: { kind: event.event.startsWith("incident.") ? "incident" : "maintenance", id: event.data.id }
            })),
            dueAt
          )),

      /** Claims up to `limit` due mails, oldest first. */
      claimDue: queue.claimDue,

      attempt
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([MailDeliveriesRepo.layer, OrganizationProfile.layer, Mailer.layer])
  )
}
