/**
 * The fast path for public reads: a GET whose exact URL has a current pre-encoded response (the
 * last built snapshot's JSON and feeds, a rendered public page, an uptime period) is answered
 * in the Node request listener, before the Effect router, so the cost of a cached read is close
 * to a bare node:http server's (a rebuild in progress does not hold it up). Anything else
 * (other methods, other URLs, nothing current cached yet) goes on to the Effect app unchanged.
 * What it answers is the public room's (public/FastPath.ts); here is the server around it: its
 * time-outs, the body limit, and the error bodies of requests Node refuses.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { createServer } from "node:http"
import type { ListenOptions } from "node:net"
import type { Duplex } from "node:stream"

import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"

import { FastPath } from "../public/FastPath.js"
import type { CachedResponse } from "../public/PublicResponses.js"
import { writeNode } from "../public/PublicResponses.js"
import { refuseDeclaredTooLarge, watchUnsizedBody } from "./BodyLimit.js"
import { recordFastPath } from "./MetricsHttp.js"

/**
 * How long a client may take, in milliseconds, so a slow or silent one cannot hold a socket
 * (docs/operations.md, "Time-outs and limits"). Node checks the first two every `checkInterval`; a request
 * past them is answered 408 and its connection closed.
 */
export interface ServerTimeouts {
  /** Until the request's headers are in. */
  readonly headers: number
  /** Until the whole request, body included, is in. */
  readonly request: number
  /** An idle kept-alive connection between requests. */
  readonly keepAlive: number
  /** A socket with no traffic either way, such as a client that stops reading the response. */
  readonly idle: number
  readonly checkInterval: number
}

export const serverTimeouts: ServerTimeouts = {
  headers: 10_000,
  request: 30_000,
  keepAlive: 5_000,
  idle: 60_000,
  checkInterval: 1_000
}

/**
 * A node:http server whose "request" events reach the other listeners only when `answer`
 * declines them. NodeHttpServer listens as soon as its layer is built but attaches the app
 * only once the API's layers are up; requests arriving in between are held and handed over
 * then, instead of hanging forever without a listener. A body over 1 MB is refused here
 * (BodyLimit), so neither the fast path nor the app reads it.
 */
export const serverWithFastPath = (
  answer: (request: IncomingMessage, response: ServerResponse) => boolean,
  timeouts: ServerTimeouts = serverTimeouts
): Server => {
  const server = createServer({
    headersTimeout: timeouts.headers,
    requestTimeout: timeouts.request,
    connectionsCheckingInterval: timeouts.checkInterval
  })
  server.keepAliveTimeout = timeouts.keepAlive
  // Without a "timeout" listener Node destroys the socket.
  server.setTimeout(timeouts.idle)
  server.on("clientError", answerClientError)
  // `Expect: 100-continue`: an oversized body is refused before the client is asked to send it.
  const checkContinue = (request: IncomingMessage, response: ServerResponse) => {
    if (refuseDeclaredTooLarge(request, response)) return
    response.writeContinue()
    server.emit("request", request, response)
  }
  server.on("checkContinue", checkContinue)
  const emit = server.emit.bind(server) as (event: string, ...args: Array<unknown>) => boolean
  const held: Array<[IncomingMessage, ServerResponse]> = []
  server.on("newListener", (event) => {
    // Fired before the listener is added: hand the held requests over on the next turn.
    if (event === "request") setImmediate(() => held.splice(0).forEach((args) => emit("request", ...args)))
  })
  server.emit = ((event: string, ...args: Array<unknown>) => {
    // NodeHttpServer listens for "checkContinue" too, to send `100 Continue` once the app reads
    // the body; only the listener above (which makes Node emit the event at all) answers it, so a
    // request is handled once.
    if (event === "checkContinue") {
      const [request, response] = args as [IncomingMessage, ServerResponse]
      checkContinue(request, response)
      return true
    }
    if (event !== "request") return emit(event, ...args)
    const [request, response] = args as [IncomingMessage, ServerResponse]
    if (refuseDeclaredTooLarge(request, response)) return true
    watchUnsizedBody(request)
    if (answer(request, response)) return true
    if (server.listenerCount("request") === 0) {
      held.push([request, response])
      return true
    }
    return emit(event, ...args)
  }) as Server["emit"]
  return server
}

/**
 * Requests Node refuses before any handler sees them (a request line or headers over its 16 KB
 * limit, unparsable HTTP, a request still incomplete at its time-out) get the contract's JSON
 * error body too, instead of Node's bare status line.
 */
const answerClientError = (error: Error & { code?: string }, socket: Duplex) => {
  const response = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage
  if (!socket.writable || response?.headersSent) return socket.destroy()
  const [status, reason, tag] = error.code === "HPE_HEADER_OVERFLOW"
    ? [431, "Request Header Fields Too Large", "RequestHeaderFieldsTooLarge"]
    : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
    ? [408, "Request Timeout", "RequestTimeout"]
    : [400, "Bad Request", "BadRequest"]
  const body = JSON.stringify({
    _tag: tag,
    message: status === 431
      ? "The request line or headers are too large"
      : status === 408
      ? "The request took too long to arrive"
      : "The request is not valid HTTP"
  })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${
      Buffer.byteLength(body)
    }\r\nConnection: close\r\n\r\n${body}`
  )
}

/** Answers a GET of a cached URL; `lookup` returns nothing when the URL is not cached (or what is cached is not current). */
export const answerCached =
  (lookup: (url: string, host: string | undefined, acceptLanguage: string | undefined) => CachedResponse | undefined) =>
  (request: IncomingMessage, response: ServerResponse): boolean => {
    if (request.method !== "GET" || request.url === undefined) return false
    const startedAt = performance.now()
    const cached = lookup(request.url, request.headers.host, request.headers["accept-language"])
    if (cached === undefined) return false
    writeNode(request, response, cached)
    recordFastPath(request.method, response.statusCode, startedAt)
    return true
  }

/**
 * NodeHttpServer.layer on a server with the fast path over what the process has cached: the
 * public snapshot's responses, the public pages (`/`, `/history`, the badge and widget), uptime,
 * components' response times (public/FastPath.ts).
 */
export const PublicHttpServer = (options: ListenOptions) =>
  Layer.unwrap(
    Effect.map(FastPath, ({ lookup }) => NodeHttpServer.layer(() => serverWithFastPath(answerCached(lookup)), options))
  ).pipe(Layer.provide(FastPath.layer))
