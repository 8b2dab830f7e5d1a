/**
 * Network addresses as the service reads them: normalized as proxies and sockets write them,
 * grouped into the budget a client gets, and lists of addresses and CIDR ranges from configuration.
 */
import { BlockList, isIP } from "node:net"

import { Option, Result } from "effect"

/**
 * An address as written by a proxy or the socket, normalized: brackets and ports removed,
 * IPv4-mapped IPv6 as plain IPv4, IPv6 in lower case. None: not an IP address.
 */
export const normalizeAddress = (text: string): Option.Option<string> => {
  let address = text.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed !== null) address = bracketed[1]!
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"))
  address = address.toLowerCase()
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)
  if (mapped !== null) address = mapped[1]!
  return isIP(address) === 0 ? Option.none() : Option.some(address)
}

/**
 * What a per-client limit counts by: an IPv4 address, or an IPv6 address's /64 (one subscriber
 * line or host gets a whole /64, so counting single addresses would give it 2^64 budgets).
 */
export const clientBudget = (client: string): string => {
  const address = Option.getOrElse(normalizeAddress(client), () => client)
  if (isIP(address) !== 6) return address
  const [head = "", tail] = address.split("::")
  const groups = head === "" ? [] : head.split(":")
  // A trailing dotted IPv4 part holds two groups; "::" stands for the zero groups left out.
  const tailGroups = tail === undefined || tail === ""
    ? []
    : tail.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]))
  const all = tail === undefined
    ? groups
    : [...groups, ...Array(8 - groups.length - tailGroups.length).fill("0"), ...tailGroups]
  return `${all.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(":")}::/64`
}

/** A set of addresses and CIDR ranges, such as the reverse proxies of `TRUST_PROXY`. */
export interface AddressList {
  readonly isEmpty: boolean
  readonly includes: (address: string) => boolean
}

const familyOf = (address: string) => (isIP(address) === 4 ? "ipv4" as const : "ipv6" as const)

const loopback = new BlockList()
loopback.addSubnet("127.0.0.0", 8, "ipv4")
loopback.addAddress("::1", "ipv6")

/** Whether `host`, a name or an address (IPv6 bracketed or not), is this machine's loopback: `localhost`, 127.0.0.0/8, ::1. */
export const isLoopbackHost = (host: string): boolean => {
  if (/^localhost\.?$/i.test(host.trim())) return true
  const address = normalizeAddress(host)
  return Option.isSome(address) && loopback.check(address.value, familyOf(address.value))
}

/**
 * Reads a comma list of addresses and CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`), as
 * `TRUST_PROXY` holds. Fails with a message naming the first entry that is neither.
 */
export const parseAddressList = (text: string): Result.Result<AddressList, string> => {
  const list = new BlockList()
  const entries = text.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
  for (const entry of entries) {
    const [network = "", prefix, ...rest] = entry.split("/")
    const address = normalizeAddress(network)
    const invalid = Result.fail(`"${entry}" is not an IP address or CIDR range`)
    if (Option.isNone(address) || rest.length > 0) return invalid
    const family = familyOf(address.value)
    if (prefix === undefined) {
      list.addAddress(address.value, family)
      continue
    }
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN
    if (!(bits <= (family === "ipv4" ? 32 : 128))) return invalid
    list.addSubnet(address.value, bits, family)
  }
  return Result.succeed({
    isEmpty: entries.length === 0,
    includes: (address) => list.check(address, familyOf(address))
  })
}

/**
 * The host (and port) a target sends to, in lower case: what a stored secret (a header value, a
 * password, an integration key) is bound to. A target that is no URL (`host:port`) as it is.
 */
export const targetHost = (url: string): string => {
  try {
    return new URL(url).host.toLowerCase()
  } catch {
    return url.toLowerCase()
  }
}
