/** Certificates made on the spot: a private CA, leaves signed by it, and TLS servers that serve them. */
import * as https from "node:https"
import type { AddressInfo } from "node:net"

import { generate } from "selfsigned"

const day = 24 * 60 * 60 * 1000

export interface Pem {
  readonly key: string
  readonly cert: string
}

export const makeCa = async (): Promise<Pem> => {
  const ca = await generate([{ name: "commonName", value: "Status Page Test CA" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: new Date(Date.now() - day),
    notAfterDate: new Date(Date.now() + 3650 * day),
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }
    ]
  })
  return { key: ca.private, cert: ca.cert }
}

/**
 * A server certificate for `localhost` and 127.0.0.1 valid from `notBefore` (default: yesterday)
 * until `daysLeft` days from now, signed by `ca` (self-signed without one).
 */
export const makeLeaf = async (
  options: { ca?: Pem; daysLeft: number; notBeforeDaysAgo?: number; name?: string }
): Promise<Pem> => {
  const name = options.name ?? "localhost"
  const leaf = await generate([{ name: "commonName", value: name }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: new Date(Date.now() - (options.notBeforeDaysAgo ?? 1) * day),
    // Half a day more, so "N days left" is N whatever the minute the test runs.
    notAfterDate: new Date(Date.now() + options.daysLeft * day + day / 2),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: [{ type: 2, value: name }, { type: 7, ip: "127.0.0.1" }] }
    ],
    ...(options.ca === undefined ? {} : { ca: options.ca })
  })
  return { key: leaf.private, cert: leaf.cert }
}

/** An HTTPS server on a random loopback port answering 200 to everything. */
export const startHttpsServer = async (leaf: Pem) => {
  const server = https.createServer(
    { key: leaf.key, cert: leaf.cert },
    (_request, response) => response.writeHead(200, { "content-type": "text/plain" }).end("ok")
  )
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
