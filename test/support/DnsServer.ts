/**
 * A small authoritative DNS server on loopback UDP for the `dns` check's tests: answers A, AAAA,
 * CNAME, MX, TXT and NS queries from a table, NXDOMAIN for a name not in it, an empty answer
 * (NODATA) for a type the name lacks; a name marked `silent` gets no answer at all, one marked
 * `servfail` answers SERVFAIL. Scoped, so a test always closes it.
 */
import * as dgram from "node:dgram"

import { Effect } from "effect"

export interface DnsRecords {
  readonly A?: ReadonlyArray<string>
  readonly AAAA?: ReadonlyArray<string>
  readonly CNAME?: ReadonlyArray<string>
  readonly MX?: ReadonlyArray<{ readonly priority: number; readonly exchange: string }>
  /** Each record is its character-strings (each at most 255 bytes). */
  readonly TXT?: ReadonlyArray<ReadonlyArray<string>>
  readonly NS?: ReadonlyArray<string>
}

/** Names (lower case, no trailing dot) to their records. */
export type DnsZone = Readonly<Record<string, DnsRecords | "silent" | "servfail">>

const typeCodes = { A: 1, NS: 2, CNAME: 5, MX: 15, TXT: 16, AAAA: 28 } as const
const typeNames = new Map(Object.entries(typeCodes).map(([name, code]) => [code as number, name]))

const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff])

const encodeName = (name: string) =>
  Buffer.concat([
    ...name.replace(/\.$/, "").split(".").filter((label) => label !== "").map((label) =>
      Buffer.concat([Buffer.from([Buffer.byteLength(label)]), Buffer.from(label)])
    ),
    Buffer.from([0])
  ])

const ipv6Bytes = (address: string) => {
  const [head = "", tail] = address.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
  return Buffer.concat(groups.map((group) => u16(parseInt(group, 16))))
}

const rdataOf = (type: keyof DnsRecords, records: DnsRecords): Array<Buffer> => {
  switch (type) {
    case "A":
      return (records.A ?? []).map((address) => Buffer.from(address.split(".").map(Number)))
    case "AAAA":
      return (records.AAAA ?? []).map(ipv6Bytes)
    case "CNAME":
      return (records.CNAME ?? []).map(encodeName)
    case "NS":
      return (records.NS ?? []).map(encodeName)
    case "MX":
      return (records.MX ?? []).map((mx) => Buffer.concat([u16(mx.priority), encodeName(mx.exchange)]))
    case "TXT":
      return (records.TXT ?? []).map((strings) =>
        Buffer.concat(strings.map((text) => Buffer.concat([Buffer.from([Buffer.byteLength(text)]), Buffer.from(text)])))
      )
  }
}

/** The answer to one query, or undefined to stay silent. */
const answer = (query: Buffer, zone: DnsZone, seen: Array<{ name: string; type: string }>) => {
  let offset = 12
  const labels: Array<string> = []
  while (query[offset]! !== 0) {
    const length = query[offset]!
    labels.push(query.toString("latin1", offset + 1, offset + 1 + length))
    offset += length + 1
  }
  const type = typeNames.get(query.readUInt16BE(offset + 1)) as keyof DnsRecords | undefined
  const question = query.subarray(12, offset + 5)
  const name = labels.join(".").toLowerCase()
  seen.push({ name, type: type ?? "?" })
  const records = zone[name]
  if (records === "silent") return undefined
  const rcode = records === undefined ? 3 : records === "servfail" ? 2 : 0
  const rdatas = typeof records === "object" && type !== undefined ? rdataOf(type, records) : []
  // Each answer names the question's name by a pointer to it (offset 12), as servers do.
  const answers = rdatas.map((rdata) =>
    Buffer.concat([u16(0xc00c), u16(typeCodes[type!]), u16(1), Buffer.from([0, 0, 0, 60]), u16(rdata.length), rdata])
  )
  // QR, AA, the query's RD, RA, then the rcode.
  const flags = 0x8000 | 0x0400 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | rcode
  return Buffer.concat([
    query.subarray(0, 2),
    u16(flags),
    u16(1),
    u16(answers.length),
    u16(0),
    u16(0),
    question,
    ...answers
  ])
}

export const dnsServer = (zone: DnsZone) =>
  Effect.acquireRelease(
    Effect.callback<
      { socket: dgram.Socket; port: number; server: string; queries: Array<{ name: string; type: string }> }
    >(
      (resume) => {
        const socket = dgram.createSocket("udp4")
        const queries: Array<{ name: string; type: string }> = []
        socket.on("message", (query, from) => {
          const reply = answer(query, zone, queries)
          if (reply !== undefined) socket.send(reply, from.port, from.address)
        })
        socket.bind(0, "127.0.0.1", () => {
          const port = socket.address().port
          resume(Effect.succeed({ socket, port, server: `127.0.0.1:${port}`, queries }))
        })
      }
    ),
    ({ socket }) =>
      Effect.callback<void>((resume) => {
        socket.close(() => resume(Effect.void))
      })
  )
