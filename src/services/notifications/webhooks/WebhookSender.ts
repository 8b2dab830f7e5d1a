/**
 * POSTs one delivery and reports what came of it. A delivery fails on a non-2xx answer, a
 * redirect (never followed: the receiver's address is what the operator configured), a
 * connection error, an address that OUTBOUND_DENY refuses, or the time-out
 * (docs/notifications.md). It never fails as an Effect: the outcome is data the caller records.
 *
 * The request is made with `node:http(s)` directly rather than through effect's
 * HttpClient: per request that client cost about three times the CPU of the request itself
 * (a client span with an attribute per header, trace headers sent to third parties, two
 * forked fibers, a response wrapper registered for finalization), which bounded how many
 * deliveries a second one process could send. Connections are kept alive per receiver
 * origin, so a burst to one receiver does not open a connection per request.
 */
import * as http from "node:http"
import * as https from "node:https"

import { Context, Duration, Effect, Layer } from "effect"

import type { AttemptResult } from "../../../domain/Webhook.js"
import { DeliveryResult } from "../../../domain/Webhook.js"
import { AppConfig } from "../../../runtime/Config.js"
import { type OutboundGuard, outboundGuard } from "../../../runtime/OutboundGuard.js"
import type { DeliveryRequest } from "./DeliveryRequest.js"

/** How long a receiver may take to answer; tests shorten it. */
export const DeliveryTimeout = Context.Reference<Duration.Duration>("DeliveryTimeout", {
  defaultValue: () => Duration.seconds(10)
})

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

type Agents = { readonly http: http.Agent; readonly https: https.Agent }

/**
 * Every connection the agent opens goes through the guard: a denied address as the host fails
 * at once, a name is resolved by the guard's lookup. Per connection, not per request, so kept-alive
 * deliveries pay nothing.
 */
const guarded = <A extends http.Agent>(agent: A, guard: OutboundGuard): A => {
  const createConnection = agent.createConnection.bind(agent)
  agent.createConnection = (options, callback) => {
    const refused = guard.refuse(options.host ?? "")
    if (refused === undefined) return createConnection({ ...options, lookup: guard.lookup }, callback)
    callback?.(refused, undefined as never)
    return undefined
  }
  return agent
}

/** A redirect's `Location` is left out: the receiver's answer is not echoed to whoever reads the error. */
const resultOf = (status: number, durationMs: number): AttemptResult => {
  const success = status >= 200 && status < 300
  const error = success
    ? null
    : status >= 300 && status < 400
    ? `HTTP ${status}: redirect (3xx) not followed`
    : `HTTP ${status}`
  return { success, statusCode: status, durationMs, error }
}

/**
 * One POST through the kept-alive `agents`; `onResult` is called once with its outcome, unless
 * the function returned is called first, which abandons the request (shutdown). The outcome
 * is settled by the status line: the body that follows is read and dropped, and one that is
 * too large or still coming at the time-out closes the connection. A kept-alive connection
 * that the receiver closed just as it was reused fails before any answer (ECONNRESET); the
 * request then goes once more on a new connection, as Node's documentation advises (receivers
 * tell repeats apart by `webhook-id` anyway).
 *
 * Plain callbacks rather than an Effect: this is the dispatcher's innermost loop, and the
 * bare loop of `npm run bench:webhooks` calls it the same way.
 */
const post = (
  agents: Agents,
  delivery: DeliveryRequest,
  timeout: Duration.Duration,
  onResult: (result: AttemptResult) => void
): () => void => {
  const startedAt = performance.now()
  // Until the status line (or the failure): the answer's body is not the receiver's answer time.
  const elapsed = () => Math.round(performance.now() - startedAt)
  let answer: AttemptResult | undefined
  let settled = false
  let request: http.ClientRequest | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  const settle = (result: AttemptResult) => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    onResult(result)
  }
  const unreachable = (cause: unknown): AttemptResult => ({
    success: false,
    statusCode: null,
    durationMs: elapsed(),
    error: clip(`Connection failed: ${describeCause(cause)}`)
  })
  const send = (retried: boolean) => {
    const url = new URL(delivery.url)
    const secure = url.protocol === "https:"
    const sent = (secure ? https.request : http.request)(url, {
      method: "POST",
      headers: delivery.headers,
      agent: secure ? agents.https : agents.http
    }, (response) => {
      answer = resultOf(response.statusCode ?? 0, elapsed())
      let bytes = 0
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length
        if (bytes > maxDiscardedBody) sent.destroy()
      })
      response.on("end", () => settle(answer!))
      response.on("error", () => settle(answer!))
      response.on("close", () => settle(answer!))
    })
    request = sent
    sent.on("error", (error: NodeJS.ErrnoException) => {
      // Destroyed by the time-out or abandoned: over, and never to be sent again.
      if (settled) return
      if (answer !== undefined) return settle(answer)
      if (!retried && sent.reusedSocket && error.code === "ECONNRESET") return trySend(true)
      settle(unreachable(error))
    })
    sent.end(delivery.body)
  }
  const trySend = (retried: boolean) => {
    try {
      send(retried)
    } catch (error) {
      // Refused before it left: an address that is not a URL, or one node:http cannot take.
      settle(unreachable(error))
    }
  }
  timer = setTimeout(() => {
    request?.destroy()
    settle(
      answer ??
        {
          success: false,
          statusCode: null,
          durationMs: elapsed(),
          error: `No answer within ${Duration.format(timeout)}`
        }
    )
  }, Duration.toMillis(timeout))
  trySend(false)
  return () => {
    settled = true
    clearTimeout(timer)
    request?.destroy()
  }
}

export class WebhookSender extends Context.Service<WebhookSender>()("WebhookSender", {
  make: Effect.gen(function*() {
    const guard = outboundGuard((yield* AppConfig).outboundDeny)
    const agents = yield* Effect.acquireRelease(
      Effect.sync((): Agents => ({
        http: guarded(new http.Agent({ keepAlive: true }), guard),
        https: guarded(new https.Agent({ keepAlive: true }), guard)
      })),
      (agents) => Effect.sync(() => (agents.http.destroy(), agents.https.destroy()))
    )
    return {
      /** One POST as callbacks (see `post`), for the dispatcher's attempts. */
      post: (delivery: DeliveryRequest, timeout: Duration.Duration, onResult: (result: AttemptResult) => void) =>
        post(agents, delivery, timeout, onResult),
      /** One POST with the DeliveryTimeout in force; interrupting it abandons the request. */
      send: (delivery: DeliveryRequest): Effect.Effect<DeliveryResult> =>
        Effect.flatMap(DeliveryTimeout, (timeout) =>
          Effect.callback<DeliveryResult>((resume) => {
            // Resumed on the next tick: Effect 4 runs the caller on at once, and node:http hands
            // the kept-alive connection back to its agent on the next tick after the answer ends.
            const abandon = post(agents, delivery, timeout, (result) =>
              process.nextTick(() =>
                resume(Effect.succeed(new DeliveryResult(result, { disableChecks: true })))
              ))
            return Effect.sync(abandon)
          }))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
