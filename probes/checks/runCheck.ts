/** Runs the check a job names. A check never fails: every problem is a failed outcome. */
import { Effect } from "effect"

import {
  type CheckDefinition,
  type CheckOutcome,
  type CheckTimings,
  errorMaxLength,
  maxReportedMs
} from "../../src/domain/CheckJob.js"
import type { OutboundGuard } from "../../src/runtime/OutboundGuard.js"
import { dnsCheck } from "./dns.js"
import { httpCheck } from "./http.js"
import { capError } from "./outcome.js"
import { sslExpiryCheck } from "./sslExpiry.js"
import { tcpCheck } from "./tcp.js"

export interface CheckOptions {
  /** Extra trusted CA certificates (PEM) for `http` over TLS and `ssl_expiry`. */
  readonly extraCa?: string | undefined
  /** `ssl_expiry` fails when fewer days are left (default 14). */
  readonly sslWarningDays?: number | undefined
  /** Addresses no check connects to (OUTBOUND_DENY); the default list when not given. */
  readonly outbound?: OutboundGuard | undefined
  /** Resolvers the `dns` checks ask (PROBE_DNS_SERVERS); none: the system's. */
  readonly dnsServers?: ReadonlyArray<string> | undefined
}

const run = (check: CheckDefinition, options: CheckOptions): Effect.Effect<CheckOutcome> => {
  switch (check.type) {
    case "http":
      return httpCheck(check, { extraCa: options.extraCa, outbound: options.outbound })
    case "tcp":
      return tcpCheck(check, { outbound: options.outbound })
    case "ssl_expiry":
      return sslExpiryCheck(check, {
        extraCa: options.extraCa,
        warningDays: options.sslWarningDays,
        outbound: options.outbound
      })
    case "dns":
      return dnsCheck(check, { servers: options.dnsServers })
  }
}

const clampMs = (ms: number) => Math.min(Math.max(ms, 0), maxReportedMs)
const clampTiming = (ms: number | null) => ms === null ? null : clampMs(ms)
const clampTimings = (t: CheckTimings): CheckTimings => ({
  dnsMs: clampTiming(t.dnsMs),
  connectMs: clampTiming(t.connectMs),
  tlsMs: clampTiming(t.tlsMs),
  firstByteMs: clampTiming(t.firstByteMs)
})

/**
 * `error` as ingest stores it: a NUL (a DNS answer or a server may send one) and an unpaired
 * surrogate become U+FFFD, then it is capped.
 */
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
const storableError = (error: string) => {
  const clean = error.replace(unstorable, "\uFFFD")
  return clean.length <= errorMaxLength ? clean : capError(clean)
}

/**
 * The outcome of `check`, within what ingest accepts: its `error` storable and capped (an
 * error quotes what was expected and what came back, which may be long), its times at most
 * `maxReportedMs` (a stalled event loop can stretch a check past its time-out), a status code
 * outside 100..599 left out (the check has failed on it already).
 */
export const runCheck = (check: CheckDefinition, options: CheckOptions = {}): Effect.Effect<CheckOutcome> =>
  Effect.map(run(check, options), (outcome) => ({
    ...outcome,
    durationMs: clampMs(outcome.durationMs),
    timings: clampTimings(outcome.timings),
    statusCode: outcome.statusCode !== null && (outcome.statusCode < 100 || outcome.statusCode > 599)
      ? null
      : outcome.statusCode,
    error: outcome.error === null ? null : storableError(outcome.error)
  }))
