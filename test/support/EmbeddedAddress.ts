/**
 * Where the embedded database listens, as its start-up log line names it (the only place that
 * does): a Unix socket's path, or a TCP address where there are none (and before they were used).
 */
import net from "node:net"
import * as Path from "node:path"

import { expect } from "@effect/vitest"

export interface EmbeddedAddress {
  readonly dataDir: string
  /** The socket's path; undefined on TCP. */
  readonly socketPath: string | undefined
  /** For a pg client: host and port, or the socket's directory and the port its name carries. */
  readonly host: string
  readonly port: number
  /** A raw connection to it. */
  readonly connect: () => net.Socket
}

/** Reads the address from the log `lines` (`Embedded PostgreSQL (PGlite) under DIR, serving ADDRESS`). */
export const embeddedAddress = (lines: ReadonlyArray<string>): EmbeddedAddress => {
  const [, dataDir, address] = /under (.+), serving (\S+)$/m.exec(lines.join("\n")) ?? []
  expect(address).toBeDefined()
  if (address!.startsWith("/")) {
    const socketPath = address!
    return {
      dataDir: dataDir!,
      socketPath,
      host: Path.dirname(socketPath),
      port: Number(/\.s\.PGSQL\.(\d+)$/.exec(socketPath)?.[1]),
      connect: () => net.connect({ path: socketPath })
    }
  }
  const [host, port] = address!.split(":")
  return {
    dataDir: dataDir!,
    socketPath: undefined,
    host: host!,
    port: Number(port),
    connect: () => net.connect(Number(port), host)
  }
}

/** A startup message (protocol 3.0) as a client sends it first. */
export const startupMessage = (() => {
  const parameters = Buffer.from("user\0postgres\0database\0postgres\0\0")
  const startup = Buffer.alloc(8 + parameters.length)
  startup.writeInt32BE(8 + parameters.length, 0)
  startup.writeInt32BE(196608, 4)
  parameters.copy(startup, 8)
  return startup
})()

/**
 * A connection that never gives the password: silent, or silent after its startup message (so
 * it waits at the password request). `closed` tells whether the server has closed it.
 */
export const squatter = async (connect: () => net.Socket, sendStartup: boolean) => {
  const socket = connect()
  socket.on("error", () => {})
  let closed = false
  socket.on("close", () => (closed = true))
  socket.resume() // reads what comes (the password request), so the server's close is seen
  await new Promise((resume) => socket.once("connect", resume))
  if (sendStartup) socket.write(startupMessage)
  return { socket, closed: () => closed }
}
