/**
 * The service reads no request body over 1 MB: it answers 413 `PayloadTooLarge` instead
 * (docs/api.md, "Errors"). Without a limit of its own the platform reads up to 10 MB into memory
 * per request, and a chunked body past its limit gets the connection reset, not an answer.
 *
 * - A `Content-Length` over the limit is refused before any handler reads it, and before the
 *   `100 Continue` a client may wait for (`refuseDeclaredTooLarge`, in the Node listener).
 * - A body without a length (chunked) is counted as the parser hands it over
 *   (`watchUnsizedBody`). It is received whole before any handler runs (`bodyLimit`): within the
 *   limit it waits in the request stream for the handler; past it the rest is dropped and the
 *   answer is 413, so no handler ever sees a cut body.
 */
import type { IncomingMessage, ServerResponse } from "node:http"

import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"
import { HttpMiddleware, HttpServerRequest, HttpServerResponse } from "effect/http"

export const maxBodyBytes = 1024 * 1024

const tooLarge = {
  _tag: "PayloadTooLarge",
  message: "The request body is over 1 MB, the most the service reads"
} as const

/** Bodies up to this size are read and thrown away after a 413, rather than cut off. */
const maxDrainedBytes = 8 * maxBodyBytes

/**
 * Answers 413 when the declared `Content-Length` is over the limit; no handler reads the body.
 * Up to 8 MB, Node reads the rest of it and throws it away once the answer is sent: closing at
 * once would break the pipe of a client still writing, which then never reads the answer. A
 * larger body, or a client waiting for `100 Continue` (which sends none), gets the connection
 * closed instead.
 */
export const refuseDeclaredTooLarge = (request: IncomingMessage, response: ServerResponse): boolean => {
  const declared = Number(request.headers["content-length"] ?? 0)
  if (!(declared > maxBodyBytes)) return false
  const drain = declared <= maxDrainedBytes && request.headers.expect === undefined
  const body = JSON.stringify(tooLarge)
  response.writeHead(413, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...(drain ? {} : { connection: "close" })
  }).end(body)
  return true
}

/** Unsized bodies: settles with whether the body went past the limit, once it ended or did. */
const unsizedBodies = new WeakMap<object, Promise<boolean>>()

/**
 * Counts a chunked body as Node's parser pushes it into the request stream. The parser is told
 * to read on whatever the stream holds, so the body (at most 1 MB) is received in full before a
 * handler starts reading it; past the limit the stream is ended and the rest dropped as it arrives.
 */
export const watchUnsizedBody = (request: IncomingMessage) => {
  if (request.headers["transfer-encoding"] === undefined) return
  let received = 0
  let over = false
  let settle: (over: boolean) => void = () => {}
  unsizedBodies.set(request, new Promise<boolean>((resolve) => (settle = resolve)))
  const push = request.push.bind(request)
  request.push = (chunk: Buffer | null, encoding?: BufferEncoding) => {
    if (over) return true
    if (chunk === null) {
      settle(false)
      return push(null)
    }
    received += chunk.length
    if (received > maxBodyBytes) {
      over = true
      settle(true)
      push(null)
      return true
    }
    push(chunk, encoding)
    return true
  }
}

/**
 * Holds a request with a chunked body until it is received, and answers 413 in place of the
 * app when it went past the limit. Requests with a length (or none) pass straight through.
 */
export const bodyLimit = HttpMiddleware.make((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const body = unsizedBodies.get(NodeHttpServerRequest.toIncomingMessage(request))
    return body === undefined ? app : Effect.flatMap(
      Effect.promise(() => body),
      (over) =>
        over
          ? Effect.succeed(HttpServerResponse.jsonUnsafe(tooLarge, { status: 413, headers: { connection: "close" } }))
          : app
    )
  })
)
