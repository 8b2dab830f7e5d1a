/**
 * The `dns` check: resolves the monitor's host name for one record type (A by default) and
 * passes when there is at least one answer and every expected value is among the answers.
 * It asks the probe's resolvers (the system's, or PROBE_DNS_SERVERS) and connects to nothing
 * else, so OUTBOUND_DENY does not apply: the answers are compared, never connected to.
 */
import { Resolver } from "node:dns"
import { isIP, isIPv6 } from "node:net"
import { performance } from "node:perf_hooks"

import { Effect } from "effect"

import type { CheckOutcome, DnsRecordType } from "../../src/domain/CheckJob.js"
import { describeError, roundMs } from "./outcome.js"

export interface DnsCheck {
  /** The host name, bare (`example.com`) or as `dns://example.com`. */
  readonly url: string
  readonly timeoutMs: number
  readonly dnsRecordType?: DnsRecordType | null | undefined
  readonly dnsExpectedValues?: ReadonlyArray<string> | null | undefined
}

export interface DnsCheckOptions {
  /** Resolvers to ask (`ip`, `ip:port`, `[v6]:port`) instead of the system's; none: the system's. */
  readonly servers?: ReadonlyArray<string> | undefined
}

const label = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
const hostName = new RegExp(`^${label}(?:\\.${label})*\\.?$`)

/** The name a `dns` target asks for, or undefined when it is not a host name. */
export const dnsName = (target: string): string | undefined => {
  const name = target.replace(/^dns:\/\//i, "").replace(/\/$/, "")
  return name.length <= 254 && hostName.test(name) ? name : undefined
}

/**
 * PROBE_DNS_SERVERS: comma-separated `ip`, `ip:port` or `[v6]:port`, as node's `setServers`
 * takes them; undefined when an entry is none of these. Empty: the system's resolvers.
 */
export const parseDnsServers = (text: string): ReadonlyArray<string> | undefined => {
  const servers = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
  const valid = servers.every((server) => {
    const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(server)
    if (isIPv6(server)) return true
    if (match === null) return false
    const port = match[3] === undefined ? 53 : Number(match[3])
    return (match[1] !== undefined ? isIPv6(match[1]) : isIP(match[2]!) === 4) && port >= 1 && port <= 65535
  })
  return valid ? servers : undefined
}

/** A text answer (CNAME, MX, NS, TXT) as compared: lower case, no trailing dot. */
const asText = (value: string) => value.trim().toLowerCase().replace(/\.$/, "")

/** The zone of a scoped IPv6 address (`fe80::1%eth0`): DNS answers never carry one. */
const zoneOf = (value: string) => {
  const text = asText(value)
  const at = text.indexOf("%")
  return at >= 0 && isIPv6(text) ? text.slice(at) : undefined
}

/** An A or AAAA answer as compared: an IPv6 address in its shortest form, anything else as text. */
const asAddress = (value: string) => {
  const text = asText(value)
  // A zone makes the URL parser throw, and no answer has one: such a value stays text and never matches.
  if (!isIPv6(text) || text.includes("%")) return text
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1)
  } catch {
    return text
  }
}

/** The answers of one query as text, read inside the check's guard: an MX record is its exchange, a TXT record its strings joined. */
type Answers = (error: NodeJS.ErrnoException | null, answers: () => ReadonlyArray<string>) => void

const queries: Record<DnsRecordType, (resolver: Resolver, name: string, callback: Answers) => void> = {
  A: (resolver, name, callback) => resolver.resolve4(name, (error, addresses) => callback(error, () => addresses)),
  AAAA: (resolver, name, callback) => resolver.resolve6(name, (error, addresses) => callback(error, () => addresses)),
  CNAME: (resolver, name, callback) => resolver.resolveCname(name, (error, names) => callback(error, () => names)),
  NS: (resolver, name, callback) => resolver.resolveNs(name, (error, names) => callback(error, () => names)),
  MX: (resolver, name, callback) =>
    resolver.resolveMx(name, (error, records) => callback(error, () => records.map((record) => record.exchange))),
  TXT: (resolver, name, callback) =>
    resolver.resolveTxt(name, (error, records) => callback(error, () => records.map((strings) => strings.join(""))))
}

export const dnsCheck = (check: DnsCheck, options: DnsCheckOptions = {}): Effect.Effect<CheckOutcome> =>
  Effect.callback<CheckOutcome>((resume) => {
    const start = performance.now()
    let done = false
    let resolver: Resolver | undefined
    const finish = (ok: boolean, error: string | null) => {
      if (done) return
      done = true
      clearTimeout(deadline)
      resolver?.cancel()
      const ms = roundMs(performance.now() - start)
      resume(Effect.succeed({
        ok,
        durationMs: ms,
        timings: { dnsMs: ms, connectMs: null, tlsMs: null, firstByteMs: null },
        statusCode: null,
        error,
        sslDaysLeft: null
      }))
    }
    // c-ares' own time-outs are per try; this bounds the whole resolution by the monitor's.
    const deadline = setTimeout(() => finish(false, `timed out after ${check.timeoutMs} ms`), check.timeoutMs)

    const type = check.dnsRecordType ?? "A"
    const name = dnsName(check.url)
    if (name === undefined) {
      finish(false, `invalid host name: ${check.url}`)
      return
    }
    // Two tries (a lost UDP packet is retried), the second waiting twice as long: both fit the time-out.
    resolver = new Resolver({ timeout: Math.max(1, Math.floor(check.timeoutMs / 3)), tries: 2 })
    if (options.servers !== undefined && options.servers.length > 0) {
      try {
        resolver.setServers(options.servers)
      } catch (error) {
        finish(false, `invalid DNS servers: ${describeError(error as Error)}`)
        return
      }
    }
    const compared = type === "A" || type === "AAAA" ? asAddress : asText
    queries[type](resolver, name, (error, answersOf) => {
      // A resolver's callback runs outside any fiber: a throw here would end the probe process.
      try {
        if (error !== null) return finish(false, describeFailure(error, type, name, check.timeoutMs))
        const answers = answersOf()
        if (answers.length === 0) return finish(false, `no ${type} record for ${name} (NODATA)`)
        const expected = check.dnsExpectedValues ?? []
        const got = new Set(answers.map(compared))
        if (expected.every((value) => got.has(compared(value)))) return finish(true, null)
        const show = (values: ReadonlyArray<string>) =>
          values.map((value) => type === "TXT" ? JSON.stringify(value) : value).join(", ")
        const zone = compared === asAddress ? expected.map(zoneOf).find((found) => found !== undefined) : undefined
        finish(
          false,
          `expected ${type} record${expected.length > 1 ? "s" : ""} ${show(expected)}, got ${show(answers)}` +
            (zone === undefined ? "" : `: a zone (${zone}) is never part of a DNS answer`)
        )
      } catch (cause) {
        finish(
          false,
          `${type} lookup of ${name} failed: ${cause instanceof Error ? describeError(cause) : String(cause)}`
        )
      }
    })
    return Effect.sync(() => {
      done = true
      clearTimeout(deadline)
      resolver?.cancel()
    })
  })

/** A resolver's error as the monitor shows it: which answer, for which name. */
const describeFailure = (error: NodeJS.ErrnoException, type: DnsRecordType, name: string, timeoutMs: number) => {
  switch (error.code) {
    case "ENOTFOUND":
      return `no ${type} record for ${name} (NXDOMAIN)`
    case "ENODATA":
      return `no ${type} record for ${name} (NODATA)`
    case "ETIMEOUT":
      return `timed out after ${timeoutMs} ms`
    case "ESERVFAIL":
      return `${type} lookup of ${name} failed: the DNS server answered SERVFAIL`
    case "EREFUSED":
      return `${type} lookup of ${name} failed: the DNS server answered REFUSED`
    case "ECONNREFUSED":
      return `${type} lookup of ${name} failed: no DNS server could be reached (ECONNREFUSED)`
    default:
      return `${type} lookup of ${name} failed: ${describeError(error)}`
  }
}
