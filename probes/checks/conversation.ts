/**
 * What the checks that speak a protocol share: the target URL read into host, port, user and
 * path; a connection opened through OUTBOUND_DENY (resolved, checked, then connected to the
 * address; TLS keeps the host name as its server name); and a socket's errors in short fixed
 * words. A check's error never quotes what a server or a driver sent beyond a code, so it never
 * echoes a password.
 */
import * as net from "node:net"
import { isIP } from "node:net"
import { performance } from "node:perf_hooks"
import * as tls from "node:tls"

import { Effect } from "effect"

import type { CheckOutcome, CheckTimings } from "../../src/domain/CheckJob.js"
import { defaultOutboundGuard, OutboundDenied, type OutboundGuard } from "../../src/runtime/OutboundGuard.js"
import { roundMs } from "./outcome.js"
import { trustedCas } from "./trust.js"

export interface ServiceTarget {
  readonly tls: boolean
  readonly host: string
  readonly port: number
  /** The user, percent-decoded; undefined when the URL names none. */
  readonly user: string | undefined
  /** The path without its leading `/`, percent-decoded; undefined when there is none. */
  readonly path: string | undefined
}

/**
 * `<scheme>://[user@]host[:port][/path]` of one of `schemes` (plain, then TLS; the same default
 * port unless `tlsPort` is given); undefined when it is not such a URL.
 */
export const parseServiceTarget = (
  url: string,
  schemes: { readonly plain: string; readonly tls?: string; readonly port: number; readonly tlsPort?: number }
): ServiceTarget | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase()
  const secure = scheme === schemes.tls
  if (scheme !== schemes.plain && !secure) return undefined
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1")
  if (host === "") return undefined
  const port = parsed.port === "" ? (secure ? schemes.tlsPort ?? schemes.port : schemes.port) : Number(parsed.port)
  try {
    return {
      tls: secure,
      host,
      port,
      user: parsed.username === "" ? undefined : decodeURIComponent(parsed.username),
      path: parsed.pathname === "" || parsed.pathname === "/" ? undefined : decodeURIComponent(parsed.pathname.slice(1))
    }
  } catch {
    return undefined
  }
}

/** The outcome of a failed check with what it measured so far. */
export const failed = (error: string, durationMs: number, timings: Partial<CheckTimings> = {}): CheckOutcome => ({
  ok: false,
  durationMs: roundMs(durationMs),
  timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null, ...timings },
  statusCode: null,
  error,
  sslDaysLeft: null
})

/** A socket's or a resolver's error in fixed words, naming the target, never a server's text. */
export const connectionError = (error: Error & { code?: string | undefined }, host: string, port: number): string => {
  if (error instanceof OutboundDenied) return error.message
  switch (error.code) {
    case "ECONNREFUSED":
      return `connection refused by ${host}:${port}`
    case "ECONNRESET":
    case "EPIPE":
      return `connection reset by ${host}:${port}`
    case "ENOTFOUND":
    case "EAI_NONAME":
    case "EAI_NODATA":
      return `host not found: ${host}`
    case "EAI_AGAIN":
      return `host name lookup failed (try again later): ${host}`
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `${host} is unreachable`
    case "ETIMEDOUT":
      return `connection to ${host}:${port} timed out`
    default:
      // TLS errors (certificate, handshake) are node's own words about the certificate, no secret.
      return error.code !== undefined && error.code.startsWith("ERR_TLS") || error.code?.includes("CERT") === true
        ? `TLS: ${error.message}`
        : `connection to ${host}:${port} failed${error.code === undefined ? "" : ` (${error.code})`}`
  }
}

/**
 * The address to connect to for `host`, through the guard: an address of OUTBOUND_DENY (written
 * as the host, or among the answers for a name) fails with its refusal.
 */
export const resolveGuarded = (host: string, guard: OutboundGuard): Promise<{ address: string; family: number }> =>
  new Promise((resolve, reject) => {
    const refused = guard.refuse(host)
    if (refused !== undefined) return reject(refused)
    const family = isIP(host)
    if (family !== 0) return resolve({ address: host, family })
    guard.lookup(host, {}, (error, address, family) => {
      if (error !== null) return reject(error)
      resolve({ address: address as string, family: family ?? 4 })
    })
  })

/**
 * A step of a conversation: more bytes to wait for (undefined), or its end (`error` null: the
 * check passes), with the bytes that say goodbye to the server, sent before closing.
 */
export type Verdict = { readonly error: string | null; readonly farewell?: Buffer | undefined } | undefined

/** A protocol spoken over one connection, as a small state machine. */
export interface Protocol {
  /** The connection (and TLS) is up: send the first message. */
  readonly opened: (write: (bytes: Buffer) => void) => void
  /** Bytes came in (a chunk; the protocol keeps what it has not read yet). */
  readonly received: (chunk: Buffer, write: (bytes: Buffer) => void) => Verdict
  /** The words for a close by the server before the verdict (default: "connection closed by the server"). */
  readonly closedEarly?: string
}

export interface ConversationOptions {
  readonly outbound?: OutboundGuard | undefined
  /** Extra trusted CA certificates (PEM) for TLS, beside the system's. */
  readonly extraCa?: string | undefined
}

/**
 * Connects to `target` (TLS when it says so), speaks `protocol` until its verdict, closes, and
 * reports: `durationMs` the whole check, from the first lookup to the verdict; `firstByteMs`
 * from the connection being up to the first byte back.
 */
export const converse = (
  target: ServiceTarget,
  timeoutMs: number,
  protocol: Protocol,
  options: ConversationOptions = {}
): Effect.Effect<CheckOutcome> =>
  Effect.callback<CheckOutcome>((resume) => {
    const start = performance.now()
    let lookupAt: number | undefined
    let connectAt: number | undefined
    let secureAt: number | undefined
    let firstByteAt: number | undefined
    let socket: net.Socket | undefined
    let done = false
    const finish = (error: string | null, farewell?: Buffer) => {
      if (done) return
      done = true
      clearTimeout(deadline)
      if (farewell !== undefined && socket !== undefined) {
        const closing = socket
        closing.end(farewell, () => closing.destroy())
      } else {
        socket?.destroy()
      }
      const end = performance.now()
      const opened = secureAt ?? connectAt
      resume(Effect.succeed({
        ok: error === null,
        durationMs: roundMs(end - start),
        timings: {
          dnsMs: lookupAt === undefined ? null : roundMs(lookupAt - start),
          connectMs: connectAt === undefined ? null : roundMs(connectAt - (lookupAt ?? start)),
          tlsMs: secureAt === undefined || connectAt === undefined ? null : roundMs(secureAt - connectAt),
          firstByteMs: firstByteAt === undefined || opened === undefined ? null : roundMs(firstByteAt - opened)
        },
        statusCode: null,
        error,
        sslDaysLeft: null
      }))
    }
    const deadline = setTimeout(() => finish(`timed out after ${timeoutMs} ms`), timeoutMs)
    const guard = options.outbound ?? defaultOutboundGuard
    const refused = guard.refuse(target.host)
    if (refused !== undefined) {
      finish(refused.message)
      return
    }
    const write = (bytes: Buffer) => {
      if (!done) socket?.write(bytes)
    }
    const begin = () => {
      try {
        protocol.opened(write)
      } catch (error) {
        finish(`could not start the exchange: ${(error as Error).message}`)
      }
    }
    socket = target.tls
      ? tls.connect({
        host: target.host,
        port: target.port,
        lookup: guard.lookup,
        ...(isIP(target.host) === 0 ? { servername: target.host } : {}),
        ca: trustedCas(options.extraCa)
      })
      : net.connect({ host: target.host, port: target.port, lookup: guard.lookup })
    socket.once("lookup", () => (lookupAt = performance.now()))
    socket.once("connect", () => {
      connectAt = performance.now()
      if (!target.tls) begin()
    })
    socket.once("secureConnect", () => {
      secureAt = performance.now()
      begin()
    })
    socket.on("data", (chunk: Buffer) => {
      firstByteAt ??= performance.now()
      // Data arrives outside any fiber: a throw here would end the probe process.
      try {
        const verdict = protocol.received(chunk, write)
        if (verdict !== undefined) finish(verdict.error, verdict.farewell)
      } catch (error) {
        finish(`unexpected answer: ${(error as Error).message}`)
      }
    })
    socket.on("error", (error) => finish(connectionError(error, target.host, target.port)))
    socket.once("close", () => finish(protocol.closedEarly ?? "connection closed by the server"))
    return Effect.sync(() => {
      done = true
      clearTimeout(deadline)
      socket?.destroy()
    })
  })

/** The most a server may send a check that reads a library's answer (`postgres`, `mysql`): as `http` reads. */
export const maxServerBytes = 1024 * 1024

/**
 * Counts what `socket` receives and calls `over` once past `maxServerBytes`: a driver reads a
 * reply whole (rows, a message of up to 4 GB), so a hostile server could otherwise fill the
 * probe's memory, and the service's in the embedded default, for the whole time-out.
 */
export const capReceived = (
  socket: { on(event: "data", listener: (chunk: Buffer) => void): unknown },
  over: () => void
) => {
  let received = 0
  socket.on("data", (chunk) => {
    received += chunk.length
    if (received > maxServerBytes && received - chunk.length <= maxServerBytes) over()
  })
}

/**
 * The outcome of a check that reports its total and its DNS time only (`postgres`, `mysql`,
 * `grpc`: their libraries keep the rest), started at `start`, resolved at `resolvedAt`.
 */
const timedOutcome = (start: number, resolvedAt: number | undefined, error: string | null): CheckOutcome => ({
  ok: error === null,
  durationMs: roundMs(performance.now() - start),
  timings: {
    dnsMs: resolvedAt === undefined ? null : roundMs(resolvedAt - start),
    connectMs: null,
    tlsMs: null,
    firstByteMs: null
  },
  statusCode: null,
  error,
  sslDaysLeft: null
})

/**
 * A check a library speaks (`postgres`, `mysql`, `grpc`): its time-out, the lookup through
 * OUTBOUND_DENY, one verdict, and the library's connection closed after it, whatever comes first
 * (the verdict, the time-out, or the check's interruption). `open` starts the library on the
 * resolved address (`elapsedMs` of the time-out gone by then), calls `finish` with its verdict
 * (null: passed) and answers how to close it.
 */
export const libraryCheck = (
  target: ServiceTarget,
  timeoutMs: number,
  outbound: OutboundGuard | undefined,
  open: (
    resolved: { readonly address: string; readonly family: number; readonly elapsedMs: number },
    finish: (error: string | null) => void
  ) => () => void
): Effect.Effect<CheckOutcome> =>
  Effect.callback<CheckOutcome>((resume) => {
    const start = performance.now()
    let resolvedAt: number | undefined
    let close: (() => void) | undefined
    let done = false
    const finish = (error: string | null) => {
      if (done) return
      done = true
      clearTimeout(deadline)
      close?.()
      resume(Effect.succeed(timedOutcome(start, resolvedAt, error)))
    }
    const deadline = setTimeout(() => finish(`timed out after ${timeoutMs} ms`), timeoutMs)
    resolveGuarded(target.host, outbound ?? defaultOutboundGuard).then((resolved) => {
      if (done) return
      resolvedAt = performance.now()
      const opened = open({ ...resolved, elapsedMs: resolvedAt - start }, finish)
      close = opened
      // A verdict given while opening found nothing to close yet.
      if (done) opened()
    }, (error: Error & { code?: string }) => finish(connectionError(error, target.host, target.port)))
    return Effect.sync(() => {
      done = true
      clearTimeout(deadline)
      close?.()
    })
  })
