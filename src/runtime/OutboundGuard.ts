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

export const outboundGuard = (deny: AddressList, resolve: Resolve = dns.lookup): OutboundGuard => {
  const denied = (address: string) => {
    const normalized = addressOf(address)
    return normalized !== undefined && deny.includes(normalized)
  }
  const refuse = (host: string) => {
    const address = addressOf(host)
    return address !== undefined && deny.includes(address) ? new OutboundDenied(host, address) : undefined
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
