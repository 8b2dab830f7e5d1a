/**
 * The `ssl_expiry` check: a TLS handshake with the target (`https://host[:port]` or
 * `host[:port]`, port 443 by default) that reads the peer certificate. It fails when the chain
 * does not verify against the trusted roots (system CAs plus an optional extra CA), when the
 * name does not match, or when the certificate expires within the warning threshold; it always
 * reports the days left when a certificate was seen. An address of OUTBOUND_DENY is never
 * connected to.
 */
import { isIP } from "node:net"
import { performance } from "node:perf_hooks"
import * as tls from "node:tls"

import { Clock, Effect } from "effect"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import { defaultOutboundGuard, type OutboundGuard } from "../../src/runtime/OutboundGuard.js"
import { describeError, parseHostPort, roundMs } from "./outcome.js"
import { trustedCas } from "./trust.js"

export interface SslExpiryCheck {
  readonly url: string
  readonly timeoutMs: number
}

export interface SslExpiryOptions {
  /** Fail when the certificate expires in fewer than this many days (default 14). */
  readonly warningDays?: number | undefined
  /** Extra trusted CA certificates (PEM), added to the system's. */
  readonly extraCa?: string | undefined
  /** Addresses not to connect to (OUTBOUND_DENY); the default list when not given. */
  readonly outbound?: OutboundGuard | undefined
}

export const defaultSslWarningDays = 14

const dayMs = 24 * 60 * 60 * 1000

/** `https://host[:port][/…]` or `host[:port]`; undefined when it is neither. */
export const parseTlsTarget = (target: string) => {
  if (target.includes("://")) {
    try {
      const url = new URL(target)
      if (url.protocol !== "https:") return undefined
      return { host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port === "" ? 443 : Number(url.port) }
    } catch {
      return undefined
    }
  }
  return parseHostPort(target, 443)
}

interface Handshake {
  readonly authorized: boolean
  readonly authorizationError: string | null
  readonly validTo: number | null
  readonly connectMs: number
  readonly tlsMs: number
  readonly durationMs: number
}

const handshake = (
  host: string,
  port: number,
  timeoutMs: number,
  extraCa: string | undefined,
  guard: OutboundGuard
) =>
  Effect.callback<Handshake, string>((resume) => {
    const refused = guard.refuse(host)
    if (refused !== undefined) {
      resume(Effect.fail(refused.message))
      return
    }
    const start = performance.now()
    let connectAt: number | undefined
    let done = false
    const fail = (error: string) => {
      if (done) return
      done = true
      clearTimeout(deadline)
      socket.destroy()
      resume(Effect.fail(error))
    }
    const socket = tls.connect({
      host,
      port,
      lookup: guard.lookup,
      // SNI is for names only; node warns when it is given an IP address.
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ca: trustedCas(extraCa),
      // Verify ourselves, so an invalid chain still shows its certificate and days left.
      rejectUnauthorized: false
    })
    const deadline = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs)
    socket.once("connect", () => (connectAt = performance.now()))
    socket.once("secureConnect", () => {
      if (done) return
      done = true
      clearTimeout(deadline)
      const end = performance.now()
      const certificate = socket.getPeerCertificate()
      const validTo = certificate && certificate.valid_to ? Date.parse(certificate.valid_to) : NaN
      const authorizationError = socket.authorizationError
      socket.destroy()
      resume(Effect.succeed({
        authorized: socket.authorized,
        authorizationError: authorizationError === undefined || authorizationError === null
          ? null
          : String(authorizationError),
        validTo: Number.isNaN(validTo) ? null : validTo,
        connectMs: roundMs((connectAt ?? start) - start),
        tlsMs: roundMs(end - (connectAt ?? start)),
        durationMs: roundMs(end - start)
      }))
    })
    socket.once("error", (error) => fail(describeError(error)))
    return Effect.sync(() => {
      done = true
      clearTimeout(deadline)
      socket.destroy()
    })
  })

export const sslExpiryCheck = (check: SslExpiryCheck, options: SslExpiryOptions = {}): Effect.Effect<CheckOutcome> =>
  Effect.gen(function*() {
    const warningDays = options.warningDays ?? defaultSslWarningDays
    const target = parseTlsTarget(check.url)
    const startedAt = performance.now()
    if (target === undefined) {
      return failure(`invalid TLS target (want https://host[:port] or host[:port]): ${check.url}`, 0)
    }
    const result = yield* Effect.result(
      handshake(target.host, target.port, check.timeoutMs, options.extraCa, options.outbound ?? defaultOutboundGuard)
    )
    if (result._tag === "Failure") return failure(result.failure, roundMs(performance.now() - startedAt))
    const seen = result.success
    const now = yield* Clock.currentTimeMillis
    const sslDaysLeft = seen.validTo === null ? null : Math.floor((seen.validTo - now) / dayMs)
    const error = !seen.authorized
      ? `certificate not trusted: ${seen.authorizationError ?? "unknown reason"}`
      : sslDaysLeft === null
      ? "the server sent no certificate"
      : sslDaysLeft < warningDays
      ? `certificate expires in ${sslDaysLeft} days (threshold ${warningDays})`
      : null
    return {
      ok: error === null,
      durationMs: seen.durationMs,
      timings: { dnsMs: null, connectMs: seen.connectMs, tlsMs: seen.tlsMs, firstByteMs: null },
      statusCode: null,
      error,
      sslDaysLeft
    } satisfies CheckOutcome
  })

const failure = (error: string, durationMs: number): CheckOutcome => ({
  ok: false,
  durationMs,
  timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null },
  statusCode: null,
  error,
  sslDaysLeft: null
})
