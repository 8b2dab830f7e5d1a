/**
 * Keeps the connections the service opens for others (webhook deliveries, the probes' checks)
 * off the addresses of `OUTBOUND_DENY`: by default link-local addresses and the cloud metadata
 * services, which hand credentials to whoever asks from the machine. The address checked is the
 * one the connection is opened to, after DNS: a name that resolves, or re-resolves between two
 * checks (DNS rebinding), to a denied address is refused, and so is a denied address written as
 * the host. Refusing happens before any packet leaves, so the target never sees a connection.
 */
import * as dns from "node:dns"
import type { LookupFunction } from "node:net"

import { Option, Result } from "effect"

import { type AddressList, normalizeAddress, parseAddressList } from "../domain/NetworkAddress.js"
import { defaultOutboundDeny } from "./Config.js"

/** Why a connection was not opened; its message becomes the webhook's or the check's error text. */
export class OutboundDenied extends Error {
  constructor(readonly host: string, readonly address: string) {
    super(`connection to ${host === address ? address : `${host} (${address})`} refused by OUTBOUND_DENY`)
    this.name = "OutboundDenied"
  }
}

/** Resolves a name to all its addresses, as `dns.lookup` with `all: true` does (tests pass their own). */
export type Resolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: Array<dns.LookupAddress>) => void
) => void

export interface OutboundGuard {
  /** The refusal when `host` is a denied IP address (node skips `lookup` for addresses), else undefined. */
  readonly refuse: (host: string) => OutboundDenied | undefined
  /** A `lookup` for node's connect options: resolves as usual, and fails if any answer is denied. */
  readonly lookup: LookupFunction
}

/** Brackets and an IPv6 zone (`%eth0`) removed, IPv4-mapped IPv6 as IPv4; undefined for a name. */
const addressOf = (host: string): string | undefined =>
  Option.getOrUndefined(normalizeAddress(host.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "")))

/** Verdicts a guard keeps before it starts over: far more targets than a deployment checks. */
const remembered = 4096

export const outboundGuard = (deny: AddressList, resolve: Resolve = dns.lookup): OutboundGuard => {
  // Each verdict is kept by the host's text (the denied address, or "" when allowed): the list
  // never changes, and every check of a monitor asks about the same host again. Reading the
  // address and asking node's BlockList cost the embedded default about 1 % of its CPU.
  const verdicts = new Map<string, string>()
  const deniedAddress = (host: string) => {
    let verdict = verdicts.get(host)
    if (verdict === undefined) {
      const address = addressOf(host)
      verdict = address !== undefined && deny.includes(address) ? address : ""
      if (verdicts.size >= remembered) verdicts.clear()
      verdicts.set(host, verdict)
    }
    return verdict === "" ? undefined : verdict
  }
  const denied = (address: string) => deniedAddress(address) !== undefined
  const refuse = (host: string) => {
    const address = deniedAddress(host)
    return address === undefined ? undefined : new OutboundDenied(host, address)
  }
  // Every answer is checked, not only the one tried first: with several (IPv4 and IPv6, or
  // node's happy eyeballs) any of them may be the one connected to.
  const lookup: LookupFunction = (hostname, options, callback) =>
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, [])
      const refused = addresses.find((answer) => denied(answer.address))
      if (refused !== undefined) return callback(new OutboundDenied(hostname, refused.address), [])
      if (options.all === true) return callback(null, addresses)
      const [first] = addresses
      if (first === undefined) {
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), [])
      }
      callback(null, first.address, first.family)
    })
  return deny.isEmpty ? { refuse: () => undefined, lookup: dns.lookup as LookupFunction } : { refuse, lookup }
}

/** The guard of the default OUTBOUND_DENY, for checks run without one of their own. */
export const defaultOutboundGuard = outboundGuard(Result.getOrThrow(parseAddressList(defaultOutboundDeny)))
