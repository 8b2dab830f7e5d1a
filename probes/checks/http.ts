/**
 * The `http` check: one request (GET, HEAD or POST) on a fresh connection (no keep-alive pool,
 * so every check pays and measures DNS, connect and TLS like a first-time visitor). Redirects
 * are not followed: the answer must carry an expected status itself. At most the first 1 MB of
 * the body is read (then the connection is closed); what is read must arrive within the
 * time-out. An address of OUTBOUND_DENY is never connected to. JSON assertions are judged on
 * that first 1 MB too (src/domain/JsonAssertion.ts), after the status and the body texts.
 */
import * as http from "node:http"
import * as https from "node:https"
import type { Socket } from "node:net"
import { performance } from "node:perf_hooks"

import { Effect } from "effect"

import { type CheckOutcome, type HttpMethod, statusCodeMatches } from "../../src/domain/CheckJob.js"
import { assertionFailure, type JsonAssertion } from "../../src/domain/JsonAssertion.js"
import { defaultOutboundGuard, type OutboundGuard } from "../../src/runtime/OutboundGuard.js"
import { guardedMatcher } from "./guardedMatcher.js"
import { describeError, roundMs as round } from "./outcome.js"
import { trustedCas } from "./trust.js"

export interface HttpCheck {
  readonly url: string
  readonly timeoutMs: number
  /** The status that passes when `expectedStatusCodes` is absent. */
  readonly expectedStatusCode: number
  readonly method?: HttpMethod | null | undefined
  readonly headers?: { readonly [name: string]: string } | null | undefined
  /** Sent with POST only. */
  readonly body?: string | null | undefined
  /** Codes (`"204"`) and ranges (`"200-299"`). */
  readonly expectedStatusCodes?: ReadonlyArray<string> | null | undefined
  readonly bodyContains?: string | null | undefined
  readonly bodyNotContains?: string | null | undefined
  /** Judged on the first 1 MB of the body as JSON, in order; the first that fails is the error. */
  readonly assertions?: ReadonlyArray<JsonAssertion> | null | undefined
}

export interface HttpCheckOptions {
  /** Extra trusted CA certificates (PEM), added to the system's. */
  readonly extraCa?: string | undefined
  /** Addresses not to connect to (OUTBOUND_DENY); the default list when not given. */
  readonly outbound?: OutboundGuard | undefined
}

/** How much of a body a check reads: enough for any health page, bounded for a probe that runs thousands. */
export const bodyReadLimit = 1024 * 1024

/** Headers the probe sets itself: the monitor's API refuses them, and a job's are ignored. */
const ownHeaders = new Set(["host", "content-length", "transfer-encoding", "connection"])

const contentTypeOf = (body: string) => {
  try {
    JSON.parse(body)
    return "application/json"
  } catch {
    return "text/plain; charset=utf-8"
  }
}

/**
 * The request's headers: the probe's defaults, then the monitor's (node's setHeader goes by
 * the name whatever its case, so a monitor's `User-Agent` or `Content-Type` replaces the
 * default), then the framing the probe decides.
 */
const requestHeaders = (check: HttpCheck, method: HttpMethod, body: string | undefined) => {
  const headers: Record<string, string> = { "user-agent": "status-page-probe", accept: "*/*" }
  if (body !== undefined) headers["content-type"] = contentTypeOf(body)
  for (const [name, value] of Object.entries(check.headers ?? {})) {
    if (!ownHeaders.has(name.toLowerCase())) headers[name] = value
  }
  headers.connection = "close"
  if (method === "POST") headers["content-length"] = String(Buffer.byteLength(body ?? ""))
  return headers
}

/**
 * Why the answer fails the check, or undefined when it passes; `text` is the first 1 MB of the
 * body, `truncated` when the body was longer.
 */
const verdict = (
  check: HttpCheck,
  statusCode: number | null,
  text: () => string,
  truncated: boolean
): string | undefined => {
  const expected = check.expectedStatusCodes ?? [String(check.expectedStatusCode)]
  if (statusCode === null || !statusCodeMatches(expected, statusCode)) {
    // Not the Location itself: the target's answer is not echoed into the monitor's error.
    const redirect = statusCode !== null && statusCode >= 300 && statusCode < 400
    return `expected status ${expected.join(", ")}, got ${statusCode}` +
      (redirect ? ": redirect (3xx) not followed" : "")
  }
  const contains = check.bodyContains ?? undefined
  if (contains !== undefined && !text().includes(contains)) {
    return `expected body to contain ${JSON.stringify(contains)} in the first 1 MB, not found`
  }
  const notContains = check.bodyNotContains ?? undefined
  if (notContains !== undefined && text().includes(notContains)) {
    return `expected body not to contain ${JSON.stringify(notContains)} in the first 1 MB, found`
  }
  const assertions = check.assertions ?? undefined
  if (assertions !== undefined) return assertionFailure(assertions, text(), truncated, guardedMatcher)
  return undefined
}

/**
 * Lets go of what a closed socket still reaches. Young-generation collections keep a closed
 * socket alive until a full one, and with it whatever it reaches: its request (Node's
 * `_httpMessage`), the response, and every listener with what it closes over. Cut here, a
 * check alone in a process (a probe's) promotes a third as much (docs/benchmarks.md). Runs
 * after Node's own close listeners, which were added before this one; nothing is emitted on a
 * closed socket, but an error would find a listener.
 */
const releaseClosed = (socket: Socket) => {
  socket.removeAllListeners()
  socket.on("error", ignore)
  if ("_httpMessage" in socket) socket._httpMessage = null
}

const ignore = () => {}

export const httpCheck = (check: HttpCheck, options: HttpCheckOptions = {}): Effect.Effect<CheckOutcome> =>
  Effect.callback<CheckOutcome>((resume) => {
    // The listeners below stay attached to the request, its socket and its response after the
    // answer, until the socket closes (`releaseClosed`). Through `resume` they would keep this
    // check's fiber too, and take it to the old generation with them: dropped once answered.
    let answer: typeof resume | undefined = resume
    const start = performance.now()
    let lookupAt: number | undefined
    let connectAt: number | undefined
    let secureAt: number | undefined
    let sentAt: number | undefined
    let headersAt: number | undefined
    let statusCode: number | null = null
    let done = false
    let deadline: ReturnType<typeof setTimeout> | undefined

    const finish = (ok: boolean, error: string | null) => {
      if (done) return
      done = true
      clearTimeout(deadline)
      const end = performance.now()
      const connectedFrom = lookupAt ?? start
      const resumeWith = answer!
      answer = undefined
      resumeWith(Effect.succeed({
        ok,
        durationMs: round(end - start),
        timings: {
          dnsMs: lookupAt === undefined ? null : round(lookupAt - start),
          connectMs: connectAt === undefined ? null : round(connectAt - connectedFrom),
          tlsMs: secureAt === undefined || connectAt === undefined ? null : round(secureAt - connectAt),
          firstByteMs: headersAt === undefined ? null : round(headersAt - (sentAt ?? start))
        },
        statusCode,
        error,
        sslDaysLeft: null
      }))
    }

    let url: URL
    try {
      url = new URL(check.url)
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)")
    } catch {
      finish(false, `invalid http(s) URL: ${check.url}`)
      return
    }
    const isHttps = url.protocol === "https:"
    const guard = options.outbound ?? defaultOutboundGuard
    const refused = guard.refuse(url.hostname)
    if (refused !== undefined) {
      finish(false, refused.message)
      return
    }
    const method = check.method ?? "GET"
    const body = method === "POST" ? check.body ?? undefined : undefined
    let request: http.ClientRequest
    try {
      request = (isHttps ? https : http).request(url, {
        method,
        agent: false,
        lookup: guard.lookup,
        headers: requestHeaders(check, method, body),
        ...(isHttps ? { ca: trustedCas(options.extraCa) } : {})
      })
    } catch (error) {
      // A header node refuses (a character outside Latin-1…): its message names the header, not the value.
      finish(false, `invalid request: ${describeError(error as Error)}`)
      return
    }
    deadline = setTimeout(() => {
      finish(false, `timed out after ${check.timeoutMs} ms`)
      request.destroy()
    }, check.timeoutMs)

    request.once("socket", (socket: Socket) => {
      socket.once("close", () => releaseClosed(socket))
      socket.once("lookup", () => (lookupAt = performance.now()))
      socket.once("connect", () => {
        connectAt = performance.now()
        if (!isHttps) sentAt = connectAt
      })
      socket.once("secureConnect", () => (secureAt = sentAt = performance.now()))
    })
    request.once("response", (response) => {
      headersAt = performance.now()
      statusCode = response.statusCode ?? null
      // The body is kept only when it is looked into; otherwise it is counted and dropped.
      const keep = (check.bodyContains ?? check.bodyNotContains ?? check.assertions ?? undefined) !== undefined
      const chunks: Array<Buffer> = []
      let received = 0
      let text: string | undefined
      const judge = (truncated: boolean) => {
        const failure = verdict(check, statusCode, () => (text ??= Buffer.concat(chunks).toString("utf8")), truncated)
        // Up to 1 MB that the response's listeners would otherwise keep (see `answer`).
        chunks.length = 0
        text = undefined
        finish(failure === undefined, failure ?? null)
      }
      response.on("data", (chunk: Buffer) => {
        if (done) return
        const part = chunk.length > bodyReadLimit - received ? chunk.subarray(0, bodyReadLimit - received) : chunk
        received += part.length
        if (keep) chunks.push(part)
        if (received >= bodyReadLimit) {
          // Enough read: judge on the first 1 MB and drop the connection rather than download the rest.
          judge(part.length < chunk.length || !response.complete)
          response.destroy()
        }
      })
      response.on("error", (error) => finish(false, `reading the response: ${error.message}`))
      response.once("end", () => judge(false))
    })
    request.on("error", (error) => finish(false, describeError(error)))
    request.end(body)

    // Interrupted (probe shutting down): free the socket; the outcome no longer matters.
    return Effect.sync(() => {
      done = true
      clearTimeout(deadline)
      request.destroy()
    })
  })
