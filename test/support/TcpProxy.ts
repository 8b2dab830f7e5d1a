/** A loopback TCP proxy that a test can cut and restore, to take a real dependency away. */
import * as Net from "node:net"

import { Effect } from "effect"

export const tcpProxy = (targetPort: number, targetHost = "127.0.0.1") =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const sockets = new Set<Net.Socket>()
      const server = Net.createServer((client) => {
        const upstream = Net.connect(targetPort, targetHost)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on("close", () => sockets.delete(socket))
          socket.on("error", () => socket.destroy())
        }
        client.pipe(upstream).pipe(client)
        client.on("close", () => upstream.destroy())
        upstream.on("close", () => client.destroy())
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const port = (server.address() as Net.AddressInfo).port
      const cut = () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resolve())
        })
      /** Refuses new connections and keeps the open ones (`restore` listens again). */
      const refuse = () => void server.close()
      const restore = () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
      return { port, cut, refuse, restore, server }
    }),
    ({ server }) => Effect.sync(() => server.close())
  )
