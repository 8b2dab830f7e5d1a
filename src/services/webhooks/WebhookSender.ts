/**
 * POSTs one delivery and reports what came of it. A delivery fails on a non-2xx answer, a
 * redirect (never followed: the receiver's address is what the operator configured), a
 * connection error or the time-out (CONTRACT.md "Events and webhooks"). It never fails as an
 * Effect: the outcome is data the caller records.
 *
 * The request is made with `node:http(s)` directly rather than through @effect/platform's
 * HttpClient: per request that client cost about three times the CPU of the request itself
 * (a client span with an attribute per header, trace headers sent to third parties, two
 * forked fibers, a response wrapper registered for finalization), which bounded how many
 * deliveries a second one process could send. Connections are kept alive per receiver
 * origin, so a burst to one receiver does not open a connection per request.
 */
import { Context, Duration, Effect, Option } from "effect"
import * as http from "node:http"
import * as https from "node:https"
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

/** A receiver's answer body is read and dropped (so its connection can carry the next request) up to this size; a larger one closes it. */
const maxDiscardedBody = 64 * 1024

type Outcome =
  | { readonly _tag: "Answered"; readonly status: number; readonly location: string | undefined; readonly atMs: number }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Unreachable"; readonly reason: string }

/**
 * One POST. The outcome is settled by the status line: the body that follows is read and
 * dropped, and one that is too large or still coming at the time-out closes the connection.
 * A kept-alive connection that the receiver closed just as it was reused fails before any
 * answer (ECONNRESET); the request then goes once more on a new connection, as Node's
 * documentation advises (receivers tell repeats apart by `webhook-id` anyway).
 */
const post = (agents: { readonly http: http.Agent; readonly https: https.Agent }, delivery: DeliveryRequest, timeout: Duration.Duration) =>
  Effect.async<Outcome>((resume) => {
    let url: URL
    try {
      url = new URL(delivery.url)
    } catch (error) {
      return resume(Effect.succeed({ _tag: "Unreachable", reason: describeCause(error) }))
    }
    let answer: Outcome | undefined
    let settled = false
    let request: http.ClientRequest
    const settle = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(Effect.succeed(outcome))
    }
    const send = (retried: boolean) => {
      const options = { method: "POST", headers: delivery.headers, agent: url.protocol === "https:" ? agents.https : agents.http }
      request = (url.protocol === "https:" ? https.request : http.request)(url, options, (response) => {
        answer = { _tag: "Answered", status: response.statusCode ?? 0, location: response.headers.location, atMs: performance.now() }
        let bytes = 0
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length
          if (bytes > maxDiscardedBody) request.destroy()
        })
        response.on("end", () => settle(answer!))
        response.on("error", () => settle(answer!))
        response.on("close", () => settle(answer!))
      })
      request.on("error", (error: NodeJS.ErrnoException) => {
        if (answer !== undefined) return settle(answer)
        if (!retried && request.reusedSocket && error.code === "ECONNRESET") return send(true)
        settle({ _tag: "Unreachable", reason: describeCause(error) })
      })
      request.end(delivery.body)
    }
    const timer = setTimeout(() => {
      request.destroy()
      settle(answer ?? { _tag: "TimedOut" })
    }, Duration.toMillis(timeout))
    send(false)
    // Interrupted (shutdown): the request is abandoned.
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      request.destroy()
    })
  })

export class WebhookSender extends Effect.Service<WebhookSender>()("WebhookSender", {
  scoped: Effect.gen(function*() {
    const agents = yield* Effect.acquireRelease(
      Effect.sync(() => ({ http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) })),
      (agents) => Effect.sync(() => (agents.http.destroy(), agents.https.destroy()))
    )

    const send = (delivery: DeliveryRequest): Effect.Effect<DeliveryResult> =>
      Effect.gen(function*() {
        const timeout = yield* DeliveryTimeout
        const startedAt = performance.now()
        const outcome = yield* post(agents, delivery, timeout)
        // Until the status line (or the failure): the answer's body is not the receiver's answer time.
        const durationMs = Math.round((outcome._tag === "Answered" ? outcome.atMs : performance.now()) - startedAt)
        // Built from known values: no validation needed.
        const result = (fields: ConstructorParameters<typeof DeliveryResult>[0]) => new DeliveryResult(fields, { disableValidation: true })
        switch (outcome._tag) {
          case "TimedOut":
            return result({
              success: false,
              statusCode: null,
              durationMs,
              error: `No answer within ${Duration.format(timeout)}`
            })
          case "Unreachable":
            return result({
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
            return result({ success, statusCode: status, durationMs, error })
          }
        }
      })

    return { send } as const
  })
}) {}
