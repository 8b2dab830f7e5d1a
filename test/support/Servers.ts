/** Real loopback servers for the checks to probe, scoped so a test always closes them. */
import * as http from "node:http"
import * as net from "node:net"

import { Effect } from "effect"

const listen = (server: net.Server, host = "127.0.0.1", port = 0) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port))
  })

/**
 * A node:http server on a random loopback port (or on another loopback address, or a given
 * port); counts the TCP connections it accepted.
 */
export const httpServer = (handler: http.RequestListener, at: { host?: string; port?: number } = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const server = http.createServer(handler)
      let connections = 0
      server.on("connection", () => connections++)
      const host = at.host ?? "127.0.0.1"
      const port = await listen(server, host, at.port)
      return { server, port, url: `http://${host}:${port}`, connections: () => connections }
    }),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  )

/** A raw TCP listener; `onSocket` decides what happens to each accepted connection. */
export const tcpServer = (onSocket: (socket: net.Socket) => void = (socket) => socket.end()) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const sockets = new Set<net.Socket>()
      const server = net.createServer((socket) => {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
        socket.on("error", () => undefined)
        onSocket(socket)
      })
      const port = await listen(server)
      return { server, port, sockets }
    }),
    ({ server, sockets }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resolve())
        })
      )
  )

/** A loopback port with nothing listening on it. */
export const closedPort = Effect.promise(async () => {
  const server = net.createServer()
  const port = await listen(server)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
})
