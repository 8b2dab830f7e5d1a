/**
 * Sends mail over SMTP (`SMTP_URL`, from `MAIL_FROM`) with nodemailer. Without SMTP_URL the
 * mail is logged (its subject) and kept in the `mail_outbox_log` table instead, so the embedded
 * default shows what would have been sent, its `secrets` replaced by `REDACTED`.
 */
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"

import type { ServiceUnavailable } from "../../../domain/Errors.js"
import { MailOutboxLogRepo } from "../../../persistence/MailOutboxLogRepo.js"
import { AppConfig } from "../../../runtime/Config.js"

export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Values the copy kept without SMTP_URL must not hold: tokens of links that still grant
   * something once the subscriber confirmed (unsubscribe). A confirmation link is kept usable.
   */
  readonly secrets?: ReadonlyArray<string>
  /**
   * The token of the confirmation link the mail carries: the copy kept without SMTP_URL goes
   * once that link is used, replaced or expired (Housekeeping).
   */
  readonly confirmationToken?: string
}

/** The message as `mail_outbox_log` keeps it: every secret, plain or URL-encoded, replaced. */
export const keptCopy = (message: MailMessage): MailMessage => {
  const secrets = (message.secrets ?? []).filter((secret) => secret.length > 0)
    .flatMap((secret) => [secret, encodeURIComponent(secret)])
  const redact = (text: string) => secrets.reduce((kept, secret) => kept.replaceAll(secret, "REDACTED"), text)
  return {
    to: message.to,
    subject: redact(message.subject),
    text: redact(message.text),
    html: redact(message.html),
    headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, redact(value)]))
  }
}

export class MailError extends Schema.TaggedError<MailError>()("MailError", {
  message: Schema.String,
  /** The mail server's reply code, when it answered (`550`); absent for a timeout or a lost connection. */
  replyCode: Schema.optionalKey(Schema.Int),
  /**
   * The server refused this mail for good (a 5xx reply to its envelope or data, RFC 5321):
   * sending it again would be refused again. A refusal of the session (authentication, greeting)
   * is not: it is the service's configuration, and every mail waits for its repair.
   */
  permanent: Schema.optionalKey(Schema.Boolean)
}) {}

/** What nodemailer attaches to an SMTP failure (NodemailerError): the step that failed and the reply. */
interface SmtpFailure {
  readonly code?: unknown
  readonly responseCode?: unknown
  readonly permanent?: unknown
}

/** A send's failure as a MailError, with the reply code and whether the refusal is final. */
export const mailErrorOf = (cause: unknown): MailError => {
  const failure: SmtpFailure = typeof cause === "object" && cause !== null ? cause : {}
  const replyCode = typeof failure.responseCode === "number" ? failure.responseCode : undefined
  return new MailError({
    message: `Sending mail failed: ${String(cause)}`,
    ...(replyCode === undefined ? {} : { replyCode }),
    // nodemailer's `permanent`: 5xx but 503 (bad sequence: the session's fault, not the mail's).
    permanent: (failure.code === "EENVELOPE" || failure.code === "EMESSAGE") && failure.permanent === true
  })
}

export class Mailer extends Context.Service<Mailer>()("Mailer", {
  make: Effect.gen(function*() {
    const config = yield* AppConfig
    const outboxLog = yield* MailOutboxLogRepo

    const keep = (sent: MailMessage): Effect.Effect<void, MailError | ServiceUnavailable> => {
      const message = keptCopy(sent)
      // The subject only: the address and the links stay in the table.
      return Effect.logInfo(`Mail (no SMTP_URL, kept in mail_outbox_log): ${message.subject}`).pipe(
        Effect.andThen(outboxLog.keep({
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          headers: message.headers,
          confirmationToken: sent.confirmationToken
        }))
      )
    }

    const send = yield* Option.match(config.smtpUrl, {
      onNone: () => Effect.succeed(keep),
      onSome: (url) =>
        Effect.map(
          Effect.acquireRelease(
            // nodemailer is loaded only with SMTP_URL: without it, it would sit in memory unused.
            Effect.promise(() => import("nodemailer")).pipe(
              Effect.map(({ default: nodemailer }) => nodemailer.createTransport(Redacted.value(url)))
            ),
            (transport) => Effect.sync(() => transport.close())
          ),
          (transport) => (message: MailMessage): Effect.Effect<void, MailError | ServiceUnavailable> =>
            Effect.tryPromise({
              try: () =>
                transport.sendMail({
                  from: config.mailFrom,
                  to: message.to,
                  subject: message.subject,
                  text: message.text,
                  html: message.html,
                  headers: { ...message.headers }
                }),
              catch: mailErrorOf
            }).pipe(Effect.asVoid)
        )
    })

    return { send: (message: MailMessage) => send(message).pipe(Effect.withSpan("Mailer.send")) } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(MailOutboxLogRepo.layer))
}
