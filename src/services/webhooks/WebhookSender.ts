/**
 * POSTs one delivery and reports what came of it. A delivery fails on a non-2xx answer, a
 * redirect (never followed: the receiver's address is what the operator configured), a
 * connection error or the time-out (CONTRACT.md "Events and webhooks"). It never fails as an
 * Effect: the outcome is data the caller records.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Context, Duration, Effect, Option } from "effect"
import { DeliveryResult } from "../../domain/Webhook.js"
import type { DeliveryRequest } from "./DeliveryRequest.js"

/** How long a receiver may take to answer; tests shorten it. */
export class DeliveryTimeout extends Context.Reference<DeliveryTimeout>()("DeliveryTimeout", {
  defaultValue: () => Duration.seconds(10)
}) {}

/** Error texts are stored and shown to operators: keep them short. */
const clip = (text: string) => (text.length > 500 ? `${text.slice(0, 499)}…` : text)

const describeCause = (cause: unknown): string => {
  const error = cause as { code?: unknown; message?: unknown; cause?: unknown } | undefined
  const code = typeof error?.code === "string" ? error.code : undefined
  const message = typeof error?.message === "string" ? error.message : String(cause)
  const inner = error?.cause !== undefined && error.cause !== cause ? describeCause(error.cause) : undefined
  return [code !== undefined && !message.includes(code) ? `${code}: ${message}` : message, inner]
    .filter((part) => part !== undefined && part.length > 0)
    .join(" / ")
}

export class WebhookSender extends Effect.Service<WebhookSender>()("WebhookSender", {
  effect: Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient

    const send = (delivery: DeliveryRequest): Effect.Effect<DeliveryResult> =>
      Effect.gen(function*() {
        const timeout = yield* DeliveryTimeout
        const request = HttpClientRequest.post(delivery.url).pipe(
          HttpClientRequest.setHeaders(delivery.headers),
          HttpClientRequest.bodyText(delivery.body, "application/json")
        )
        const [elapsed, outcome] = yield* client.execute(request).pipe(
          // Only the status matters; the scope closes the connection without reading the body.
          Effect.map((response) => ({ status: response.status, location: response.headers["location"] })),
          Effect.scoped,
          Effect.timeoutTo({
            duration: timeout,
            onSuccess: (answer) => ({ _tag: "Answered" as const, ...answer }),
            onTimeout: () => ({ _tag: "TimedOut" as const })
          }),
          Effect.catchAll((error) =>
            Effect.succeed({ _tag: "Unreachable" as const, reason: describeCause(error.cause ?? error) })
          ),
          Effect.timed
        )
        const durationMs = Math.round(Duration.toMillis(elapsed))
        switch (outcome._tag) {
          case "TimedOut":
            return new DeliveryResult({
              success: false,
              statusCode: null,
              durationMs,
              error: `No answer within ${Duration.format(timeout)}`
            })
          case "Unreachable":
            return new DeliveryResult({
              success: false,
              statusCode: null,
              durationMs,
              error: clip(`Connection failed: ${outcome.reason}`)
            })
          case "Answered": {
            const { location, status } = outcome
            const success = status >= 200 && status < 300
            const error = success
              ? null
              : status >= 300 && status < 400
              ? clip(
                `HTTP ${status}: redirects are not followed${
                  Option.match(Option.fromNullable(location), { onNone: () => "", onSome: (to) => ` (to ${to})` })
                }`
              )
              : `HTTP ${status}`
            return new DeliveryResult({ success, statusCode: status, durationMs, error })
          }
        }
      })

    return { send } as const
  }),
  dependencies: [NodeHttpClient.layer]
}) {}
