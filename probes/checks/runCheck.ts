/**
 * Runs the check a job names. A check never fails: every problem is a failed outcome. The
 * checks of the types beyond http, tcp, ssl_expiry and dns are loaded by dynamic `import()`
 * when the first job of their type arrives: each is a chunk of the probe bundle (its protocol
 * code, and `pg`, `mysql2` or `@grpc/grpc-js`), so an idle probe never reads them.
 */
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
import { capError, roundMs } from "./outcome.js"
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

/** A check's module, loaded once; a module that cannot load is the check's error (a broken install). */
const lazily = <M>(load: () => Promise<M>, run: (module: M) => Effect.Effect<CheckOutcome>) =>
  Effect.flatMap(
    Effect.result(Effect.tryPromise(load)),
    (loaded) =>
      loaded._tag === "Success" ? run(loaded.success) : Effect.succeed({
        ok: false,
        durationMs: roundMs(0),
        timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null },
        statusCode: null,
        error: "this probe could not load the check's code",
        sslDaysLeft: null
      })
  )

const run = (check: CheckDefinition, options: CheckOptions): Effect.Effect<CheckOutcome> => {
  const connection = { outbound: options.outbound, extraCa: options.extraCa }
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
    case "icmp":
      return lazily(() => import("./icmp.js"), (m) => m.icmpCheck(check, connection))
    case "grpc":
      return lazily(() => import("./grpc.js"), (m) => m.grpcCheck(check, connection))
    case "postgres":
      return lazily(() => import("./postgres.js"), (m) => m.postgresCheck(check, connection))
    case "mysql":
      return lazily(() => import("./mysql.js"), (m) => m.mysqlCheck(check, connection))
    case "redis":
      return lazily(() => import("./redis.js"), (m) => m.redisCheck(check, connection))
    case "mqtt":
      return lazily(() => import("./mqtt.js"), (m) => m.mqttCheck(check, connection))
    case "amqp":
      return lazily(() => import("./amqp.js"), (m) => m.amqpCheck(check, connection))
  }
}

/**
 * `error`, unless it holds the job's password: the checks write fixed words, and this holds even
 * if some driver's text ever quoted it. The whole error goes, not only the password: a masked
 * place in fixed words would tell what the password is (`refused by ********:5432`).
 */
const withoutPassword = (error: string, password: string | null | undefined) =>
  password === null || password === undefined || password.length < 1 || !error.includes(password)
    ? error
    : "the check failed; its error is not shown, as it held the monitor's password"

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
    error: outcome.error === null ? null : storableError(withoutPassword(outcome.error, check.password))
  }))
