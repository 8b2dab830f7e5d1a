/**
 * The `http` check: one GET on a fresh connection (no keep-alive pool, so every check pays
 * and measures DNS, connect and TLS like a first-time visitor). Redirects are not followed:
 * the answer must carry the expected status itself. The whole check, body included, must
 * finish within the time-out. An address of OUTBOUND_DENY is never connected to.
 */
import * as http from "node:http"
import * as https from "node:https"
import type { Socket } from "node:net"
import { performance } from "node:perf_hooks"

import { Effect } from "effect"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import { defaultOutboundGuard, type OutboundGuard } from "../../src/services/OutboundGuard.js"
import { describeError, roundMs as round } from "./outcome.js"
import { trustedCas } from "./trust.js"

export interface HttpCheck {
  readonly url: string
  readonly timeoutMs: number
  readonly expectedStatusCode: number
}

export interface HttpCheckOptions {
  /** Extra trusted CA certificates (PEM), added to the system's. */
  readonly extraCa?: string | undefined
  /** Addresses not to connect to (OUTBOUND_DENY); the default list when not given. */
  readonly outbound?: OutboundGuard | undefined
}

export const httpCheck = (check: HttpCheck, options: HttpCheckOptions = {}): Effect.Effect<CheckOutcome> =>
  Effect.async<CheckOutcome>((resume) => {
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
      resume(Effect.succeed({
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
    const request = (isHttps ? https : http).request(url, {
      method: "GET",
      agent: false,
      lookup: guard.lookup,
      headers: { "user-agent": "status-page-probe", accept: "*/*", connection: "close" },
      ...(isHttps ? { ca: trustedCas(options.extraCa) } : {})
    })
    deadline = setTimeout(() => {
      finish(false, `timed out after ${check.timeoutMs} ms`)
      request.destroy()
    }, check.timeoutMs)

    request.once("socket", (socket: Socket) => {
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
      response.once("error", (error) => finish(false, `reading the response: ${error.message}`))
      response.once("end", () => {
        if (statusCode === check.expectedStatusCode) return finish(true, null)
        // Not the Location itself: the target's answer is not echoed into the monitor's error.
        const redirect = statusCode !== null && statusCode >= 300 && statusCode < 400
        finish(
          false,
          `expected status ${check.expectedStatusCode}, got ${statusCode}` +
            (redirect ? ": redirect (3xx) not followed" : "")
        )
      })
      response.resume()
    })
    request.once("error", (error) => finish(false, describeError(error)))
    request.end()

    // Interrupted (probe shutting down): free the socket; the outcome no longer matters.
    return Effect.sync(() => {
      done = true
      clearTimeout(deadline)
      request.destroy()
    })
  })
