/**
 * Network addresses as the per-client limits see them: normalized as proxies and sockets write
 * them, and grouped into the budget a client gets.
 */
import { Option } from "effect"
import { isIP } from "node:net"

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
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]))
  const all = tail === undefined ? groups : [...groups, ...Array(8 - groups.length - tailGroups.length).fill("0"), ...tailGroups]
  return `${all.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(":")}::/64`
}
